import { readFileSync } from "node:fs";
import path from "node:path";
import type { JWSTransactionDecodedPayload } from "@apple/app-store-server-library";
import { expect, type Page, test } from "@playwright/test";
import { E2E_APPLE_DIR } from "../../playwright.config";
import { type ApplePkiMaterial, applePkiFrom, TEST_APPLE_APP, transactionPayload } from "../support/apple-test-pki";
import { acceptInvite, INVITED_PASSWORD, invite, seriousAxeFindings, shoot, signIn } from "./support";
import { anonymousPlayer, type MadePlayer, projectWithKeys, trpcMutation } from "./support-players";

/**
 * The Purchases page with real App Store purchases: the app trusts the test Apple root the
 * Playwright config made, and the spec signs StoreKit 2 transactions with it.
 */
test.use({ viewport: { width: 1280, height: 900 } });

const pki = () => applePkiFrom(JSON.parse(readFileSync(path.join(E2E_APPLE_DIR, "apple-test-pki.json"), "utf8")) as ApplePkiMaterial);

/** A project selling "500 gems" on the App Store (production and sandbox), with its client key, set up as its owner. */
async function sellingGems(page: Page, name: string): Promise<{ projectId: string; clientKey: string }> {
  const { projectId, clientKey } = await projectWithKeys(page, name);
  await trpcMutation(page, "economy.createCurrency", { projectId, currency: { id: "gems", name: "Gems", clientWritable: false } });
  await trpcMutation(page, "store.setSettings", {
    projectId,
    input: { store: "apple", settings: { bundleId: TEST_APPLE_APP.bundleId, appAppleId: TEST_APPLE_APP.appAppleId, environments: "both" } },
  });
  await trpcMutation(page, "store.createProduct", {
    projectId,
    product: {
      id: "gems-500",
      name: "500 gems",
      rewards: [{ currencyId: "gems", amount: 500 }],
      appleProductId: "com.example.game.gems500",
    },
  });
  return { projectId, clientKey };
}

/** The player buys 500 gems (a StoreKit 2 transaction signed by the test root); answers Apple's transaction id. */
async function buyGems(page: Page, clientKey: string, player: MadePlayer, o: { sandbox?: boolean } = {}): Promise<string> {
  const payload = transactionPayload({
    productId: "com.example.game.gems500",
    ...(o.sandbox ? { environment: "Sandbox" as JWSTransactionDecodedPayload["environment"] } : {}),
  });
  const res = await page.request.post("/api/v1/economy/receipts", {
    headers: { "X-API-Key": clientKey, Authorization: `Bearer ${player.accessToken}` },
    data: { store: "apple", signedTransaction: pki().signTransaction(payload) },
  });
  expect(res.status(), await res.text()).toBe(200);
  return String(payload.transactionId);
}

test("an operator finds a purchase by its transaction id, refunds it by hand with a reason, and the player's gems are taken back", async ({
  page,
}) => {
  const { projectId, clientKey } = await sellingGems(page, "Store purchases");
  const player = await anonymousPlayer(page.request, clientKey);
  const bought = [await buyGems(page, clientKey, player), await buyGems(page, clientKey, player)];
  const [refunded = ""] = bought;

  await page.goto(`/projects/${projectId}`);
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Purchases" }).click();
  await expect(page.getByTestId("store-purchase-row")).toHaveCount(2);
  await page.getByLabel("Transaction, order or receipt id").fill(refunded);
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(new RegExp(`q=${refunded}`));
  await expect(page.getByTestId("store-purchase-row")).toHaveCount(1);
  await page.getByRole("button", { name: `Open purchase ${refunded}` }).click();
  const detail = page.getByTestId("store-purchase-detail");
  await expect(detail.getByTestId("store-purchase-status")).toHaveText("granted");
  expect(await seriousAxeFindings(page)).toEqual([]);

  await detail.getByLabel("Reason").fill("chargeback reported by e-mail");
  await detail.getByRole("button", { name: "Refund by hand" }).click();
  const confirm = page.getByRole("alertdialog");
  await expect(confirm).toContainText("This does not return any money");
  await confirm.getByRole("button", { name: "Take it back" }).click();
  await expect(detail.getByTestId("store-purchase-status")).toHaveText("refunded");
  await expect(page.getByTestId("store-purchase-row")).toContainText("refunded");
  await shoot(page, "purchases-refunded");

  await detail.getByRole("link", { name: "The player's ledger" }).click();
  await expect(page.getByTestId("balance-gems").locator(":scope > span.font-mono")).toHaveText("500");
  await expect(page.getByTestId("player-store-purchase")).toHaveCount(2);
  await expect(page.getByTestId("player-store-purchase").filter({ hasText: "refunded" })).toHaveCount(1);
  await expect(page.getByTestId("ledger-row").first()).toContainText("store_refund");
});

