import { expect, test } from "@playwright/test";
import { shoot } from "./support";
import { expectAxeClean, projectWithKeys, registeredPlayer, trpcMutation } from "./support-players";

/** The audit log: field-level changes, target names that link, filters. */
test("an entry shows what changed field by field, and its target by name with a link to it", async ({ page, request }) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Audit diff");
  const p = await registeredPlayer(request, clientKey, { email: `a-${Date.now()}@studio.test`, displayName: "Before" });
  await trpcMutation(page, "players.setDisplayName", { projectId, playerId: p.playerId, displayName: "After" });
  await trpcMutation(page, "economy.createCurrency", { projectId, currency: { id: "coins", name: "Coins", initialBalance: 5 } });
  await trpcMutation(page, "economy.updateCurrency", { projectId, id: "coins", patch: { name: "Gold coins" } });
  await page.goto(`/projects/${projectId}/audit`);
  const rename = page.getByTestId("audit-row").filter({ hasText: "player.display-name" });
  await expect(rename.getByTestId("audit-diff")).toContainText('displayName "Before" → "After"');
  const currency = page.getByTestId("audit-row").filter({ hasText: "economy.currency.update" });
  await expect(currency.getByTestId("audit-diff")).toContainText('name "Coins" → "Gold coins"');
  await expect(currency.getByRole("link", { name: "Gold coins" })).toHaveAttribute("href", `/projects/${projectId}/economy`);
  await expectAxeClean(page);
  // On a laptop the table fits its card: no sideways scroll, the Request column inside the card.
  await page.setViewportSize({ width: 1280, height: 800 });
  const scroller = page.getByTestId("audit-row").first().locator("xpath=ancestor::table/..");
  await expect
    .poll(() => scroller.evaluate((el) => el.scrollWidth - el.clientWidth), { message: "the audit table scrolls sideways at 1280 wide" })
    .toBeLessThanOrEqual(0);
  const requestHeader = await page.getByRole("columnheader", { name: "Request" }).boundingBox();
  const box = await scroller.boundingBox();
  expect((requestHeader?.x ?? Number.POSITIVE_INFINITY) + (requestHeader?.width ?? 0)).toBeLessThanOrEqual(
    (box?.x ?? 0) + (box?.width ?? 0) + 1,
  );
  await shoot(page, "audit-diff");
  await rename.getByRole("link", { name: "After" }).click();
  await expect(page.getByRole("heading", { name: "After" })).toBeVisible();
  await expectAxeClean(page);
});

test("filters: by action, target and date range", async ({ page, request }) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Audit filters");
  const p = await registeredPlayer(request, clientKey, { email: `f-${Date.now()}@studio.test`, displayName: "Target" });
  await trpcMutation(page, "players.setDisplayName", { projectId, playerId: p.playerId, displayName: "Targeted" });
  await page.goto(`/projects/${projectId}/audit`);
  await expect(page.getByTestId("audit-row")).toHaveCount(4); // project, two keys, the rename
  await page.getByLabel("Filter by target").fill(p.playerId.slice(0, 13));
  await expect(page.getByTestId("audit-row")).toHaveCount(1);
  await page.getByLabel("Filter by target").fill("");
  await page.getByLabel("Filter by action").click();
  await page.getByRole("option", { name: "key.*" }).click();
  await expect(page.getByTestId("audit-row")).toHaveCount(2);
  await page.getByLabel("Filter by operator").click();
  await expect(page.getByRole("option")).toHaveCount(2); // every operator, and the one who did all this
  await page.keyboard.press("Escape");
  await page.getByLabel("From").fill("2099-01-01");
  await expect(page.getByText("No entries match these filters.")).toBeVisible();
  await expectAxeClean(page);
  await shoot(page, "audit-filters");
});
