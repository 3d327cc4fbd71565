import { expect, type Page, test } from "@playwright/test";
import { createProject, seriousAxeFindings, shoot, signIn } from "./support";

/** Store offers (purchases) cannot be made broken in one click, and read like English. */
test.use({ viewport: { width: 1280, height: 900 } });

/** A project with the currency Coins and the item Shield, on its economy page. */
async function shop(page: Page): Promise<void> {
  await signIn(page);
  const projectId = await createProject(page, `Shop ${Date.now()}`);
  await page.goto(`/projects/${projectId}/economy`);
  await page.getByLabel("Currency id").fill("coins");
  await page.getByLabel("Currency name").fill("Coins");
  await page.getByRole("button", { name: "Create currency" }).click();
  await expect(page.getByTestId("currency-row")).toHaveCount(1);
  await page.getByLabel("Item id").fill("shield");
  await page.getByLabel("Item name").fill("Shield");
  await page.getByRole("button", { name: "Create item" }).click();
  await expect(page.getByTestId("item-row")).toHaveCount(1);
}

async function line(page: Page, side: "Costs" | "Rewards", index: number, option: string, amount: string): Promise<void> {
  await page.getByLabel(`${side} line ${index}`, { exact: true }).click();
  await page.getByRole("option", { name: option }).click();
  await page.getByLabel(`${side} amount ${index}`).fill(amount);
}

async function named(page: Page, id: string, name: string): Promise<void> {
  await page.getByLabel("Purchase id").fill(id);
  await page.getByLabel("Purchase name").fill(name);
}

test("new cost and reward lines start empty, and Create asks for a pick instead of making '1 coins → 1 coins'", async ({ page }) => {
  await shop(page);
  await named(page, "buy-shield", "Buy a shield");
  await page.getByRole("button", { name: "Add a cost" }).click();
  await page.getByRole("button", { name: "Add a reward" }).click();
  await expect(page.getByLabel("Costs line 1", { exact: true })).toHaveText("Pick a currency or an item");
  await expect(page.getByLabel("Rewards line 1", { exact: true })).toHaveText("Pick a currency or an item");
  await expect(page.getByLabel("Costs amount 1")).toHaveValue("");
  await expect(page.getByLabel("Rewards amount 1")).toHaveValue("");
  await page.getByRole("button", { name: "Create purchase" }).click();
  await expect(page.getByText("Pick a currency or an item.")).toHaveCount(2);
  await expect(page.getByTestId("purchase-row")).toHaveCount(0);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "store-offer-empty-lines");
});

test("a purchase whose rewards are exactly its costs is refused with a sentence that says why", async ({ page }) => {
  await shop(page);
  await named(page, "loop", "Loop");
  await page.getByRole("button", { name: "Add a cost" }).click();
  await line(page, "Costs", 1, "Currency: Coins (coins)", "1");
  await page.getByRole("button", { name: "Add a reward" }).click();
  await line(page, "Rewards", 1, "Currency: Coins (coins)", "1");
  await page.getByRole("button", { name: "Create purchase" }).click();
  await expect(page.getByText("The rewards are the same as the costs: buying it would change nothing.")).toBeVisible();
  await expect(page.getByTestId("purchase-row")).toHaveCount(0);
  expect(await seriousAxeFindings(page)).toEqual([]);
});

test("a purchase that costs nothing is created only after a confirmation, and the list shows it as free", async ({ page }) => {
  await shop(page);
  await named(page, "daily-gift", "Daily gift");
  await page.getByRole("button", { name: "Add a reward" }).click();
  await line(page, "Rewards", 1, "Item: Shield (shield)", "1");
  await page.getByRole("button", { name: "Create purchase" }).click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog).toContainText("Create a purchase that costs nothing?");
  await expect(dialog).toContainText('Players can take "Daily gift" for free');
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "store-offer-free-confirm");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("purchase-row")).toHaveCount(0);
  await page.getByRole("button", { name: "Create purchase" }).click();
  await dialog.getByRole("button", { name: "Create free purchase" }).click();
  await expect(page.getByTestId("purchase-row")).toHaveCount(1);
  await expect(page.getByTestId("purchase-row")).toContainText("Free");
  await expect(page.getByTestId("purchase-row")).toContainText("1 Shield");
});

test("costs and rewards read with the right plural: 1 Coin, 2 Coins, 1 Shield, 3 Shields", async ({ page }) => {
  await shop(page);
  await named(page, "buy-shield", "Buy a shield");
  await page.getByRole("button", { name: "Add a cost" }).click();
  await line(page, "Costs", 1, "Currency: Coins (coins)", "2");
  await page.getByRole("button", { name: "Add a reward" }).click();
  await line(page, "Rewards", 1, "Item: Shield (shield)", "1");
  await page.getByRole("button", { name: "Create purchase" }).click();
  await expect(page.getByTestId("purchase-row")).toHaveCount(1);
  await named(page, "buy-shields", "Buy shields");
  await page.getByRole("button", { name: "Add a cost" }).click();
  await line(page, "Costs", 1, "Currency: Coins (coins)", "1");
  await page.getByRole("button", { name: "Add a reward" }).click();
  await line(page, "Rewards", 1, "Item: Shield (shield)", "3");
  await page.getByRole("button", { name: "Create purchase" }).click();
  await expect(page.getByTestId("purchase-row")).toHaveCount(2);
  const rows = page.getByTestId("purchase-row");
  await expect(rows.filter({ hasText: "buy-shields" })).toContainText("1 Coin");
  await expect(rows.filter({ hasText: "buy-shields" })).toContainText("3 Shields");
  await expect(rows.filter({ hasText: "Buy a shield" })).toContainText("2 Coins");
  await expect(rows.filter({ hasText: "Buy a shield" })).toContainText("1 Shield");
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "store-offer-plurals");
});
