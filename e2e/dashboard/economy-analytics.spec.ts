import { expect, test } from "@playwright/test";
import { shoot } from "./support";
import { download, expectAxeClean, projectWithKeys, registeredPlayer, trpcMutation } from "./support-players";

/** The economy page's sources-and-sinks analytics and its finance exports card, on a project seeded through the API. */
async function seeded(page: Parameters<typeof projectWithKeys>[0], request: Parameters<typeof registeredPlayer>[0], name: string) {
  const { projectId, clientKey } = await projectWithKeys(page, name);
  await trpcMutation(page, "economy.createCurrency", { projectId, currency: { id: "gems", name: "Gems", initialBalance: 0 } });
  const player = await registeredPlayer(request, clientKey, { email: `a-${Date.now()}@studio.test`, displayName: "Analyst" });
  const ref = { projectId, playerId: player.playerId, items: [] };
  await trpcMutation(page, "economy.adjust", {
    ...ref,
    direction: "grant",
    currencies: [{ currencyId: "gems", amount: 50 }],
    reason: "gift",
  });
  await trpcMutation(page, "economy.adjust", {
    ...ref,
    direction: "revoke",
    currencies: [{ currencyId: "gems", amount: 5 }],
    reason: "fix",
  });
  return { projectId, playerId: player.playerId };
}

test("the economy page charts each currency's sources and sinks and lists today's numbers", async ({ page, request }) => {
  const { projectId } = await seeded(page, request, "Analytics");
  await page.goto(`/projects/${projectId}/economy`);
  const gems = page.getByTestId("currency-analytics").filter({ hasText: "Gems" });
  await expect(gems.getByTestId("analytics-totals")).toHaveText("+50 added · −5 removed · net +45");
  await expect(gems.getByTestId("analytics-chart").locator(".recharts-bar-rectangle").first()).toBeVisible();
  const today = new Date().toISOString().slice(0, 10);
  const row = gems.getByTestId("analytics-row");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(today);
  await expect(gems.getByRole("columnheader")).toHaveText(["Day (UTC)", "Grants", "Revokes", "Net"]);
  await expect(row.getByRole("cell")).toHaveText([today, "50", "5", "+45"]);
  await page.getByRole("button", { name: "7 days" }).click();
  await expect(page.getByRole("button", { name: "7 days" })).toHaveAttribute("aria-pressed", "true");
  await expect(gems.getByTestId("analytics-totals")).toHaveText("+50 added · −5 removed · net +45");
  await expectAxeClean(page);
  await shoot(page, "economy-analytics");
});

test("the analytics read in the dark theme too (axe, contrast included)", async ({ page, request }) => {
  const { projectId } = await seeded(page, request, "Analytics dark");
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto(`/projects/${projectId}/economy`);
  await expect(page.getByTestId("analytics-chart").locator(".recharts-bar-rectangle").first()).toBeVisible();
  await page.getByTestId("analytics-chart").hover();
  await expectAxeClean(page);
  await shoot(page, "economy-analytics-dark");
});

test("the finance exports card downloads the ledger of a range as CSV with a byte-order mark", async ({ page, request }) => {
  const { projectId, playerId } = await seeded(page, request, "Finance export");
  await page.goto(`/projects/${projectId}/economy`);
  const today = new Date().toISOString().slice(0, 10);
  await page.getByLabel("To (UTC, included)").fill(today);
  await page.getByLabel("For Excel (byte-order mark)").check();
  const file = await download(page, page.getByRole("link", { name: "Download CSV" }));
  expect(file.name).toMatch(/^finance-ledger-\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
  expect(file.text.startsWith("\uFEFFid,created_at,player_id,kind,")).toBe(true);
  const lines = file.text.trimEnd().split("\r\n");
  expect(lines[0]).toMatch(/,delta_gems,balance_gems$/);
  expect(lines.slice(1).map((l) => [l.split(",")[2], l.split(",")[3], l.split(",").slice(-2).join(",")])).toEqual([
    [playerId, "grant", "50,50"],
    [playerId, "revoke", "-5,45"],
  ]);
  await page.getByLabel("From (UTC)").fill("2020-01-01");
  await expect(page.getByTestId("finance-export-problem")).toHaveText("A range is at most 366 days.");
  await expectAxeClean(page);
});
