import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeGooglePlay,
  type FakeServiceAccount,
  makeServiceAccount,
  pubsubPush,
  startFakeGooglePlay,
} from "../../e2e/support/fake-google-play.mjs";
import type { AppError } from "../errors";
import { type GooglePlayOptions, googlePlay, parseGooglePlayNotification, sha256Hex } from "./google";

const PACKAGE = "com.example.game";
let account: FakeServiceAccount;
let fake: FakeGooglePlay;

beforeAll(async () => {
  account = makeServiceAccount();
  fake = await startFakeGooglePlay({
    publicKeyPem: account.publicKeyPem,
    packageName: PACKAGE,
    clientEmail: account.client_email,
    voidedPageSize: 2,
  });
});
afterAll(async () => {
  await fake?.close();
});

/** A client of the fake; backoff 0 so retries do not wait. */
function client(options: Partial<GooglePlayOptions> = {}) {
  return googlePlay({
    packageName: PACKAGE,
    serviceAccount: account,
    apiUrl: fake.url,
    tokenUrl: fake.tokenUrl,
    backoffMs: 0,
    ...options,
  });
}

function newToken(): string {
  return `tok-${randomBytes(24).toString("base64url")}`;
}

function callsFor(token: string) {
  return fake.requests.filter((r) => r.path.includes(encodeURIComponent(token)));
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (error === null) throw new Error("expected a refusal, got an answer");
  return error as AppError;
}

describe("verifyProduct", () => {
  it("verifies a purchased product with its order id, quantity and production environment", async () => {
    const token = newToken();
    fake.setPurchase(token, {
      productId: "gems_100",
      orderId: "GPA.1111-2222-3333-44444",
      quantity: 3,
      purchaseTimeMillis: 1_790_000_000_000,
    });
    const purchase = await client().verifyProduct("gems_100", token);
    expect(purchase).toMatchObject({
      store: "google",
      transactionId: "GPA.1111-2222-3333-44444",
      originalTransactionId: null,
      productId: "gems_100",
      quantity: 3,
      environment: "production",
      purchasedAt: new Date(1_790_000_000_000),
      priceMicros: null,
      currency: null,
      acknowledged: false,
      consumed: false,
    });
    expect(purchase.evidence).toEqual({
      orderId: "GPA.1111-2222-3333-44444",
      purchaseState: 0,
      consumptionState: 0,
      acknowledgementState: 0,
      purchaseType: null,
      purchaseTimeMillis: "1790000000000",
      regionCode: "US",
      quantity: 3,
    });
  });

  it("never puts the purchase token in the answer", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "gems_100", orderId: null });
    const purchase = await client().verifyProduct("gems_100", token);
    expect(JSON.stringify(purchase)).not.toContain(token);
  });

  it("keys a purchase without an order id by the SHA-256 of its token", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "gems_100", orderId: null });
    const purchase = await client().verifyProduct("gems_100", token);
    expect(purchase.transactionId).toBe(`token:${sha256Hex(token)}`);
  });

  it("marks a test purchase (purchaseType 0) as sandbox", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "gems_100", purchaseType: 0 });
    expect((await client().verifyProduct("gems_100", token)).environment).toBe("sandbox");
  });

  it("refuses a cancelled purchase with RECEIPT_CANCELLED", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "gems_100", purchaseState: 1 });
    expect((await refusal(client().verifyProduct("gems_100", token))).code).toBe("RECEIPT_CANCELLED");
  });

  it("refuses a pending purchase with RECEIPT_PENDING", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "gems_100", purchaseState: 2 });
    expect((await refusal(client().verifyProduct("gems_100", token))).code).toBe("RECEIPT_PENDING");
  });

  it("refuses a token Google does not know (400 Invalid Value) with RECEIPT_INVALID", async () => {
    expect((await refusal(client().verifyProduct("gems_100", newToken()))).code).toBe("RECEIPT_INVALID");
  });

  it("refuses a 404 answer with RECEIPT_INVALID", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "gems_100" });
    const google = client();
    await google.verifyProduct("gems_100", token); // the access token first, so the 404 lands on the API call
    fake.failNext(1, 404);
    expect((await refusal(google.verifyProduct("gems_100", token))).code).toBe("RECEIPT_INVALID");
  });

  it("refuses a token bought for another product with RECEIPT_WRONG_PRODUCT", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "gems_500" });
    expect((await refusal(client().verifyProduct("gems_100", token))).code).toBe("RECEIPT_WRONG_PRODUCT");
  });

  it("refuses a token bought in another app with RECEIPT_WRONG_APP", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "gems_100", packageName: "com.other.game" });
    expect((await refusal(client().verifyProduct("gems_100", token))).code).toBe("RECEIPT_WRONG_APP");
  });

  it("refuses an empty purchase token with RECEIPT_INVALID without asking Google", async () => {
    const before = fake.requests.length;
    expect((await refusal(client().verifyProduct("gems_100", ""))).code).toBe("RECEIPT_INVALID");
    expect(fake.requests.length).toBe(before);
  });

  it.each([".", ".."])(
    "refuses the dot segment %s as a purchase token or product id with RECEIPT_INVALID without asking Google",
    async (dots) => {
      const before = fake.requests.length;
      expect((await refusal(client().verifyProduct("gems_100", dots))).code).toBe("RECEIPT_INVALID");
      expect((await refusal(client().verifyProduct(dots, newToken()))).code).toBe("RECEIPT_INVALID");
      expect(fake.requests.length).toBe(before);
    },
  );

  it("encodes a token's slashes and dots inside one segment", async () => {
    const before = fake.requests.length;
    await refusal(client().verifyProduct("gems_100", "../../x"));
    const asked = fake.requests.slice(before).filter((r) => r.path.startsWith("/androidpublisher/"));
    expect(asked.map((r) => r.path)).toEqual([
      "/androidpublisher/v3/applications/com.example.game/purchases/products/gems_100/tokens/..%2F..%2Fx",
    ]);
  });
});

