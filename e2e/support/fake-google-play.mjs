// A loopback stand-in for the Google Play Developer API and Google's OAuth 2.0 token endpoint, for
// tests of server/stores/google.ts (Google is not reachable from here). It answers in the shapes
// Google publishes; each route cites its reference page. Plain JavaScript so scripts can import it
// as it is; types in fake-google-play.d.mts.
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { importSPKI, jwtVerify } from "jose";

const SCOPE = "https://www.googleapis.com/auth/androidpublisher";
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const PRODUCTS = /^\/androidpublisher\/v3\/applications\/([^/]+)\/purchases\/products\/([^/]+)\/tokens\/([^/:]+)(:acknowledge|:consume)?$/;
const VOIDED = /^\/androidpublisher\/v3\/applications\/([^/]+)\/purchases\/voidedpurchases$/;

/**
 * A service account like the JSON key file Google Cloud gives (only the fields the adapter reads),
 * with a fresh RSA 2048 key pair, and the public half for the fake to check signatures with.
 */
export function makeServiceAccount() {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const id = randomBytes(4).toString("hex");
  return {
    type: "service_account",
    client_email: `receipts-${id}@fake-project.iam.gserviceaccount.com`,
    private_key_id: randomBytes(20).toString("hex"),
    private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

/**
 * A Cloud Pub/Sub push request body carrying one Real-time developer notification, as Pub/Sub
 * posts it to a push endpoint: https://cloud.google.com/pubsub/docs/push#receive_push and
 * https://developer.android.com/google/play/billing/rtdn-reference#encoding
 */
export function pubsubPush(notification, { messageId = String(Date.now()) + randomBytes(3).toString("hex"), subscription } = {}) {
  const publishTime = new Date().toISOString();
  return {
    message: {
      attributes: {},
      data: Buffer.from(JSON.stringify(notification)).toString("base64"),
      messageId,
      message_id: messageId,
      publishTime,
      publish_time: publishTime,
    },
    subscription: subscription ?? "projects/fake-project/subscriptions/play-rtdn",
  };
}

/** Google's JSON error body: https://cloud.google.com/apis/design/errors#http_mapping */
function googleError(code, status, message, reason, domain = "androidpublisher") {
  return { error: { code, message, status, errors: [{ message, domain, reason, location: "token", locationType: "parameter" }] } };
}

const STATUS_NAMES = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  410: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
};

/**
 * Starts the fake on 127.0.0.1 and `port` (a free one by default). It trusts JWT assertions signed by `publicKeyPem`
 * (and issued by `clientEmail`, when given) and serves the purchases of `packageName`.
 * `voidedPageSize`: voided purchases per page (Google's default and maximum is 1,000).
 */
export async function startFakeGooglePlay({
  publicKeyPem,
  packageName,
  clientEmail,
  voidedPageSize = 1000,
  accessTokenSeconds = 3599,
  port = 0,
}) {
  const publicKey = await importSPKI(publicKeyPem, "RS256");
  /** purchase token → ProductPurchase fields (plus the package and product it was bought in). */
  const purchases = new Map();
  /** VoidedPurchase resources, oldest void first. */
  const voided = [];
  const accessTokens = new Set();
  const failures = { api: [], token: [] };
  const held = new Set();
  const requests = [];
  let server;
  const url = await new Promise((resolve, reject) => {
    server = createServer((req, res) => {
      handle(req, res).catch((error) => {
        if (!res.headersSent) send(res, 500, googleError(500, "INTERNAL", String(error), "backendError", "global"));
      });
    });
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(`http://127.0.0.1:${server.address().port}`));
  });
  const tokenUrl = `${url}/token`;

  function send(res, status, body) {
    const text = body === undefined ? "" : JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json; charset=UTF-8", "content-length": Buffer.byteLength(text) });
    res.end(text);
  }

  async function readBody(req) {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    return Buffer.concat(chunks).toString("utf8");
  }

  /**
   * Answers with the next queued failure, if any: a status (or a status and Google's error reason)
   * with Google's error body, or nothing at all.
   */
  function injectFailure(kind, res) {
    const next = failures[kind].shift();
    if (next === undefined) return false;
    if (next === "timeout") {
      held.add(res);
      res.on("close", () => held.delete(res));
      return true;
    }
    const status = typeof next === "number" ? next : next.status;
    if (kind === "token") {
      send(res, status, { error: status >= 500 ? "internal_failure" : "invalid_grant", error_description: `Injected ${status}.` });
      return true;
    }
    const reason = typeof next === "number" ? (status >= 500 ? "backendError" : "injected") : next.reason;
    send(res, status, googleError(status, STATUS_NAMES[status] ?? "UNAVAILABLE", `Injected ${status}.`, reason, "global"));
    return true;
  }

  async function handle(req, res) {
    const parsed = new URL(req.url ?? "/", url);
    requests.push({ method: req.method ?? "GET", path: parsed.pathname + parsed.search });
    const body = await readBody(req);
    if (parsed.pathname === "/token" && req.method === "POST") return token(body, res);
    // Every API call carries the bearer the token endpoint issued:
    // https://developers.google.com/identity/protocols/oauth2/service-account#callinganapi
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!bearer || !accessTokens.has(bearer)) {
      return send(res, 401, {
        error: {
          code: 401,
          message: "Request had invalid authentication credentials. Expected OAuth 2 access token.",
          status: "UNAUTHENTICATED",
        },
      });
    }
    if (injectFailure("api", res)) return;
    const product = PRODUCTS.exec(parsed.pathname);
    if (product) {
      const [, pkg, productId, purchaseToken, verb] = product.map((part) => (part === undefined ? part : decodeURIComponent(part)));
      if (pkg !== packageName) return forbidden(res);
      if (!verb && req.method === "GET") return getProduct(res, pkg, productId, purchaseToken);
      if (verb && req.method === "POST") return changeProduct(res, pkg, productId, purchaseToken, verb);
    }
    const list = VOIDED.exec(parsed.pathname);
    if (list && req.method === "GET") {
      if (decodeURIComponent(list[1] ?? "") !== packageName) return forbidden(res);
      return listVoided(res, parsed.searchParams);
    }
    send(res, 404, googleError(404, "NOT_FOUND", "Not found.", "notFound", "global"));
  }

  function forbidden(res) {
    // A service account not linked to the app in Play Console: the caller lacks permission.
    send(res, 403, googleError(403, "PERMISSION_DENIED", "The caller does not have permission", "forbidden", "global"));
  }

  /**
   * OAuth 2.0 for server-to-server applications: the form-encoded JWT bearer grant, answered with
   * an access token or `invalid_grant`:
   * https://developers.google.com/identity/protocols/oauth2/service-account#authorizingrequests
   */
  async function token(body, res) {
    if (injectFailure("token", res)) return;
    const form = new URLSearchParams(body);
    if (form.get("grant_type") !== JWT_BEARER)
      return send(res, 400, { error: "unsupported_grant_type", error_description: "Invalid grant_type." });
    try {
      const { payload } = await jwtVerify(form.get("assertion") ?? "", publicKey, {
        algorithms: ["RS256"],
        audience: tokenUrl,
        ...(clientEmail ? { issuer: clientEmail } : {}),
        maxTokenAge: "1h",
      });
      if (payload.scope !== SCOPE) return send(res, 400, { error: "invalid_scope", error_description: "Invalid OAuth scope." });
      if (typeof payload.exp !== "number" || typeof payload.iat !== "number" || payload.exp - payload.iat > 3600) {
        return send(res, 400, {
          error: "invalid_grant",
          error_description: "Invalid JWT: Token must be a short-lived token (60 minutes).",
        });
      }
    } catch {
      return send(res, 400, { error: "invalid_grant", error_description: "Invalid JWT Signature." });
    }
    const accessToken = `ya29.fake-${randomBytes(16).toString("hex")}`;
    accessTokens.add(accessToken);
    send(res, 200, { access_token: accessToken, expires_in: accessTokenSeconds, token_type: "Bearer" });
  }

  /**
   * purchases.products.get → ProductPurchase:
   * https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.products/get and
   * https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.products#ProductPurchase
   * A token for another product or app gets the 400 Google answers with, e.g.
   * https://github.com/googleapis/google-api-php-client/issues/2483 (purchaseTokenDoesNotMatchProductId)
   * https://github.com/hyochan/react-native-iap/issues/815 (purchaseTokenDoesNotMatchPackageName).
   */
  function lookUp(res, pkg, productId, purchaseToken) {
    const purchase = purchases.get(purchaseToken);
    if (!purchase) {
      // An unknown token: Google's "Invalid Value" (https://github.com/imdhemy/laravel-in-app-purchases/issues/68).
      send(res, 400, googleError(400, "INVALID_ARGUMENT", "Invalid Value", "invalid", "global"));
      return null;
    }
    if (purchase.packageName !== pkg) {
      const message = "The purchase token does not match the package name.";
      send(res, 400, googleError(400, "INVALID_ARGUMENT", message, "purchaseTokenDoesNotMatchPackageName"));
      return null;
    }
    if (purchase.productId !== productId) {
      const message = "The purchase token does not match the product ID.";
      send(res, 400, googleError(400, "INVALID_ARGUMENT", message, "purchaseTokenDoesNotMatchProductId"));
      return null;
    }
    return purchase;
  }

  function getProduct(res, pkg, productId, purchaseToken) {
    const purchase = lookUp(res, pkg, productId, purchaseToken);
    if (!purchase) return;
    const { packageName: _pkg, ...fields } = purchase;
    const answer = { kind: "androidpublisher#productPurchase", ...fields, purchaseToken };
    // int64 fields travel as strings; fields Google leaves out when unset are left out.
    answer.purchaseTimeMillis = String(purchase.purchaseTimeMillis);
    for (const key of Object.keys(answer)) if (answer[key] === null || answer[key] === undefined) delete answer[key];
    send(res, 200, answer);
  }

  /**
   * purchases.products.acknowledge / consume: an empty body on success.
   * https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.products/acknowledge
   * https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.products/consume
   * Google documents no answer for repeating either; what developers report (and this fake does):
   * a 400 — "The purchase is not in a valid state to perform the desired operation."
   * (invalidPurchaseState, https://github.com/googleapis/google-api-dotnet-client/issues/1987) or
   * "The product purchase is not owned by the user." (productNotOwnedByUser,
   * https://github.com/aporat/store-receipt-validator/pull/110). Google's advice is to read the
   * purchase first (https://github.com/android/play-billing-samples/issues/197).
   */
  function changeProduct(res, pkg, productId, purchaseToken, verb) {
    const purchase = lookUp(res, pkg, productId, purchaseToken);
    if (!purchase) return;
    if (purchase.purchaseState !== 0) {
      const message = "The purchase is not in a valid state to perform the desired operation.";
      return send(res, 400, googleError(400, "INVALID_ARGUMENT", message, "invalidPurchaseState"));
    }
    if (verb === ":consume") {
      if (purchase.consumptionState === 1) {
        return send(
          res,
          400,
          googleError(400, "INVALID_ARGUMENT", "The product purchase is not owned by the user.", "productNotOwnedByUser"),
        );
      }
      // A consumed purchase counts as acknowledged (Play Billing: consumeAsync acknowledges).
      purchase.consumptionState = 1;
      purchase.acknowledgementState = 1;
      return send(res, 200, {});
    }
    if (purchase.acknowledgementState === 1) {
      const message = "The purchase is not in a valid state to perform the desired operation.";
      return send(res, 400, googleError(400, "INVALID_ARGUMENT", message, "invalidPurchaseState"));
    }
    purchase.acknowledgementState = 1;
    send(res, 200, {});
  }

  /**
   * purchases.voidedpurchases.list → VoidedPurchasesListResponse, oldest void first, paged with
   * tokenPagination.nextPageToken and the `token` parameter:
   * https://developers.google.com/android-publisher/api-ref/rest/v3/purchases.voidedpurchases/list
   * https://developers.google.com/android-publisher/voided-purchases
   * `type=0` (the default) lists one-time purchases only; every purchase in this fake is one.
   */
  function listVoided(res, params) {
    const startTime = Number(params.get("startTime") ?? 0);
    const endTime = Number(params.get("endTime") ?? Number.MAX_SAFE_INTEGER);
    const maxResults = Math.min(Number(params.get("maxResults") ?? voidedPageSize), voidedPageSize);
    const offset = Number(params.get("token") ?? 0);
    const matching = voided.filter((v) => Number(v.voidedTimeMillis) >= startTime && Number(v.voidedTimeMillis) <= endTime);
    const page = matching.slice(offset, offset + maxResults);
    const answer = { pageInfo: { totalResults: matching.length, resultPerPage: maxResults, startIndex: offset } };
    if (page.length > 0) answer.voidedPurchases = page;
    if (offset + maxResults < matching.length) answer.tokenPagination = { nextPageToken: String(offset + maxResults) };
    send(res, 200, answer);
  }

  return {
    url,
    tokenUrl,
    requests,
    /** Sets (or replaces) what Google knows about one purchase token. */
    setPurchase(purchaseToken, fields) {
      purchases.set(purchaseToken, {
        packageName,
        purchaseState: 0,
        consumptionState: 0,
        acknowledgementState: 0,
        orderId: `GPA.${randomBytes(2).toString("hex")}-${randomBytes(2).toString("hex")}-${randomBytes(2).toString("hex")}-${randomBytes(3).toString("hex")}`,
        purchaseTimeMillis: Date.now(),
        regionCode: "US",
        quantity: 1,
        ...fields,
      });
    },
    /**
     * Voids a purchase: it appears in the voided list and later gets show it cancelled.
     * voidedSource 0 user, 1 developer, 2 Google; voidedReason 0–8 as Google lists them.
     */
    voidPurchase(purchaseToken, { voidedReason = 1, voidedSource = 0, voidedTimeMillis = Date.now(), voidedQuantity } = {}) {
      const purchase = purchases.get(purchaseToken);
      if (purchase) purchase.purchaseState = 1;
      const entry = {
        kind: "androidpublisher#voidedPurchase",
        purchaseToken,
        purchaseTimeMillis: String(purchase?.purchaseTimeMillis ?? voidedTimeMillis),
        voidedTimeMillis: String(voidedTimeMillis),
        voidedSource,
        voidedReason,
      };
      if (purchase?.orderId) entry.orderId = purchase.orderId;
      if (voidedQuantity !== undefined) entry.voidedQuantity = voidedQuantity;
      voided.push(entry);
      voided.sort((a, b) => Number(a.voidedTimeMillis) - Number(b.voidedTimeMillis));
    },
    /**
     * The next `n` API calls (or token requests, with scope "token") fail: with this HTTP status
     * (and error reason, given as {status, reason}) in Google's error body, or, for "timeout",
     * with no answer at all until close().
     */
    failNext(n, what, scope = "api") {
      for (let i = 0; i < n; i++) failures[scope].push(what);
    },
    /** Forgets every access token issued so far, as if they had expired or been revoked. */
    revokeAccessTokens() {
      accessTokens.clear();
    },
    /** The purchase as the fake holds it now (a copy). */
    purchase(purchaseToken) {
      const found = purchases.get(purchaseToken);
      return found ? { ...found } : undefined;
    },
    tokenHash(purchaseToken) {
      return createHash("sha256").update(purchaseToken).digest("hex");
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}
