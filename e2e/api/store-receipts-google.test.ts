import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pool } from "@/server/db";
import { pollRefunds } from "@/server/services/store/notifications";
import { rotateNotificationTokenAs, sealStoreSecret } from "@/server/services/store/settings";
import { api, expectError } from "../support/api";
import { dedicatedApp } from "../support/dedicated-app";
import { type FakeGooglePlay, makeServiceAccount, pubsubPush, startFakeGooglePlay } from "../support/fake-google-play.mjs";
import { anonymousPlayer, type TestPlayer, type TestProject } from "../support/fixtures";
import { ctx } from "../support/operators";
import { addTestStoreProducts, sellOnGoogleAs, storeTestProject } from "../support/stores";

/**
 * Google Play purchases against a fake Android Publisher API on loopback (e2e/support/fake-google-play.mjs
 * answers as Google documents purchases.products get/acknowledge/consume and voidedpurchases.list,
 * with its OAuth token endpoint checking our service account's signed JWT). The app under test is
 * pointed at it with STORE_GOOGLE_API_URL / STORE_GOOGLE_TOKEN_URL.
 */
const PACKAGE = "com.example.game";
const account = makeServiceAccount();
let google: FakeGooglePlay;
beforeAll(async () => {
  google = await startFakeGooglePlay({ publicKeyPem: account.publicKeyPem, packageName: PACKAGE, clientEmail: account.client_email });
  // This test process polls refunds itself (pollRefunds): its services must reach the same fake.
  process.env.STORE_GOOGLE_API_URL = google.url;
  process.env.STORE_GOOGLE_TOKEN_URL = google.tokenUrl;
  process.env.STORE_RETRIES = "2";
});
afterAll(async () => {
  await google?.close();
});
const app = dedicatedApp(() => ({
  STORE_GOOGLE_API_URL: google.url,
  STORE_GOOGLE_TOKEN_URL: google.tokenUrl,
  STORE_TIMEOUT_MS: "3000",
  STORE_RETRIES: "2",
  STORE_REFUND_POLL_MINUTES: "0",
}));

let project: TestProject;
let notificationUrl: string;
beforeAll(async () => {
  const made = await storeTestProject();
  project = made.project;
  await sellOnGoogleAs(project.projectId, made.owner, account, PACKAGE);
  ({ notificationUrl } = await rotateNotificationTokenAs(ctx(made.owner), { projectId: project.projectId, store: "google" }));
  await addTestStoreProducts(project.projectId);
});

type Receipt = { receiptId: string; storeTransactionId: string; replayed: boolean; environment: string; status: string };
const call = (method: string, path: string, o: { player?: TestPlayer; body?: unknown } = {}) =>
  fetch(`${app().baseUrl}${path}`, {
    method,
    headers: {
      "Content-Type": "application/json",
      "X-API-Key": project.clientKey,
      ...(o.player ? { Authorization: `Bearer ${o.player.accessToken}` } : {}),
    },
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  }).then(async (res) => ({ status: res.status, body: (await res.json().catch(() => null)) as Receipt & { error: { code: string } } }));
const signIn = async () => {
  const res = await fetch(`${app().baseUrl}/api/v1/auth/anonymous`, { method: "POST", headers: { "X-API-Key": project.clientKey } });
  return (await res.json()) as TestPlayer;
};
const redeem = (player: TestPlayer, productId: string, purchaseToken: string) =>
  call("POST", "/api/v1/economy/receipts", { player, body: { store: "google", productId, purchaseToken } });
const gemsOf = async (player: TestPlayer) =>
  ((await call("GET", "/api/v1/economy/currencies", { player })).body as unknown as Array<{ id: string; balance: number }>).find(
    (b) => b.id === "gems",
  )?.balance;
const newToken = () => `tok-${randomBytes(24).toString("base64url")}`;
const newOrder = () => `GPA.${randomBytes(8).readBigUInt64BE() % 10_000_000_000_000_000n}`;

