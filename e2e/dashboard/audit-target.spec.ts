import { expect, test } from "@playwright/test";
import { demo, shoot } from "./support";
import { expectAxeClean, potionShop, projectWithKeys, trpcMutation } from "./support-players";

/**
 * "Who changed buy-potion's price?": a config import and a dashboard edit (confirmed, with a
 * reason) both change it; the audit log's target search finds both with their operator and the
 * price before → after, and an import's entries open by its id; the filters live in the URL.
 */
test.use({ viewport: { width: 1280, height: 900 } });

test("the audit log answers who changed buy-potion's price, from an import and from a confirmed dashboard edit", async ({ page }) => {
  const { projectId } = await projectWithKeys(page, "Who changed");
  await potionShop(page, projectId, 10);
  const exported = await page.request.get(`/api/trpc/config.export?input=${encodeURIComponent(JSON.stringify({ projectId }))}`);
  expect(exported.status()).toBe(200);
  const doc = ((await exported.json()) as { result: { data: { purchases: Array<{ id: string; costs: unknown[] }> } } }).result.data;
  const document = {
    ...doc,
    purchases: doc.purchases.map((p) => (p.id === "buy-potion" ? { ...p, costs: [{ currencyId: "coins", amount: 15 }] } : p)),
  };
  await trpcMutation(page, "config.import", { projectId, document });

  await page.goto(`/projects/${projectId}/economy`);
  await page.getByRole("button", { name: "Edit buy-potion" }).click();
  const editor = page.getByRole("dialog");
  await editor.getByLabel("Costs amount 1").fill("12");
  await editor.getByRole("button", { name: "Save purchase" }).click();
  await expect(editor.getByTestId("confirm-change")).toContainText("costs");
  await expect(editor.getByTestId("confirm-change")).toContainText("15");
  await expect(editor.getByTestId("confirm-change")).toContainText("12");
  await editor.getByRole("button", { name: "Confirm change" }).click();
  await expect(editor.getByText("Give a reason")).toBeVisible();
  await editor.getByLabel("Reason (kept in the audit log)").fill("Weekend sale");
  await editor.getByRole("button", { name: "Confirm change" }).click();
  await expect(editor).toHaveCount(0);

  await page.goto(`/projects/${projectId}/audit`);
  await page.getByLabel("Filter by target").fill("buy-potion");
  await expect(page).toHaveURL(/target=buy-potion/);
  // Newest first: the dashboard's edit, the import's change, the creation.
  const rows = page.getByTestId("audit-row");
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toContainText("economy.purchase.update");
  await expect(rows.nth(0)).toContainText("Weekend sale");
  await expect(rows.nth(0)).toContainText(demo().operatorEmail);
  await expect(rows.nth(1)).toContainText("config.import.purchase.change");
  await expect(rows.nth(1)).toContainText('"amount":10');
  await expect(rows.nth(1)).toContainText('"amount":15');
  await expect(rows.nth(2)).toContainText("economy.purchase.create");
  // The Request column fits the card on a laptop: its cells are inside the viewport.
  const request = page.getByRole("columnheader", { name: "Request" });
  await expect(request).toBeInViewport();
  await expectAxeClean(page);
  await shoot(page, "audit-who-changed-buy-potion");

  await rows
    .nth(1)
    .getByRole("button", { name: /^Import / })
    .click();
  await expect(page).toHaveURL(/import=[0-9a-f-]{36}/);
  await expect(page.getByTestId("audit-import-filter")).toBeVisible();
  // Filters combine: with the target still set, only the import's buy-potion entry; without it, the summary too.
  await expect(page.getByTestId("audit-row")).toHaveCount(1);
  await page.getByLabel("Filter by target").fill("");
  await expect(page).not.toHaveURL(/target=/);
  await expect(page.getByTestId("audit-row")).toHaveCount(2);
  await expect(page.getByTestId("audit-row").filter({ hasText: "config.import" })).toHaveCount(2);
});
