import { X509Certificate } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApplePki, makeApplePki, notificationPayload, TEST_APPLE_APP, transactionPayload } from "@/e2e/support/apple-test-pki";
import { type AppleVerifierOptions, appleVerifier } from "./apple";
import { APPLE_ROOT_CA_G3_PEM, APPLE_ROOT_CA_G3_SHA256, appleRootCaG3Der } from "./apple-root-ca-g3";
import type { StoreEnvironment } from "./types";

// Four PKIs made with openssl at the start: Apple's stand-in, a stranger's, one whose leaf has
// expired, one whose leaf lacks Apple's receipt-signing marker.
let pki: ApplePki;
let strangerPki: ApplePki;
let expiredPki: ApplePki;
let unmarkedPki: ApplePki;
// A fifth whose certificates name a local OCSP responder that is down (503), for online checks.
let ocspDownPki: ApplePki;
let ocspResponder: Server;

beforeAll(async () => {
  pki = makeApplePki();
  strangerPki = makeApplePki();
  expiredPki = makeApplePki({ leafExpired: true });
  unmarkedPki = makeApplePki({ wrongLeafOid: true });
  ocspResponder = createServer((_req, res) => res.writeHead(503).end());
  await new Promise<void>((resolve) => ocspResponder.listen(0, "127.0.0.1", resolve));
  const { port } = ocspResponder.address() as AddressInfo;
  ocspDownPki = makeApplePki({ ocspUrl: `http://127.0.0.1:${port}/ocsp` });
});

afterAll(async () => {
  // The library leaves the 503's keep-alive socket open; close() alone would wait for it to time out.
  ocspResponder.closeAllConnections();
  await new Promise((resolve) => ocspResponder.close(resolve));
});

function verifier(environments: StoreEnvironment[] = ["production"], o: Partial<AppleVerifierOptions> = {}) {
  return appleVerifier({ ...TEST_APPLE_APP, environments, roots: [pki.rootDer], ...o });
}

describe("Apple Root CA - G3", () => {
  it("the embedded certificate has Apple's published SHA-256 fingerprint", () => {
    expect(new X509Certificate(APPLE_ROOT_CA_G3_PEM).fingerprint256).toBe(APPLE_ROOT_CA_G3_SHA256);
    expect(APPLE_ROOT_CA_G3_SHA256).toBe("63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79");
    expect(new X509Certificate(appleRootCaG3Der()).subject).toContain("CN=Apple Root CA - G3");
  });

  it("is the default root, so a chain from another root is refused without roots given", async () => {
    const apple = appleVerifier({ ...TEST_APPLE_APP, environments: ["production"] });
    await expect(apple.verifyTransaction(pki.signTransaction(transactionPayload()))).rejects.toMatchObject({ code: "RECEIPT_INVALID" });
  });
});

describe("appleVerifier options", () => {
  it("accepting production without the app's Apple ID is STORE_NOT_CONFIGURED", () => {
    expect(() => appleVerifier({ bundleId: TEST_APPLE_APP.bundleId, environments: ["production"] })).toThrow(
      expect.objectContaining({ code: "STORE_NOT_CONFIGURED" }),
    );
  });

  it("accepting no environment is STORE_NOT_CONFIGURED", () => {
    expect(() => appleVerifier({ ...TEST_APPLE_APP, environments: [] })).toThrow(expect.objectContaining({ code: "STORE_NOT_CONFIGURED" }));
  });
});

