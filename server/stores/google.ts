import { createHash } from "node:crypto";
import { importPKCS8, SignJWT } from "jose";
import { AppError } from "../errors";
import type { StoreReversal, VerifiedPurchase } from "./types";

/**
 * Google Play: one-time products checked with the Play Developer API (purchases.products), refunds
 * read from the Voided Purchases API, and Real-time developer notifications parsed from their
 * Cloud Pub/Sub push bodies. Plain HTTPS with a service account's own JWT, so no Google SDK.
 *
 * References:
 * - purchases.products get / acknowledge / consume:
 *   https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.products
 * - voided purchases: https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.voidedpurchases
 * - service-account tokens: https://developers.google.com/identity/protocols/oauth2/service-account#httprest
 * - notifications: https://developer.android.com/google/play/billing/rtdn-reference
 */

const SCOPE = "https://www.googleapis.com/auth/androidpublisher";
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/** Longer than any token Google issues; a bigger one is not worth a request. */
const MAX_TOKEN_LENGTH = 4096;
/** A fresh access token is fetched this long before the old one expires, so none expires in flight. */
const REFRESH_MARGIN_MS = 60_000;

export type GooglePlayOptions = {
  packageName: string;
  serviceAccount: { client_email: string; private_key: string; private_key_id?: string };
  /** Default https://androidpublisher.googleapis.com. */
  apiUrl?: string;
  /**
   * Default https://oauth2.googleapis.com/token. Never read from the service account JSON's
   * `token_uri`: whoever edits that file could aim our signed assertion at their own server.
   */
  tokenUrl?: string;
  /** Per attempt (token request or API call), default 10 s. */
  timeoutMs?: number;
  /** Extra attempts after a timeout, network error, 408/409/429 or 5xx; default 2. */
  retries?: number;
  /** The wait before the first retry, doubled before each next one; default 250 ms. */
  backoffMs?: number;
  now?: () => number;
};

export type GooglePlayPurchase = VerifiedPurchase & { acknowledged: boolean; consumed: boolean };

export type GooglePlayNotification = {
  messageId: string;
  packageName: string;
  kind: "voided" | "one_time" | "test" | "other";
  purchaseTokenSha256: string | null;
  orderId: string | null;
  /** oneTimeProductNotification's (1 purchased, 2 canceled) or subscriptionNotification's type. */
  notificationType: number | null;
  /** The decoded DeveloperNotification, each token field replaced by `<name>Sha256`. */
  raw: Record<string, unknown>;
};

export type GooglePlay = {
  verifyProduct(productId: string, purchaseToken: string): Promise<GooglePlayPurchase>;
  acknowledge(productId: string, purchaseToken: string): Promise<void>;
  consume(productId: string, purchaseToken: string): Promise<void>;
  voidedPurchases(o: { startTime: Date; pageToken?: string }): Promise<{ reversals: StoreReversal[]; nextPageToken: string | null }>;
  parseNotification(body: unknown): GooglePlayNotification;
};

/** voidedSource and voidedReason, in Google's words (VoidedPurchase resource). */
const VOIDED_SOURCES = ["user", "developer", "google"];
const VOIDED_REASONS = [
  "other",
  "remorse",
  "not_received",
  "defective",
  "accidental_purchase",
  "fraud",
  "friendly_fraud",
  "chargeback",
  "unacknowledged_purchase",
];

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The receipts table's key for a Play purchase: its order id, or a hash of a token that has none. */
export function googleTransactionId(orderId: unknown, purchaseToken: string): string {
  return typeof orderId === "string" && orderId !== "" ? orderId : `token:${sha256Hex(purchaseToken)}`;
}

/** A timeout, network error or a status worth another try. */
class Transient extends Error {}

type Answer = { status: number; body: unknown };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The `reason` of Google's JSON error body ({error: {errors: [{reason}], status}}), if any. */
function googleReason(body: unknown): string | null {
  const error = isRecord(body) ? body.error : undefined;
  if (!isRecord(error)) return null;
  const first = Array.isArray(error.errors) ? error.errors[0] : undefined;
  if (isRecord(first) && typeof first.reason === "string") return first.reason;
  return typeof error.status === "string" ? error.status : null;
}

function millis(value: unknown): number | null {
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : typeof value === "number" ? value : Number.NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

function intOrNull(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) ? value : null;
}