describe("credentials", () => {
  it("answers STORE_NOT_CONFIGURED saying the credentials were refused when the token endpoint rejects the key", async () => {
    const stranger = makeServiceAccount();
    const google = client({ serviceAccount: { client_email: account.client_email, private_key: stranger.private_key } });
    const error = await refusal(google.verifyProduct("gems_100", newToken()));
    expect(error.code).toBe("STORE_NOT_CONFIGURED");
    expect(error.message).toMatch(/refused/);
  });

  it("answers STORE_NOT_CONFIGURED when the API refuses the service account (403)", async () => {
    const error = await refusal(client({ packageName: "com.not.linked" }).verifyProduct("gems_100", newToken()));
    expect(error.code).toBe("STORE_NOT_CONFIGURED");
    expect(error.message).toMatch(/refused/);
  });

  it("answers STORE_NOT_CONFIGURED for a private key that is not a key, without a request", async () => {
    const before = fake.requests.length;
    const google = client({
      serviceAccount: { client_email: account.client_email, private_key: "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n" },
    });
    expect((await refusal(google.verifyProduct("gems_100", newToken()))).code).toBe("STORE_NOT_CONFIGURED");
    expect(fake.requests.length).toBe(before);
  });

  it("answers STORE_NOT_CONFIGURED for a service account without a private_key", async () => {
    const google = client({ serviceAccount: { client_email: account.client_email } as unknown as GooglePlayOptions["serviceAccount"] });
    expect((await refusal(google.verifyProduct("gems_100", newToken()))).code).toBe("STORE_NOT_CONFIGURED");
  });

  it("reuses one access token for several calls", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "gems_100" });
    const google = client();
    const before = fake.requests.filter((r) => r.path === "/token").length;
    await google.verifyProduct("gems_100", token);
    await google.verifyProduct("gems_100", token);
    expect(fake.requests.filter((r) => r.path === "/token").length).toBe(before + 1);
  });

  it("fetches a new access token once the cached one is within a minute of expiring", async () => {
    // A fake whose tokens last 120 s; the client's clock starts 61 s back so that both JWTs it signs
    // are current for the fake (which checks them against the real clock, as Google does).
    const shortLived = await startFakeGooglePlay({ publicKeyPem: account.publicKeyPem, packageName: PACKAGE, accessTokenSeconds: 120 });
    try {
      const token = newToken();
      shortLived.setPurchase(token, { productId: "gems_100" });
      let clock = Date.now() - 61_000;
      const google = client({ apiUrl: shortLived.url, tokenUrl: shortLived.tokenUrl, now: () => clock });
      await google.verifyProduct("gems_100", token);
      clock += 61_000;
      await google.verifyProduct("gems_100", token);
      expect(shortLived.requests.filter((r) => r.path === "/token").length).toBe(2);
    } finally {
      await shortLived.close();
    }
  });

  it("replaces an access token the API no longer accepts and answers", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "gems_100" });
    const google = client({ retries: 0 });
    await google.verifyProduct("gems_100", token);
    fake.revokeAccessTokens();
    expect((await google.verifyProduct("gems_100", token)).productId).toBe("gems_100");
  });
});