test("an admin enters the Steam publisher key on the Store page and sees only its hint afterwards, never the key", async ({ page }) => {
  const { projectId } = await projectWithKeys(page, "Store settings");
  const key = "0123456789abcdef0123456789abcdef";
  await page.goto(`/projects/${projectId}/purchases`);
  await page.getByRole("link", { name: "Stores, products and refund policy" }).click();
  const steam = page.getByTestId("store-card-steam");
  await steam.getByLabel("App id").fill("480");
  await steam.getByLabel("Publisher Web API key").fill(key);
  await steam.getByRole("button", { name: "Save Steam" }).click();
  await expect(page.getByTestId("store-secret-hint-steam")).toContainText("••••cdef");
  await expect(steam.getByRole("button", { name: "Replace credential" })).toBeVisible();
  expect(await page.content()).not.toContain(key);
  await page.reload();
  await expect(page.getByTestId("store-secret-hint-steam")).toContainText("••••cdef");
  expect(await page.content()).not.toContain(key);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "store-settings");
});

test("the overview counts today's production sale of gems-500 and leaves the sandbox one out", async ({ page }) => {
  const { projectId, clientKey } = await sellingGems(page, "Store revenue");
  const player = await anonymousPlayer(page.request, clientKey);
  await buyGems(page, clientKey, player);
  await buyGems(page, clientKey, player, { sandbox: true });
  await page.goto(`/projects/${projectId}`);
  const row = page.getByTestId("store-revenue-product");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("gems-500");
  await expect(row.locator("td").nth(1)).toHaveText("1");
  await expect(row).toContainText("USD 1.99");
  await expect(page.getByText("sandbox purchases (testers, App Review) are not counted")).toBeVisible();
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "overview-store-revenue");
});

test("an admin creates a store product with its App Store id, rewards and price, and it is listed", async ({ page }) => {
  const { projectId } = await projectWithKeys(page, "Store products");
  await trpcMutation(page, "economy.createCurrency", { projectId, currency: { id: "gems", name: "Gems" } });
  await page.goto(`/projects/${projectId}/store`);
  await page.getByRole("button", { name: "New store product" }).click();
  await page.getByLabel("Store product id", { exact: true }).fill("gems-500");
  await page.getByLabel("Store product name").fill("500 gems");
  await page.getByLabel("App Store product id").fill("com.example.game.gems500");
  await page.getByLabel("Rewards line 1", { exact: true }).click();
  await page.getByRole("option", { name: "Currency: Gems (gems)" }).click();
  await page.getByLabel("Rewards amount 1").fill("500");
  await page.getByLabel("Price", { exact: true }).fill("4.99");
  await page.getByLabel("Price currency").fill("USD");
  await page.getByRole("button", { name: "Create store product" }).click();
  const row = page.getByTestId("store-product-row");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("500 gems");
  await expect(row).toContainText("com.example.game.gems500");
  await expect(row).toContainText("USD 4.99");
  expect(await seriousAxeFindings(page)).toEqual([]);
});

test("a viewer opens a purchase and the Store page read-only: no refund by hand, no settings form, no product editing", async ({
  page,
  browser,
}) => {
  const { projectId, clientKey } = await sellingGems(page, "Store viewer");
  const player = await anonymousPlayer(page.request, clientKey);
  const bought = await buyGems(page, clientKey, player);
  const email = `viewer-${Date.now()}@studio.test`;
  await acceptInvite(browser, await invite(page, projectId, email), "Vera Viewer");
  const context = await browser.newContext();
  const viewer = await context.newPage();
  await signIn(viewer, email, INVITED_PASSWORD);
  await viewer.goto(`/projects/${projectId}/purchases?q=${bought}`);
  await viewer.getByRole("button", { name: `Open purchase ${bought}` }).click();
  const detail = viewer.getByTestId("store-purchase-detail");
  await expect(detail.getByTestId("store-purchase-status")).toHaveText("granted");
  await expect(detail.getByRole("button", { name: "Refund by hand" })).toHaveCount(0);
  await viewer.goto(`/projects/${projectId}/store`);
  await expect(viewer.getByTestId("store-card-apple")).toContainText(TEST_APPLE_APP.bundleId);
  await expect(viewer.getByRole("button", { name: /^Save / })).toHaveCount(0);
  await expect(viewer.getByRole("button", { name: "New store product" })).toHaveCount(0);
  await expect(viewer.getByRole("radio", { name: /Take back what is left\./ })).toBeDisabled();
  await expect(viewer.getByTestId("store-product-row")).toHaveCount(1);
  expect(await seriousAxeFindings(viewer)).toEqual([]);
  await context.close();
});