function unexpected(what: string): AppError {
  return new AppError("STORE_UNAVAILABLE", {
    message: `Google Play gave an answer we cannot read (${what}).`,
    details: { store: "google" },
  });
}

/** The refusal for an API answer that is not a success and was not worth retrying. */
function refusal(answer: Answer): AppError {
  const reason = googleReason(answer.body);
  const details = { store: "google", status: answer.status, reason };
  if (reason === "purchaseTokenDoesNotMatchProductId") {
    return new AppError("RECEIPT_WRONG_PRODUCT", { message: "Google Play says the purchase token is for another product.", details });
  }
  if (reason === "purchaseTokenDoesNotMatchPackageName") {
    return new AppError("RECEIPT_WRONG_APP", { message: "Google Play says the purchase token belongs to another app.", details });
  }
  if (answer.status === 400 || answer.status === 404 || answer.status === 410) {
    return new AppError("RECEIPT_INVALID", { message: "Google Play does not know this purchase token.", details });
  }
  return new AppError("STORE_UNAVAILABLE", { message: `Google Play answered ${answer.status}.`, details });
}

export function googlePlay(o: GooglePlayOptions): GooglePlay {
  const apiUrl = (o.apiUrl ?? "https://androidpublisher.googleapis.com").replace(/\/+$/, "");
  const tokenUrl = o.tokenUrl ?? "https://oauth2.googleapis.com/token";
  const timeoutMs = o.timeoutMs ?? 10_000;
  const retries = o.retries ?? 2;
  const backoffMs = o.backoffMs ?? 250;
  const now = o.now ?? Date.now;
  const app = `/androidpublisher/v3/applications/${encodeURIComponent(o.packageName)}`;

  let signingKey: Promise<CryptoKey> | null = null;
  let cached: { token: string; refreshAt: number } | null = null;
  let pending: Promise<string> | null = null;

  function notConfigured(message: string, cause?: unknown): AppError {
    return new AppError("STORE_NOT_CONFIGURED", { message, details: { store: "google" }, cause });
  }

  function key(): Promise<CryptoKey> {
    signingKey ??= (async () => {
      if (typeof o.serviceAccount.client_email !== "string" || o.serviceAccount.client_email === "") {
        throw notConfigured("The Google Play service account has no client_email.");
      }
      // The JSON key file is the operator's: a field may be missing whatever the type says.
      if (typeof o.serviceAccount.private_key !== "string") throw notConfigured("The Google Play service account has no private_key.");
      // Keys pasted through an env variable often arrive with literal "\n" for the line breaks.
      const pem = o.serviceAccount.private_key.replace(/\\n/g, "\n");
      try {
        return await importPKCS8(pem, "RS256");
      } catch (error) {
        throw notConfigured("The Google Play service account's private_key is not a readable RSA key.", error);
      }
    })();
    // A bad key stays bad: keep the rejected promise so each call fails the same way, without retrying.
    return signingKey;
  }

  async function timedFetch(url: string, init: RequestInit): Promise<Answer> {
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
      const text = await res.text();
      let body: unknown = null;
      try {
        body = text === "" ? null : JSON.parse(text);
      } catch {
        body = null;
      }
      return { status: res.status, body };
    } catch (error) {
      // fetch rejects only for timeouts, aborted connections and network errors: all worth a retry.
      const name = error instanceof Error ? error.name : "error";
      throw new Transient(name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : `network error (${name})`, { cause: error });
    }
  }

  function retryable(status: number): boolean {
    // 409 is Google's "concurrentUpdate" on acknowledge, which a later try clears.
    return status === 408 || status === 409 || status === 429 || status >= 500;
  }

  /** A service-account JWT exchanged for an access token (the JWT bearer grant). */
  async function fetchAccessToken(): Promise<string> {
    const signer = await key();
    const startedAt = now();
    const issuedAt = Math.floor(startedAt / 1000);
    const header = { alg: "RS256", typ: "JWT", ...(o.serviceAccount.private_key_id ? { kid: o.serviceAccount.private_key_id } : {}) };
    const assertion = await new SignJWT({ scope: SCOPE })
      .setProtectedHeader(header)
      .setIssuer(o.serviceAccount.client_email)
      .setAudience(tokenUrl)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + 3600)
      .sign(signer);
    const answer = await timedFetch(tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }).toString(),
    });
    if (retryable(answer.status)) throw new Transient(`token endpoint answered ${answer.status}`);
    const body = isRecord(answer.body) ? answer.body : {};
    if (answer.status !== 200) {
      const error = typeof body.error === "string" ? body.error : String(answer.status);
      throw notConfigured(
        `Google refused the Play service account's credentials (token endpoint: ${error}); check the key, and this server's clock.`,
      );
    }
    const expiresIn = typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in * 1000 : null;
    if (typeof body.access_token !== "string" || body.access_token === "" || expiresIn === null) {
      throw new Transient("token endpoint gave an answer without an access token");
    }
    // Counted from before the request, and at least half the lifetime, so a short-lived token is still reused.
    cached = { token: body.access_token, refreshAt: startedAt + Math.max(expiresIn - REFRESH_MARGIN_MS, expiresIn / 2) };
    return body.access_token;
  }

  function accessToken(): Promise<string> {
    if (cached && now() < cached.refreshAt) return Promise.resolve(cached.token);
    // One token request at a time: concurrent calls share it.
    pending ??= fetchAccessToken().finally(() => {
      pending = null;
    });
    return pending;
  }

  /**
   * One API call with retries. Returns Google's answer for anything that is not worth retrying
   * and not about our credentials; throws STORE_NOT_CONFIGURED (credentials refused) or
   * STORE_UNAVAILABLE (every attempt failed).
   */
  async function call(method: "GET" | "POST", path: string, body?: string): Promise<Answer> {
    let problem = "";
    let refreshed = false;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0 && backoffMs > 0) await new Promise((resolve) => setTimeout(resolve, backoffMs * 2 ** (attempt - 1)));
      try {
        const bearer = await accessToken();
        const answer = await timedFetch(`${apiUrl}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${bearer}`,
            accept: "application/json",
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          body,
        });
        if (answer.status === 401 && !refreshed) {
          // A token Google revoked or expired early: fetch a new one once, without spending an attempt.
          refreshed = true;
          cached = null;
          attempt--;
          continue;
        }
        if (answer.status === 401 || answer.status === 403) {
          throw notConfigured(
            `Google Play refused the service account's credentials (${answer.status}): check that it is invited to this app in Play Console` +
              " with permission to view financial data and manage orders.",
          );
        }
        if (retryable(answer.status)) {
          problem = `answered ${answer.status}`;
          continue;
        }
        return answer;
      } catch (error) {
        if (!(error instanceof Transient)) throw error;
        problem = error.message;
      }
    }
    throw new AppError("STORE_UNAVAILABLE", {
      message: `Google Play did not answer after ${retries + 1} attempts (last: ${problem}).`,
      details: { store: "google" },
    });
  }

  /**
   * One path segment of the outbound URL: encoded, and never a dot segment. encodeURIComponent
   * leaves `.` alone, and a URL parser resolves a `..` segment by walking up one, so a token
   * `..` would have asked Google about another resource of the application.
   */
  function segment(value: string): string {
    if (value === "." || value === "..")
      throw new AppError("RECEIPT_INVALID", {
        message: "A Google Play product id or purchase token cannot be . or ..",
        details: { store: "google" },
      });
    return encodeURIComponent(value);
  }

  function productPath(productId: string, purchaseToken: string): string {
    if (productId === "" || purchaseToken === "" || purchaseToken.length > MAX_TOKEN_LENGTH || productId.length > MAX_TOKEN_LENGTH) {
      throw new AppError("RECEIPT_INVALID", {
        message: "A Google Play receipt needs a product id and a purchase token.",
        details: { store: "google" },
      });
    }
    return `${app}/purchases/products/${segment(productId)}/tokens/${segment(purchaseToken)}`;
  }

  async function verifyProduct(productId: string, purchaseToken: string): Promise<GooglePlayPurchase> {
    const answer = await call("GET", productPath(productId, purchaseToken));
    if (answer.status !== 200) throw refusal(answer);
    const p = answer.body;
    if (!isRecord(p)) throw unexpected("not a ProductPurchase");
    const purchasedAt = millis(p.purchaseTimeMillis);
    const state = intOrNull(p.purchaseState);
    if (purchasedAt === null || state === null) throw unexpected("no purchaseState or purchaseTimeMillis");
    // Google answers a mismatch with a 400; a ProductPurchase naming another product is refused the same way.
    if (typeof p.productId === "string" && p.productId !== productId) {
      throw new AppError("RECEIPT_WRONG_PRODUCT", {
        message: "Google Play says the purchase is for another product.",
        details: { store: "google" },
      });
    }
    const transactionId = googleTransactionId(p.orderId, purchaseToken);
    if (state === 1) {
      throw new AppError("RECEIPT_CANCELLED", {
        message: "Google Play says this purchase was cancelled.",
        details: { store: "google", transactionId },
      });
    }
    if (state === 2) {
      throw new AppError("RECEIPT_PENDING", { details: { store: "google", transactionId } });
    }
    if (state !== 0) throw unexpected(`purchaseState ${state}`);
    const quantity = intOrNull(p.quantity);
    return {
      store: "google",
      transactionId,
      originalTransactionId: null,
      productId,
      quantity: quantity !== null && quantity > 0 ? quantity : 1,
      // purchaseType is set only for purchases outside the standard flow: 0 test (license testers), 1 promo, 2 rewarded.
      environment: p.purchaseType === 0 ? "sandbox" : "production",
      purchasedAt: new Date(purchasedAt),
      // purchases.products.get does not say the price.
      priceMicros: null,
      currency: null,
      evidence: {
        orderId: typeof p.orderId === "string" ? p.orderId : null,
        purchaseState: state,
        consumptionState: intOrNull(p.consumptionState),
        acknowledgementState: intOrNull(p.acknowledgementState),
        purchaseType: intOrNull(p.purchaseType),
        purchaseTimeMillis: String(purchasedAt),
        regionCode: typeof p.regionCode === "string" ? p.regionCode : null,
        quantity: intOrNull(p.quantity),
      },
      acknowledged: p.acknowledgementState === 1,
      consumed: p.consumptionState === 1,
    };
  }

  /**
   * :acknowledge and :consume. Google documents no answer for repeating either; in practice a
   * repeat gets a 400 (invalidPurchaseState or productNotOwnedByUser). So on those we read the
   * purchase and call it done when it is in the state we asked for (a consumed purchase is
   * acknowledged too), which makes both safe to repeat.
   */
  async function change(verb: "acknowledge" | "consume", productId: string, purchaseToken: string): Promise<void> {
    const answer = await call("POST", `${productPath(productId, purchaseToken)}:${verb}`, verb === "acknowledge" ? "{}" : undefined);
    if (answer.status >= 200 && answer.status < 300) return;
    const reason = googleReason(answer.body);
    if (answer.status === 400 && (reason === "invalidPurchaseState" || reason === "productNotOwnedByUser")) {
      const purchase = await verifyProduct(productId, purchaseToken);
      if (purchase.consumed || (verb === "acknowledge" && purchase.acknowledged)) return;
      // A paid purchase of this product that Google would not change: Google's trouble, not the receipt's.
      throw new AppError("STORE_UNAVAILABLE", {
        message: `Google Play would not ${verb} the purchase (${reason}).`,
        details: { store: "google", status: answer.status, reason },
      });
    }
    throw refusal(answer);
  }

  async function voidedPurchases(q: { startTime: Date; pageToken?: string }) {
    const params = new URLSearchParams({ startTime: String(q.startTime.getTime()), type: "0" });
    if (q.pageToken) params.set("token", q.pageToken);
    const answer = await call("GET", `${app}/purchases/voidedpurchases?${params}`);
    if (answer.status !== 200) {
      throw new AppError("STORE_UNAVAILABLE", {
        message: `Google Play answered ${answer.status} to the voided purchases list.`,
        details: { store: "google", status: answer.status, reason: googleReason(answer.body) },
      });
    }
    const body = answer.body;
    if (!isRecord(body)) throw unexpected("not a VoidedPurchasesListResponse");
    const list = body.voidedPurchases ?? [];
    if (!Array.isArray(list)) throw unexpected("voidedPurchases is not a list");
    const reversals = list.map((v): StoreReversal => {
      if (!isRecord(v) || typeof v.purchaseToken !== "string") throw unexpected("a voided purchase without a purchaseToken");
      const voidedAt = millis(v.voidedTimeMillis);
      if (voidedAt === null) throw unexpected("a voided purchase without voidedTimeMillis");
      const reason = intOrNull(v.voidedReason);
      const source = intOrNull(v.voidedSource);
      const reasonWord = reason === null ? "unknown" : (VOIDED_REASONS[reason] ?? `reason_${reason}`);
      return {
        store: "google",
        transactionId: googleTransactionId(v.orderId, v.purchaseToken),
        kind: "refund",
        reason: reasonWord,
        at: new Date(voidedAt),
        evidence: {
          orderId: typeof v.orderId === "string" ? v.orderId : null,
          purchaseTokenSha256: sha256Hex(v.purchaseToken),
          voidedReason: reasonWord,
          voidedSource: source === null ? "unknown" : (VOIDED_SOURCES[source] ?? `source_${source}`),
          purchaseTimeMillis: millis(v.purchaseTimeMillis) === null ? null : String(millis(v.purchaseTimeMillis)),
          voidedTimeMillis: String(voidedAt),
          voidedQuantity: intOrNull(v.voidedQuantity),
        },
      };
    });
    const pagination = isRecord(body.tokenPagination) ? body.tokenPagination : {};
    const next = typeof pagination.nextPageToken === "string" && pagination.nextPageToken !== "" ? pagination.nextPageToken : null;
    return { reversals, nextPageToken: next };
  }

  return {
    verifyProduct,
    acknowledge: (productId, purchaseToken) => change("acknowledge", productId, purchaseToken),
    consume: (productId, purchaseToken) => change("consume", productId, purchaseToken),
    voidedPurchases,
    parseNotification: parseGooglePlayNotification,
  };
}

