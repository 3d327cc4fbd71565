import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { E2E_APPLE_DIR } from "../../playwright.config";
import { type ApplePkiMaterial, applePkiFrom, TEST_APPLE_APP, transactionPayload } from "../support/apple-test-pki";
import { seriousAxeFindings, shoot } from "./support";
import { anonymousPlayer, projectWithKeys, trpcMutation } from "./support-players";

/**
 * The Purchases page with real App Store purchases: the app trusts the test Apple root the
 * Playwright config made, and the spec signs StoreKit 2 transactions with it.
 */
test.use({ viewport: { width: 1280, height: 900 } });

const pki = () => applePkiFrom(JSON.parse(readFileSync(path.join(E2E_APPLE_DIR, "apple-test-pki.json"), "utf8")) as ApplePkiMaterial);

test("an operator finds a purchase by its transaction id, refunds it by hand with a reason, and the player's gems are taken back", async ({
  page,
}) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Store purchases");
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
  const player = await anonymousPlayer(page.request, clientKey);
  const bought = [];
  for (let i = 0; i < 2; i++) {
    const payload = transactionPayload({ productId: "com.example.game.gems500" });
    const res = await page.request.post("/api/v1/economy/receipts", {
      headers: { "X-API-Key": clientKey, Authorization: `Bearer ${player.accessToken}` },
      data: { store: "apple", signedTransaction: pki().signTransaction(payload) },
    });
    expect(res.status(), await res.text()).toBe(200);
    bought.push(String(payload.transactionId));
  }
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
