import { randomBytes } from "node:crypto";
import { createClient, memoryStorage, ReceiptPendingError } from "@game-backend/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dedicatedApp } from "@/e2e/support/dedicated-app";
import { type FakeGooglePlay, makeServiceAccount, startFakeGooglePlay } from "@/e2e/support/fake-google-play.mjs";
import { type FakeSteam, startFakeSteam } from "@/e2e/support/fake-steam.mjs";
import { makeProject, type TestProject } from "@/e2e/support/fixtures";
import { ctx, newOperator } from "@/e2e/support/operators";
import { TEST_STORE_PRODUCTS } from "@/e2e/support/stores";
import { createCurrency, createItem } from "@/server/services/economy/definitions";
import { createStoreProduct } from "@/server/services/store/products";
import { setStoreSettingsAs } from "@/server/services/store/settings";

/**
 * The SDK's receipt calls where the store decides: Google Play and Steam, against the loopback
 * fakes of e2e/support (the app under test is pointed at them). Pending purchases, the Steam
 * order flow, and the server's 503 STORE_UNAVAILABLE retried by the SDK with the same receipt.
 */
const account = makeServiceAccount();
const STEAM_KEY = "0123456789ABCDEF0123456789ABCDEF";
let google: FakeGooglePlay;
let steam: FakeSteam;
beforeAll(async () => {
  google = await startFakeGooglePlay({
    publicKeyPem: account.publicKeyPem,
    packageName: "com.example.game",
    clientEmail: account.client_email,
  });
  steam = await startFakeSteam({ apiKey: STEAM_KEY, appId: "480" });
});
afterAll(async () => {
  await google?.close();
  await steam?.close();
});
// STORE_RETRIES 0: the server answers 503 at Google's first failure, so the SDK's own retry is what is tested.
const app = dedicatedApp(() => ({
  STORE_GOOGLE_API_URL: google.url,
  STORE_GOOGLE_TOKEN_URL: google.tokenUrl,
  STORE_STEAM_API_URL: steam.url,
  STORE_RETRIES: "0",
  STORE_TIMEOUT_MS: "3000",
  STORE_REFUND_POLL_MINUTES: "0",
}));

let project: TestProject;
beforeAll(async () => {
  project = await makeProject();
  await createCurrency({ projectId: project.projectId, input: { id: "gems", name: "Gems" } });
  await createItem({ projectId: project.projectId, input: { id: "vip-pass", name: "VIP pass" } });
  const owner = await newOperator("OWNER", project.projectId);
  await setStoreSettingsAs(ctx(owner), {
    projectId: project.projectId,
    input: {
      store: "google",
      settings: { packageName: "com.example.game", environments: "both" },
      secret: { client_email: account.client_email, private_key: account.private_key },
    },
  });
  await setStoreSettingsAs(ctx(owner), {
    projectId: project.projectId,
    input: { store: "steam", settings: { appId: "480", sandbox: false }, secret: { publisherKey: STEAM_KEY } },
  });
  for (const product of TEST_STORE_PRODUCTS) await createStoreProduct({ projectId: project.projectId, input: product });
});

const signedIn = async () => {
  const game = createClient({ baseUrl: app().baseUrl, apiKey: project.clientKey, storage: memoryStorage() });
  await game.auth.anonymous();
  return game;
};
const newToken = () => `tok-${randomBytes(24).toString("base64url")}`;
const newOrder = () => `GPA.${randomBytes(6).readUIntBE(0, 6)}`;

describe("economy.validateReceipt with Google Play", () => {
  it("rejects a purchase Google says is pending with ReceiptPendingError", async () => {
    const game = await signedIn();
    const token = newToken();
    google.setPurchase(token, { productId: "gems_500", orderId: newOrder(), purchaseState: 2 });
    await expect(game.economy.validateReceipt({ store: "google", productId: "gems_500", purchaseToken: token })).rejects.toBeInstanceOf(
      ReceiptPendingError,
    );
  });

  it("retries the server's 503 STORE_UNAVAILABLE with the same receipt and grants once", async () => {
    const game = await signedIn();
    const token = newToken();
    google.setPurchase(token, { productId: "gems_500", orderId: newOrder() });
    google.failNext(1, 500);
    const result = await game.economy.validateReceipt({ store: "google", productId: "gems_500", purchaseToken: token });
    expect(result).toMatchObject({ status: "granted", replayed: false });
    expect((await game.economy.currencies()).find((c) => c.id === "gems")?.balance).toBe(500);
  });
});

describe("economy.startSteamOrder then validateReceipt", () => {
  it("starts the order, and once the player approved it grants the product", async () => {
    const game = await signedIn();
    const order = await game.economy.startSteamOrder({ productId: "gems-500", steamId: "76561197960287930" });
    expect(steam.order(order.orderId).status).toBe("Init");
    steam.approve(order.orderId);
    const result = await game.economy.validateReceipt({ store: "steam", orderId: order.orderId });
    expect(result).toMatchObject({ store: "steam", storeTransactionId: order.orderId, productId: "gems-500", replayed: false });
  });
});
