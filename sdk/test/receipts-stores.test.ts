import { randomBytes } from "node:crypto";
import { createClient, memoryStorage, ReceiptPendingError } from "@game-backend/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dedicatedApp } from "@/e2e/support/dedicated-app";
import { type FakeGooglePlay, makeServiceAccount, startFakeGooglePlay } from "@/e2e/support/fake-google-play.mjs";
import { type FakeSteam, startFakeSteam } from "@/e2e/support/fake-steam.mjs";
import type { TestProject } from "@/e2e/support/fixtures";
import { addTestStoreProducts, sellOnGoogleAs, sellOnSteamAs, storeTestProject } from "@/e2e/support/stores";

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
  const made = await storeTestProject();
  project = made.project;
  await sellOnGoogleAs(project.projectId, made.owner, account);
  await sellOnSteamAs(project.projectId, made.owner, { appId: "480", publisherKey: STEAM_KEY });
  await addTestStoreProducts(project.projectId);
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