describe("a Google Play purchase", () => {
  it("is checked with Google, granted, then consumed (a consumable)", async () => {
    const player = await signIn();
    const token = newToken();
    const orderId = newOrder();
    google.setPurchase(token, { productId: "gems_500", orderId });
    const res = await redeem(player, "gems_500", token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ storeTransactionId: orderId, status: "granted", replayed: false, environment: "production" });
    expect(await gemsOf(player)).toBe(500);
    expect(google.purchase(token)?.consumptionState).toBe(1);
  });

  it("of a non-consumable is acknowledged, not consumed", async () => {
    const player = await signIn();
    const token = newToken();
    google.setPurchase(token, { productId: "vip_pass", orderId: newOrder() });
    expect((await redeem(player, "vip_pass", token)).status).toBe(200);
    expect(google.purchase(token)).toMatchObject({ acknowledgementState: 1, consumptionState: 0 });
  });

  it("sent again is answered from our record without asking Google", async () => {
    const player = await signIn();
    const token = newToken();
    google.setPurchase(token, { productId: "gems_500", orderId: newOrder() });
    await redeem(player, "gems_500", token);
    const asked = google.requests.length;
    const again = await redeem(player, "gems_500", token);
    expect(again.body.replayed).toBe(true);
    expect(google.requests.length).toBe(asked);
    expect(await gemsOf(player)).toBe(500);
  });

  it("after two 503s from Google is granted once (retried)", async () => {
    const player = await signIn();
    const token = newToken();
    google.setPurchase(token, { productId: "gems_500", orderId: newOrder() });
    google.failNext(2, 503);
    expect((await redeem(player, "gems_500", token)).status).toBe(200);
    expect(await gemsOf(player)).toBe(500);
  });

  it("while Google keeps failing is 503 STORE_UNAVAILABLE, and its retry later grants once", async () => {
    const player = await signIn();
    const token = newToken();
    google.setPurchase(token, { productId: "gems_500", orderId: newOrder() });
    google.failNext(3, 500);
    const refused = await redeem(player, "gems_500", token);
    expect([refused.status, refused.body.error.code]).toEqual([503, "STORE_UNAVAILABLE"]);
    expect(await gemsOf(player)).toBe(0);
    expect((await redeem(player, "gems_500", token)).status).toBe(200);
    expect((await redeem(player, "gems_500", token)).body.replayed).toBe(true);
    expect(await gemsOf(player)).toBe(500);
  });

  it("pending at Google is 409 RECEIPT_PENDING and grants nothing until paid", async () => {
    const player = await signIn();
    const token = newToken();
    google.setPurchase(token, { productId: "gems_500", orderId: newOrder(), purchaseState: 2 });
    expect((await redeem(player, "gems_500", token)).body.error.code).toBe("RECEIPT_PENDING");
    google.setPurchase(token, { productId: "gems_500", orderId: google.purchase(token)?.orderId ?? null, purchaseState: 0 });
    expect((await redeem(player, "gems_500", token)).status).toBe(200);
    expect(await gemsOf(player)).toBe(500);
  });

  it("cancelled at Google is 422 RECEIPT_CANCELLED", async () => {
    const player = await signIn();
    const token = newToken();
    google.setPurchase(token, { productId: "gems_500", orderId: newOrder(), purchaseState: 1 });
    const res = await redeem(player, "gems_500", token);
    expect([res.status, res.body.error.code]).toEqual([422, "RECEIPT_CANCELLED"]);
  });

  it("for a token Google does not know is 422 RECEIPT_INVALID", async () => {
    const res = await redeem(await signIn(), "gems_500", newToken());
    expect([res.status, res.body.error.code]).toEqual([422, "RECEIPT_INVALID"]);
  });

  it("for a product the project does not sell is 422 RECEIPT_WRONG_PRODUCT without asking Google", async () => {
    const asked = google.requests.length;
    const res = await redeem(await signIn(), "coins_100", newToken());
    expect([res.status, res.body.error.code]).toEqual([422, "RECEIPT_WRONG_PRODUCT"]);
    expect(google.requests.length).toBe(asked);
  });

  it("of another app's package is 422 RECEIPT_WRONG_APP", async () => {
    const token = newToken();
    google.setPurchase(token, { productId: "gems_500", orderId: newOrder(), packageName: "com.other.game" });
    const res = await redeem(await signIn(), "gems_500", token);
    expect([res.status, res.body.error.code]).toEqual([422, "RECEIPT_WRONG_APP"]);
  });

  it("redeemed by two players at once grants one of them", async () => {
    const [a, b] = [await signIn(), await signIn()];
    const token = newToken();
    google.setPurchase(token, { productId: "gems_500", orderId: newOrder() });
    const answers = await Promise.all([a, b, a, b].map((p) => redeem(p, "gems_500", token)));
    expect(answers.filter((x) => x.status === 200 && !x.body.replayed)).toHaveLength(1);
    expect(answers.filter((x) => x.status !== 200).every((x) => x.body.error.code === "RECEIPT_ALREADY_USED")).toBe(true);
    expect(((await gemsOf(a)) ?? 0) + ((await gemsOf(b)) ?? 0)).toBe(500);
  });
});