function malformed(what: string): AppError {
  return new AppError("RECEIPT_INVALID", { message: `Not a Google Play notification: ${what}.`, details: { store: "google" } });
}

/** Every field whose name ends in "token" (purchaseToken, linkedPurchaseToken…) replaced by its SHA-256. */
function withoutTokens(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTokens);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (/token$/i.test(k) && typeof v === "string") out[`${k}Sha256`] = sha256Hex(v);
    else out[k] = withoutTokens(v);
  }
  return out;
}

/**
 * A Cloud Pub/Sub push body ({message: {data, messageId}, subscription}) carrying a Real-time
 * developer notification. Nothing in it is trusted: it says which purchase to look at, and the
 * caller asks the API (verifyProduct, voidedPurchases) what actually happened. It does not check
 * the package: the caller compares `packageName` with the project's.
 */
export function parseGooglePlayNotification(body: unknown): GooglePlayNotification {
  const message = isRecord(body) ? body.message : undefined;
  if (!isRecord(message)) throw malformed("no message");
  const messageId = typeof message.messageId === "string" ? message.messageId : message.message_id;
  if (typeof messageId !== "string" || messageId === "") throw malformed("no messageId");
  if (typeof message.data !== "string" || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(message.data)) throw malformed("data is not base64");
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(message.data, "base64").toString("utf8"));
  } catch {
    throw malformed("data is not JSON");
  }
  if (!isRecord(decoded)) throw malformed("data is not a DeveloperNotification");
  if (typeof decoded.packageName !== "string" || decoded.packageName === "") throw malformed("no packageName");
  const raw = withoutTokens(decoded) as Record<string, unknown>;
  const base = { messageId, packageName: decoded.packageName, raw };
  const tokenHash = (n: Record<string, unknown>) => (typeof n.purchaseToken === "string" ? sha256Hex(n.purchaseToken) : null);

  const voided = decoded.voidedPurchaseNotification;
  if (isRecord(voided)) {
    if (typeof voided.purchaseToken !== "string") throw malformed("a voided purchase without a purchaseToken");
    const orderId = typeof voided.orderId === "string" && voided.orderId !== "" ? voided.orderId : null;
    return { ...base, kind: "voided", purchaseTokenSha256: tokenHash(voided), orderId, notificationType: null };
  }
  const oneTime = decoded.oneTimeProductNotification;
  if (isRecord(oneTime)) {
    if (typeof oneTime.purchaseToken !== "string") throw malformed("a one-time product notification without a purchaseToken");
    return {
      ...base,
      kind: "one_time",
      purchaseTokenSha256: tokenHash(oneTime),
      orderId: null,
      notificationType: intOrNull(oneTime.notificationType),
    };
  }
  if (isRecord(decoded.testNotification)) {
    return { ...base, kind: "test", purchaseTokenSha256: null, orderId: null, notificationType: null };
  }
  const subscription = isRecord(decoded.subscriptionNotification) ? decoded.subscriptionNotification : null;
  return {
    ...base,
    kind: "other",
    purchaseTokenSha256: subscription ? tokenHash(subscription) : null,
    orderId: null,
    notificationType: subscription ? intOrNull(subscription.notificationType) : null,
  };
}