describe("retries", () => {
  it("retries a 503 and gives the one answer that followed", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "gems_100", orderId: "GPA.5555-0000-0000-00001" });
    const google = client();
    await google.verifyProduct("gems_100", token);
    fake.failNext(1, 503);
    const purchase = await google.verifyProduct("gems_100", token);
    expect(purchase.transactionId).toBe("GPA.5555-0000-0000-00001");
    expect(callsFor(token).length).toBe(3);
  });

  it("retries a token endpoint 500 and answers", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "gems_100" });
    fake.failNext(1, 500, "token");
    expect((await client().verifyProduct("gems_100", token)).productId).toBe("gems_100");
  });

  it("answers STORE_UNAVAILABLE after every attempt timed out, having made retries + 1 attempts", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "gems_100" });
    // Generous per-attempt time so the warm-up call passes on a busy machine; the timed-out attempts get no answer at all.
    const google = client({ timeoutMs: 1_500, retries: 1 });
    await google.verifyProduct("gems_100", token);
    fake.failNext(2, "timeout");
    expect((await refusal(google.verifyProduct("gems_100", token))).code).toBe("STORE_UNAVAILABLE");
    expect(callsFor(token).length).toBe(3);
  });

  it("answers STORE_UNAVAILABLE when nothing listens at Google's address", async () => {
    const gone = await startFakeGooglePlay({ publicKeyPem: account.publicKeyPem, packageName: PACKAGE });
    await gone.close();
    const google = client({ apiUrl: gone.url, tokenUrl: gone.tokenUrl, retries: 1 });
    expect((await refusal(google.verifyProduct("gems_100", newToken()))).code).toBe("STORE_UNAVAILABLE");
  });

  it("answers STORE_UNAVAILABLE after every attempt got a 5xx", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "gems_100" });
    const google = client({ retries: 2 });
    await google.verifyProduct("gems_100", token);
    fake.failNext(3, 502);
    expect((await refusal(google.verifyProduct("gems_100", token))).code).toBe("STORE_UNAVAILABLE");
  });
});