describe("a granted Google Play purchase whose consume failed", () => {
  it("is consumed by the refund poll's sweep, and its sealed token is then forgotten", async () => {
    const player = await signIn();
    const token = newToken();
    const orderId = newOrder();
    google.setPurchase(token, { productId: "gems_500", orderId });
    expect((await redeem(player, "gems_500", token)).status).toBe(200);
    // The state a failed consume leaves (finishAtGoogle): not finished at Google, the token kept sealed.
    google.setPurchase(token, { productId: "gems_500", orderId, consumptionState: 0 });
    await pool().query(
      "UPDATE store_transactions SET store_finished = false, purchase_token_sealed = $3 WHERE project_id = $1 AND store_transaction_id = $2",
      [project.projectId, orderId, sealStoreSecret(token)],
    );
    await pollRefunds(project.projectId, "google");
    expect(google.purchase(token)?.consumptionState).toBe(1);
    const { rows } = await pool().query<{ store_finished: boolean; purchase_token_sealed: string | null }>(
      "SELECT store_finished, purchase_token_sealed FROM store_transactions WHERE project_id = $1 AND store_transaction_id = $2",
      [project.projectId, orderId],
    );
    expect(rows).toEqual([{ store_finished: true, purchase_token_sealed: null }]);
  });
});

describe("a voided Google Play purchase", () => {
  it("announced by a real-time developer notification makes the project's refund poll due", async () => {
    const token = newToken();
    const body = pubsubPush({
      version: "1.0",
      packageName: PACKAGE,
      eventTimeMillis: String(Date.now()),
      voidedPurchaseNotification: { purchaseToken: token, orderId: newOrder(), productType: 2, refundType: 1 },
    });
    await pool().query("UPDATE store_settings SET refunds_polled_at = now() WHERE project_id = $1 AND store = 'google'", [
      project.projectId,
    ]);
    const path = new URL(notificationUrl).pathname + new URL(notificationUrl).search;
    const res = await fetch(`${app().baseUrl}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ duplicate: false, outcome: "poll_due" });
    const { rows } = await pool().query("SELECT refunds_polled_at FROM store_settings WHERE project_id = $1 AND store = 'google'", [
      project.projectId,
    ]);
    expect(rows[0]?.refunds_polled_at).toBeNull();
  });

  it("pushed to the notification URL with a wrong token is 403 and stored nowhere", async () => {
    const url = new URL(notificationUrl);
    const res = await fetch(`${app().baseUrl}${url.pathname}?token=wrong`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(pubsubPush({ version: "1.0", packageName: PACKAGE, testNotification: { version: "1.0" } })),
    });
    expect(res.status).toBe(403);
  });

  it("found by the refund poll takes the grant back once", async () => {
    const player = await signIn();
    const token = newToken();
    const orderId = newOrder();
    google.setPurchase(token, { productId: "gems_500", orderId });
    await redeem(player, "gems_500", token);
    google.voidPurchase(token, { voidedReason: 1, voidedSource: 0 });
    await pollRefunds(project.projectId, "google");
    await pollRefunds(project.projectId, "google");
    expect(await gemsOf(player)).toBe(0);
    const { rows } = await pool().query<{ status: string }>(
      "SELECT status FROM store_transactions WHERE project_id = $1 AND store_transaction_id = $2 AND status <> 'rejected'",
      [project.projectId, orderId],
    );
    expect(rows).toEqual([{ status: "refunded" }]);
  });
});

describe("a Google Play purchase voided before its receipt arrived", () => {
  it("is held by the refund poll, and the receipt is refused with 422 RECEIPT_CANCELLED even while Google still answers it purchased", async () => {
    const player = await signIn();
    const token = newToken();
    const orderId = newOrder();
    google.setPurchase(token, { productId: "gems_500", orderId });
    google.voidPurchase(token, { voidedReason: 1, voidedSource: 0 });
    await pollRefunds(project.projectId, "google");
    // Google's purchase answer may lag its voided list: the hold must refuse on its own.
    google.setPurchase(token, { productId: "gems_500", orderId });
    const res = await redeem(player, "gems_500", token);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("RECEIPT_CANCELLED");
    expect(await gemsOf(player)).toBe(0);
    const held = await pool().query<{ reason: string }>(
      "SELECT reason FROM store_held_reversals WHERE project_id = $1 AND store = 'google' AND store_transaction_id = $2",
      [project.projectId, orderId],
    );
    expect(held.rows).toHaveLength(1);
  });
});

describe("a project without Google Play credentials", () => {
  it("refuses Google receipts for a product it sells with 422 STORE_NOT_CONFIGURED", async () => {
    const { project: bare } = await storeTestProject();
    await addTestStoreProducts(bare.projectId);
    const player = await anonymousPlayer(bare.clientKey);
    const res = await api("POST", "/api/v1/economy/receipts", {
      key: bare.clientKey,
      token: player.accessToken,
      body: { store: "google", productId: "gems_500", purchaseToken: newToken() },
    });
    expectError(res, 422, "STORE_NOT_CONFIGURED");
  });
});