describe("verifyTransaction", () => {
  it("a production transaction becomes a VerifiedPurchase with the price in micros", async () => {
    const t = transactionPayload({ quantity: 2, price: 3980, currency: "EUR" });
    const purchase = await verifier().verifyTransaction(pki.signTransaction(t));
    expect(purchase).toEqual({
      store: "apple",
      transactionId: t.transactionId,
      originalTransactionId: t.originalTransactionId,
      productId: "com.example.game.gems100",
      quantity: 2,
      environment: "production",
      purchasedAt: new Date(t.purchaseDate ?? 0),
      priceMicros: 3_980_000,
      currency: "EUR",
      evidence: expect.any(Object),
    });
  });

  it("the evidence holds Apple's ids, dates and storefront and no part of the JWS", async () => {
    const t = transactionPayload({ appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138" });
    const signed = pki.signTransaction(t);
    const { evidence } = await verifier().verifyTransaction(signed);
    expect(evidence).toMatchObject({
      transactionId: t.transactionId,
      storefront: "USA",
      type: "Consumable",
      inAppOwnershipType: "PURCHASED",
      transactionReason: "PURCHASE",
      appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138",
      purchaseDate: new Date(t.purchaseDate ?? 0).toISOString(),
    });
    const text = JSON.stringify(evidence);
    for (const part of signed.split(".")) expect(text).not.toContain(part.slice(0, 40));
  });

  it("a transaction without a price has null priceMicros and currency", async () => {
    const purchase = await verifier().verifyTransaction(pki.signTransaction(transactionPayload({ price: undefined, currency: undefined })));
    expect([purchase.priceMicros, purchase.currency]).toEqual([null, null]);
  });

  it("a sandbox transaction is accepted when the project accepts sandbox", async () => {
    const purchase = await verifier(["production", "sandbox"]).verifyTransaction(
      pki.signTransaction(transactionPayload({ environment: "Sandbox" })),
    );
    expect(purchase.environment).toBe("sandbox");
  });

  it("a sandbox transaction is RECEIPT_WRONG_ENVIRONMENT for a production-only project", async () => {
    const signed = pki.signTransaction(transactionPayload({ environment: "Sandbox" }));
    await expect(verifier(["production"]).verifyTransaction(signed)).rejects.toMatchObject({ code: "RECEIPT_WRONG_ENVIRONMENT" });
  });

  it("a production transaction is RECEIPT_WRONG_ENVIRONMENT for a sandbox-only project", async () => {
    const signed = pki.signTransaction(transactionPayload());
    await expect(verifier(["sandbox"]).verifyTransaction(signed)).rejects.toMatchObject({ code: "RECEIPT_WRONG_ENVIRONMENT" });
  });

  it("a transaction for another bundle id is RECEIPT_WRONG_APP", async () => {
    const signed = pki.signTransaction(transactionPayload({ bundleId: "com.example.other" }));
    await expect(verifier().verifyTransaction(signed)).rejects.toMatchObject({ code: "RECEIPT_WRONG_APP" });
  });

  it("a transaction signed under another root is RECEIPT_INVALID", async () => {
    const signed = strangerPki.signTransaction(transactionPayload());
    await expect(verifier().verifyTransaction(signed)).rejects.toMatchObject({ code: "RECEIPT_INVALID" });
  });

  it("a transaction whose payload was changed after signing is RECEIPT_INVALID", async () => {
    const [header, , signature] = pki.signTransaction(transactionPayload()).split(".");
    const forged = Buffer.from(JSON.stringify(transactionPayload({ quantity: 100 }))).toString("base64url");
    await expect(verifier().verifyTransaction(`${header}.${forged}.${signature}`)).rejects.toMatchObject({ code: "RECEIPT_INVALID" });
  });

  it("a transaction signed by a leaf without Apple's receipt-signing marker is RECEIPT_INVALID", async () => {
    const apple = verifier(["production"], { roots: [unmarkedPki.rootDer] });
    await expect(apple.verifyTransaction(unmarkedPki.signTransaction(transactionPayload()))).rejects.toMatchObject({
      code: "RECEIPT_INVALID",
    });
  });

  it("a transaction signed after its leaf certificate expired is RECEIPT_EXPIRED", async () => {
    const apple = verifier(["production"], { roots: [expiredPki.rootDer] });
    await expect(apple.verifyTransaction(expiredPki.signTransaction(transactionPayload()))).rejects.toMatchObject({
      code: "RECEIPT_EXPIRED",
    });
  });

  it("with online checks, an OCSP responder answering 503 is STORE_UNAVAILABLE", async () => {
    const apple = verifier(["production"], { roots: [ocspDownPki.rootDer], onlineChecks: true });
    await expect(apple.verifyTransaction(ocspDownPki.signTransaction(transactionPayload()))).rejects.toMatchObject({
      code: "STORE_UNAVAILABLE",
    });
  });

  it("a refunded (revoked) transaction is RECEIPT_CANCELLED", async () => {
    const signed = pki.signTransaction(transactionPayload({ revocationDate: Date.now(), revocationReason: 0 }));
    await expect(verifier().verifyTransaction(signed)).rejects.toMatchObject({ code: "RECEIPT_CANCELLED" });
  });

  it.each(["", "not a jws", "a.b.c", "eyJhbGciOiJFUzI1NiJ9.eyJ9.c2ln"])("the malformed string %j is RECEIPT_INVALID", async (text) => {
    await expect(verifier().verifyTransaction(text)).rejects.toMatchObject({ code: "RECEIPT_INVALID" });
  });
});

describe("verifyNotification", () => {
  it("REFUND is a refund reversal of the transaction inside, with Apple's reason in words", async () => {
    const revokedAt = Date.now() - 5_000;
    const t = transactionPayload({ revocationDate: revokedAt, revocationReason: 1 });
    const n = notificationPayload({ notificationType: "REFUND", data: { signedTransactionInfo: pki.signTransaction(t) } });
    const notification = await verifier().verifyNotification(pki.signNotification(n));
    expect(notification).toMatchObject({
      notificationId: n.notificationUUID,
      type: "REFUND",
      subtype: null,
      environment: "production",
      reversal: {
        store: "apple",
        transactionId: t.transactionId,
        kind: "refund",
        reason: "refunded for an issue in the app",
        at: new Date(revokedAt),
      },
    });
  });

  it("REVOKE (Family Sharing) is a refund reversal with its own reason", async () => {
    const t = transactionPayload({ inAppOwnershipType: "FAMILY_SHARED", revocationDate: Date.now(), revocationReason: 0 });
    const n = notificationPayload({ notificationType: "REVOKE", data: { signedTransactionInfo: pki.signTransaction(t) } });
    const { reversal } = await verifier().verifyNotification(pki.signNotification(n));
    expect(reversal).toMatchObject({ transactionId: t.transactionId, kind: "refund", reason: "revoked from Family Sharing" });
  });

  it("REFUND_REVERSED is a refund_reversed reversal of the transaction inside", async () => {
    const t = transactionPayload();
    const n = notificationPayload({ notificationType: "REFUND_REVERSED", data: { signedTransactionInfo: pki.signTransaction(t) } });
    const { reversal } = await verifier().verifyNotification(pki.signNotification(n));
    expect(reversal).toMatchObject({ transactionId: t.transactionId, kind: "refund_reversed", at: new Date(n.signedDate ?? 0) });
  });

  it("TEST is returned with its id and type and no reversal", async () => {
    const n = notificationPayload({ notificationType: "TEST" });
    const notification = await verifier().verifyNotification(pki.signNotification(n));
    expect(notification).toMatchObject({ notificationId: n.notificationUUID, type: "TEST", environment: "production", reversal: null });
  });

  it("a sandbox notification reports the sandbox environment", async () => {
    const n = notificationPayload({ data: { environment: "Sandbox" } });
    const notification = await verifier(["production", "sandbox"]).verifyNotification(pki.signNotification(n));
    expect(notification.environment).toBe("sandbox");
  });

  it("a notification signed under another root is RECEIPT_INVALID", async () => {
    const signed = strangerPki.signNotification(notificationPayload());
    await expect(verifier().verifyNotification(signed)).rejects.toMatchObject({ code: "RECEIPT_INVALID" });
  });

  it("a REFUND whose transaction is signed under another root is RECEIPT_INVALID", async () => {
    const inner = strangerPki.signTransaction(transactionPayload({ revocationDate: Date.now(), revocationReason: 0 }));
    const signed = pki.signNotification(notificationPayload({ notificationType: "REFUND", data: { signedTransactionInfo: inner } }));
    await expect(verifier().verifyNotification(signed)).rejects.toMatchObject({ code: "RECEIPT_INVALID" });
  });

  it("a production notification for another Apple app id is RECEIPT_WRONG_APP", async () => {
    const signed = pki.signNotification(notificationPayload({ data: { appAppleId: TEST_APPLE_APP.appAppleId + 1 } }));
    await expect(verifier().verifyNotification(signed)).rejects.toMatchObject({ code: "RECEIPT_WRONG_APP" });
  });

  it("a notification for another bundle id is RECEIPT_WRONG_APP", async () => {
    const signed = pki.signNotification(notificationPayload({ data: { bundleId: "com.example.other" } }));
    await expect(verifier().verifyNotification(signed)).rejects.toMatchObject({ code: "RECEIPT_WRONG_APP" });
  });
});