describe("acknowledge and consume", () => {
  it("acknowledges a purchase, which a later verify shows", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "sword" });
    const google = client();
    await google.acknowledge("sword", token);
    expect(callsFor(token).at(-1)?.path).toMatch(/:acknowledge$/);
    expect((await google.verifyProduct("sword", token)).acknowledged).toBe(true);
  });

  it("treats acknowledging an acknowledged purchase as done", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "sword", acknowledgementState: 1 });
    await expect(client().acknowledge("sword", token)).resolves.toBeUndefined();
  });

  it("consumes a purchase, which a later verify shows", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "gems_100" });
    const google = client();
    await google.consume("gems_100", token);
    expect(callsFor(token).at(-1)?.path).toMatch(/:consume$/);
    expect((await google.verifyProduct("gems_100", token)).consumed).toBe(true);
  });

  it("treats consuming a consumed purchase as done", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "gems_100", consumptionState: 1, acknowledgementState: 1 });
    await expect(client().consume("gems_100", token)).resolves.toBeUndefined();
  });

  it("answers STORE_UNAVAILABLE when Google will not acknowledge a paid, unacknowledged purchase", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "sword" });
    const google = client();
    await google.verifyProduct("sword", token);
    fake.failNext(1, { status: 400, reason: "invalidPurchaseState" });
    expect((await refusal(google.acknowledge("sword", token))).code).toBe("STORE_UNAVAILABLE");
  });

  it("refuses to acknowledge a cancelled purchase with RECEIPT_CANCELLED", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "sword", purchaseState: 1 });
    expect((await refusal(client().acknowledge("sword", token))).code).toBe("RECEIPT_CANCELLED");
  });
});

describe("voidedPurchases", () => {
  const start = Date.now() + 10 * 86_400_000; // after every purchase the other tests void (none do)

  it("lists voided purchases a page at a time, with reasons and sources in words", async () => {
    const tokens = [newToken(), newToken(), newToken()];
    fake.setPurchase(tokens[0] ?? "", { productId: "gems_100", orderId: "GPA.0001" });
    fake.setPurchase(tokens[1] ?? "", { productId: "gems_100", orderId: "GPA.0002" });
    fake.setPurchase(tokens[2] ?? "", { productId: "gems_100", orderId: "GPA.0003" });
    fake.voidPurchase(tokens[0] ?? "", { voidedReason: 7, voidedSource: 2, voidedTimeMillis: start + 1 });
    fake.voidPurchase(tokens[1] ?? "", { voidedReason: 1, voidedSource: 0, voidedTimeMillis: start + 2 });
    fake.voidPurchase(tokens[2] ?? "", { voidedReason: 5, voidedSource: 1, voidedTimeMillis: start + 3 });
    const google = client();
    const first = await google.voidedPurchases({ startTime: new Date(start) });
    expect(first.reversals.map((r) => [r.transactionId, r.kind, r.reason, r.evidence.voidedSource])).toEqual([
      ["GPA.0001", "refund", "chargeback", "google"],
      ["GPA.0002", "refund", "remorse", "user"],
    ]);
    expect(first.nextPageToken).not.toBeNull();
    const second = await google.voidedPurchases({ startTime: new Date(start), pageToken: first.nextPageToken ?? "" });
    expect(second.reversals.map((r) => [r.transactionId, r.reason, r.at.getTime()])).toEqual([["GPA.0003", "fraud", start + 3]]);
    expect(second.nextPageToken).toBeNull();
  });

  it("asks for one-time purchases voided since startTime", async () => {
    await client().voidedPurchases({ startTime: new Date(start + 1_000_000) });
    const last = fake.requests.filter((r) => r.path.includes("/voidedpurchases")).at(-1);
    expect(new URL(last?.path ?? "", fake.url).searchParams.get("startTime")).toBe(String(start + 1_000_000));
    expect(new URL(last?.path ?? "", fake.url).searchParams.get("type")).toBe("0");
  });

  it("keys a voided purchase without an order id by its token's SHA-256 and gives that hash, not the token", async () => {
    const token = newToken();
    fake.setPurchase(token, { productId: "gems_100", orderId: null });
    fake.voidPurchase(token, { voidedTimeMillis: start + 2_000_000 });
    const { reversals } = await client().voidedPurchases({ startTime: new Date(start + 2_000_000) });
    expect(reversals).toHaveLength(1);
    expect(reversals[0]?.transactionId).toBe(`token:${sha256Hex(token)}`);
    expect(reversals[0]?.evidence.purchaseTokenSha256).toBe(sha256Hex(token));
    expect(JSON.stringify(reversals)).not.toContain(token);
  });
});

describe("parseNotification", () => {
  const token = "notification-purchase-token-abc";

  it("reads a voided purchase notification", () => {
    const body = pubsubPush(
      {
        version: "1.0",
        packageName: PACKAGE,
        eventTimeMillis: "1790000000000",
        voidedPurchaseNotification: { purchaseToken: token, orderId: "GPA.9999", productType: 2, refundType: 1 },
      },
      { messageId: "m-1" },
    );
    expect(parseGooglePlayNotification(body)).toMatchObject({
      messageId: "m-1",
      packageName: PACKAGE,
      kind: "voided",
      purchaseTokenSha256: sha256Hex(token),
      orderId: "GPA.9999",
      notificationType: null,
    });
  });

  it("reads a one-time product notification", () => {
    const body = pubsubPush({
      version: "1.0",
      packageName: PACKAGE,
      eventTimeMillis: "1790000000000",
      oneTimeProductNotification: { version: "1.0", notificationType: 1, purchaseToken: token, sku: "gems_100" },
    });
    expect(parseGooglePlayNotification(body)).toMatchObject({
      kind: "one_time",
      purchaseTokenSha256: sha256Hex(token),
      notificationType: 1,
    });
  });

  it("reads a test notification", () => {
    const body = pubsubPush({
      version: "1.0",
      packageName: PACKAGE,
      eventTimeMillis: "1790000000000",
      testNotification: { version: "1.0" },
    });
    expect(parseGooglePlayNotification(body)).toMatchObject({ kind: "test", purchaseTokenSha256: null, orderId: null });
  });

  it("calls a subscription notification other", () => {
    const body = pubsubPush({
      version: "1.0",
      packageName: PACKAGE,
      eventTimeMillis: "1790000000000",
      subscriptionNotification: { version: "1.0", notificationType: 4, purchaseToken: token, subscriptionId: "vip" },
    });
    expect(parseGooglePlayNotification(body).kind).toBe("other");
  });

  it("keeps the purchase token out of the raw notification", () => {
    const body = pubsubPush({
      version: "1.0",
      packageName: PACKAGE,
      oneTimeProductNotification: { version: "1.0", notificationType: 1, purchaseToken: token, sku: "gems_100" },
    });
    const parsed = parseGooglePlayNotification(body);
    expect(JSON.stringify(parsed)).not.toContain(token);
    expect(parsed.raw.oneTimeProductNotification).toMatchObject({ purchaseTokenSha256: sha256Hex(token), sku: "gems_100" });
  });

  it.each([
    ["no body", null],
    ["no message", { subscription: "s" }],
    ["data that is not base64", { message: { data: "%%%", messageId: "1" } }],
    ["data that is not JSON", { message: { data: Buffer.from("not json").toString("base64"), messageId: "1" } }],
    ["no messageId", { message: { data: Buffer.from(JSON.stringify({ packageName: PACKAGE })).toString("base64") } }],
    ["no packageName", pubsubPush({ version: "1.0", testNotification: { version: "1.0" } })],
  ])("refuses a push body with %s as RECEIPT_INVALID", (_name, body) => {
    let code: string | null = null;
    try {
      parseGooglePlayNotification(body);
    } catch (error) {
      code = (error as AppError).code;
    }
    expect(code).toBe("RECEIPT_INVALID");
  });

  it("is what the adapter's parseNotification does", () => {
    const body = pubsubPush({ version: "1.0", packageName: PACKAGE, testNotification: { version: "1.0" } });
    expect(client().parseNotification(body)).toEqual(parseGooglePlayNotification(body));
  });
});
