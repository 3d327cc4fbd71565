// `npm run stores:local`: the stores on a developer's machine, so the whole purchase flow can be
// tried before any store is set up (docs/guides/store-receipts.md, "Trying purchases locally").
// It is the suite's own doubles put together: a test Apple PKI (apple-pki.mjs; the server is told
// to trust its root), the fake Google Play and the fake Steam (fake-google-play.mjs,
// fake-steam.mjs), all on loopback, and a small HTTP helper that gives what the store would give
// the game. Plain JavaScript so it runs as it is (Node 20 runs no .ts); types in local-stores.d.mts.
// It lives beside the doubles it is made of, not in server/cli: it is a developer's tool, never
// part of a running server.
import { createPublicKey, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { applePkiFrom, makeApplePki, notificationPayload, transactionPayload } from "./apple-pki.mjs";
import { makeServiceAccount, startFakeGooglePlay } from "./fake-google-play.mjs";
import { startFakeSteam } from "./fake-steam.mjs";

/**
 * The store accounts the local stores answer for, to enter on the project's Store page. Apple's
 * and Google's ids are the demo game's (its store products are com.example.demogame.*); 480 is
 * Spacewar, the app id Valve gives every Steamworks developer for testing.
 */
export const LOCAL_STORE_ACCOUNTS = Object.freeze({
  apple: Object.freeze({ bundleId: "com.example.demogame", appAppleId: 1234567890 }),
  google: Object.freeze({ packageName: "com.example.demogame" }),
  steam: Object.freeze({ appId: "480" }),
});

/** The default helper port; the fake Google Play and the fake Steam listen on the next two. */
export const DEFAULT_PORT = 4400;

const json = (value) => `${JSON.stringify(value, null, 2)}\n`;
const writeSecret = (file, text) => writeFileSync(file, text, { mode: 0o600 });

/**
 * What the local stores sign with, made once in `dir` and reused (so the server's setting and the
 * Store page's entries stay right across restarts): the Apple PKI (its root as DER for
 * STORE_APPLE_ROOT_CERTIFICATES), a Google service account key file, a Steam publisher key.
 */
export function localStoreMaterial(dir) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pkiFile = path.join(dir, "apple-pki.json");
  const rootFile = path.join(dir, "apple-root.der");
  const accountFile = path.join(dir, "google-service-account.json");
  const steamFile = path.join(dir, "steam.json");
  if (!existsSync(pkiFile) || !existsSync(rootFile)) {
    const made = makeApplePki();
    writeSecret(pkiFile, json(made.material));
    writeFileSync(rootFile, made.rootDer);
  }
  if (!existsSync(accountFile)) {
    const { publicKeyPem: _public, ...keyFile } = makeServiceAccount();
    writeSecret(accountFile, json(keyFile));
  }
  if (!existsSync(steamFile)) writeSecret(steamFile, json({ publisherKey: randomBytes(16).toString("hex").toUpperCase() }));
  const serviceAccount = JSON.parse(readFileSync(accountFile, "utf8"));
  return {
    apple: applePkiFrom(JSON.parse(readFileSync(pkiFile, "utf8"))),
    rootFile: path.resolve(rootFile),
    serviceAccount,
    serviceAccountFile: path.resolve(accountFile),
    publicKeyPem: createPublicKey(serviceAccount.private_key).export({ type: "spki", format: "pem" }).toString(),
    steamPublisherKey: JSON.parse(readFileSync(steamFile, "utf8")).publisherKey,
  };
}

class BadRequest extends Error {}

function required(body, field) {
  const value = body[field];
  if (typeof value !== "string" || value.length === 0) throw new BadRequest(`${field} is required (a string)`);
  return value;
}

function quantityOf(body) {
  const quantity = body.quantity ?? 1;
  // StoreKit's and Play's most for one purchase; the server decides what it accepts (STORE_MAX_QUANTITY).
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > 100) throw new BadRequest("quantity is a whole number from 1 to 100");
  return quantity;
}

/**
 * Starts the local stores: the fake Google Play and the fake Steam, and the helper, all on
 * 127.0.0.1. `port`: the helper's (Google's is port + 1, Steam's port + 2; 0: free ports for
 * all three, as the tests use). `dir`: where localStoreMaterial keeps its files.
 */
export async function startLocalStores({ dir, port = DEFAULT_PORT, accounts = LOCAL_STORE_ACCOUNTS } = {}) {
  if (!dir) throw new Error("startLocalStores: dir is required");
  const material = localStoreMaterial(dir);
  const next = (offset) => (port === 0 ? 0 : port + offset);
  const google = await startFakeGooglePlay({
    publicKeyPem: material.publicKeyPem,
    packageName: accounts.google.packageName,
    clientEmail: material.serviceAccount.client_email,
    port: next(1),
  });
  let steam;
  try {
    steam = await startFakeSteam({ apiKey: material.steamPublisherKey, appId: accounts.steam.appId, port: next(2) });
  } catch (error) {
    await google.close();
    throw error;
  }
  /** transactionId → the payload signed, so a refund notification can be made for it. */
  const signed = new Map();

  const routes = {
    /** A StoreKit 2 signed transaction, answered as the receipt body the game sends. */
    "POST /apple/transaction"(body) {
      const environment = body.environment ?? "Production";
      if (environment !== "Production" && environment !== "Sandbox") throw new BadRequest("environment is Production or Sandbox");
      const type = body.type ?? "Consumable";
      if (type !== "Consumable" && type !== "Non-Consumable") throw new BadRequest("type is Consumable or Non-Consumable");
      const payload = transactionPayload({
        bundleId: accounts.apple.bundleId,
        productId: required(body, "productId"),
        quantity: quantityOf(body),
        environment,
        type,
      });
      signed.set(payload.transactionId, payload);
      return {
        headers: { "x-transaction-id": payload.transactionId },
        body: { store: "apple", signedTransaction: material.apple.signTransaction(payload) },
      };
    },
    /**
     * An App Store Server Notification V2 about a transaction this helper signed: REFUND by
     * default (revoked now, reason 1: an issue with the app), or REFUND_REVERSED, REVOKE.
     * Answered as the body Apple posts ({signedPayload}).
     */
    "POST /apple/notification"(body) {
      const transactionId = required(body, "transactionId");
      const transaction = signed.get(transactionId);
      if (!transaction) throw new BadRequest(`no transaction ${transactionId} was signed since the local stores started`);
      const type = body.type ?? "REFUND";
      if (!["REFUND", "REFUND_REVERSED", "REVOKE"].includes(type)) throw new BadRequest("type is REFUND, REFUND_REVERSED or REVOKE");
      const revoked = type === "REFUND_REVERSED" ? {} : { revocationDate: Date.now(), revocationReason: 1 };
      const signedTransactionInfo = material.apple.signTransaction({ ...transaction, ...revoked, signedDate: Date.now() });
      const payload = notificationPayload({
        notificationType: type,
        data: { ...accounts.apple, environment: transaction.environment, signedTransactionInfo },
      });
      return { body: { signedPayload: material.apple.signNotification(payload) } };
    },
    /**
     * A Google Play purchase, made in the fake (its setPurchase) and answered as the receipt body
     * the game sends. `test`: a license tester's purchase (purchaseType 0, "sandbox");
     * `pending`: a slow payment method (purchaseState 2) until /google/complete.
     */
    "POST /google/purchase"(body) {
      const productId = required(body, "productId");
      const purchaseToken = `local-${randomBytes(24).toString("base64url")}`;
      google.setPurchase(purchaseToken, {
        productId,
        quantity: quantityOf(body),
        purchaseState: body.pending === true ? 2 : 0,
        ...(body.test === true ? { purchaseType: 0 } : {}),
      });
      return { body: { store: "google", productId, purchaseToken } };
    },
    /** A pending Google purchase is paid. */
    "POST /google/complete"(body) {
      const purchaseToken = required(body, "purchaseToken");
      const purchase = google.purchase(purchaseToken);
      if (!purchase) throw new BadRequest("no such purchase token");
      const { packageName: _pkg, ...fields } = purchase;
      google.setPurchase(purchaseToken, { ...fields, purchaseState: 0 });
      return { body: { purchaseToken, purchaseState: 0 } };
    },
    /** Google refunds a purchase: the server's next refund poll reads it from the voided purchases. */
    "POST /google/refund"(body) {
      const purchaseToken = required(body, "purchaseToken");
      if (!google.purchase(purchaseToken)) throw new BadRequest("no such purchase token");
      google.voidPurchase(purchaseToken);
      return { body: { purchaseToken, voided: true } };
    },
    /** The player approves the order in the Steam overlay (the server started it with InitTxn). */
    "POST /steam/approve": (body) => steamAction(body, "approve"),
    "POST /steam/decline": (body) => steamAction(body, "decline"),
    /** Steam refunds a finished order: the server's next refund poll reads it (GetReport CHARGEBACK). */
    "POST /steam/refund": (body) => steamAction(body, "refund"),
    "GET /": () => ({ body: overview() }),
  };

  function steamAction(body, action) {
    const orderId = required(body, "orderId");
    try {
      steam[action](orderId);
    } catch (error) {
      throw new BadRequest(error instanceof Error ? error.message.replace(/^fake Steam: /, "") : String(error));
    }
    return { body: { orderId, status: steam.order(orderId).status } };
  }

  const helper = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString("utf8").trim();
    const route = routes[`${req.method} ${new URL(req.url ?? "/", "http://local").pathname}`];
    const send = (status, body, headers = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    };
    if (!route) return send(404, { error: `no such route; GET / lists them` });
    try {
      // curl -d sends form-encoded content types; the body is JSON whatever it says.
      const body = text === "" ? {} : JSON.parse(text);
      if (typeof body !== "object" || body === null || Array.isArray(body)) throw new BadRequest("the body is a JSON object");
      const answer = route(body);
      send(200, answer.body, answer.headers);
    } catch (error) {
      if (error instanceof BadRequest || error instanceof SyntaxError) return send(400, { error: error.message });
      send(500, { error: String(error) });
    }
  });
  try {
    await new Promise((resolve, reject) => {
      helper.once("error", reject);
      helper.listen(port, "127.0.0.1", resolve);
    });
  } catch (error) {
    await Promise.all([google.close(), steam.close()]);
    throw error;
  }
  const address = helper.address();
  const helperUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : port}`;

  /** The server's settings that point it at the local stores (docs/operating/configuration.md). */
  const env = {
    STORE_APPLE_ROOT_CERTIFICATES: material.rootFile,
    STORE_GOOGLE_API_URL: google.url,
    STORE_GOOGLE_TOKEN_URL: google.tokenUrl,
    STORE_STEAM_API_URL: steam.url,
    // Google's and Steam's refunds are polled: every minute, not every hour, so a refund shows soon.
    STORE_REFUND_POLL_MINUTES: "1",
  };
  /** What to enter on the project's Store page, store by store. */
  const settings = {
    apple: { bundleId: accounts.apple.bundleId, appAppleId: accounts.apple.appAppleId, environments: "both" },
    google: { packageName: accounts.google.packageName, environments: "both", serviceAccountFile: material.serviceAccountFile },
    steam: { appId: accounts.steam.appId, sandbox: false, publisherKey: material.steamPublisherKey },
  };
  function overview() {
    return {
      env,
      settings,
      routes: Object.keys(routes).filter((r) => r !== "GET /"),
    };
  }

  return {
    helperUrl,
    env,
    settings,
    serviceAccount: { client_email: material.serviceAccount.client_email, private_key: material.serviceAccount.private_key },
    google,
    steam,
    async close() {
      helper.closeAllConnections();
      await Promise.all([new Promise((resolve) => helper.close(() => resolve(undefined))), google.close(), steam.close()]);
    },
  };
}

/** The demo project's client key and address, from the data directory `npm start` seeded (server/demo-seed.ts). */
export function readDemo(dataDir) {
  try {
    const demo = JSON.parse(readFileSync(path.join(dataDir, "demo.json"), "utf8"));
    return { apiKey: String(demo.apiKey), baseUrl: String(demo.baseUrl) };
  } catch {
    return undefined;
  }
}

const quote = (value) => (/^[\w./:@+=,-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`);

/** What `npm run stores:local` prints: the server's start line, the Store page's entries, curl examples. */
export function instructions(stores, demo) {
  const gb = `${demo?.baseUrl ?? "http://localhost:3000"}/api/v1`;
  const envLine = Object.entries(stores.env)
    .map(([k, v]) => `${k}=${quote(v)}`)
    .join(" ");
  const { apple, google, steam } = stores.settings;
  const h = stores.helperUrl;
  const auth = `"\${AUTH[@]}"`;
  return [
    "Local stores (for trying purchases; never point a production server at them):",
    `  helper ${h}, fake Google Play ${stores.google.url}, fake Steam ${stores.steam.url}`,
    "",
    "1. Start the server with:",
    `   ${envLine} npm start`,
    "",
    "2. On the dashboard, the project's Store page:",
    `   App Store    bundle id ${apple.bundleId}, Apple ID ${apple.appAppleId}, environments: production and sandbox`,
    `   Google Play  package ${google.packageName}, service account key: paste ${google.serviceAccountFile}`,
    `   Steam        app id ${steam.appId}, sandbox off, publisher key ${steam.publisherKey}`,
    "",
    "3. A player (the demo project's client key):",
    `   GB=${gb}`,
    demo ? `   KEY=${demo.apiKey}` : "   KEY=<the client key: demo.json in the server's data directory, once `npm start` has run>",
    `   TOKEN=$(curl -s -X POST "$GB/auth/anonymous" -H "X-API-Key: $KEY" | sed 's/.*"accessToken":"\\([^"]*\\)".*/\\1/')`,
    `   AUTH=(-H "X-API-Key: $KEY" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json')`,
    "",
    "4. Buy (each helper answer is the receipt body the game sends):",
    '   # App Store: add -d \'{…, "environment": "Sandbox"}\' for a sandbox purchase',
    `   curl -s -X POST ${h}/apple/transaction -d '{"productId": "com.example.demogame.gems500"}' \\`,
    `     | curl -s -X POST "$GB/economy/receipts" ${auth} -d @-`,
    "   # Google Play",
    `   curl -s -X POST ${h}/google/purchase -d '{"productId": "gems_500"}' \\`,
    `     | curl -s -X POST "$GB/economy/receipts" ${auth} -d @-`,
    "   # Steam: the server starts the order, the helper approves it as the overlay would",
    `   curl -s -X POST "$GB/economy/receipts/steam" ${auth} -d '{"productId": "gems-500", "steamId": "76561197960287930"}'`,
    `   curl -s -X POST ${h}/steam/approve -d '{"orderId": "'$ORDER_ID'"}'`,
    `   curl -s -X POST "$GB/economy/receipts" ${auth} -d '{"store": "steam", "orderId": "'$ORDER_ID'"}'`,
    "",
    "5. Refund (App Store: a REFUND notification to the project's notification URL, on the Store page):",
    `   curl -s -X POST ${h}/apple/notification -d '{"transactionId": "'$STORE_TRANSACTION_ID'"}' \\`,
    `     | curl -s -X POST "${demo?.baseUrl ?? "http://localhost:3000"}/api/stores/apple/$PROJECT_ID" -H 'Content-Type: application/json' -d @-`,
    `   curl -s -X POST ${h}/google/refund -d '{"purchaseToken": "…"}'   # the next refund poll (1 minute) takes it back`,
    `   curl -s -X POST ${h}/steam/refund -d '{"orderId": "…"}'          # likewise`,
    "",
    `Files: ${path.dirname(stores.settings.google.serviceAccountFile)} (reused at the next start). Ctrl-C stops.`,
  ].join("\n");
}

async function main() {
  if (process.env.NODE_ENV === "production") {
    process.stderr.write("stores:local refuses to run with NODE_ENV=production: it is a test double, not a store.\n");
    process.exit(1);
  }
  const dataDir = process.env.DATA_DIR ?? ".data";
  const port = Number(process.env.LOCAL_STORES_PORT ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65_533) {
    process.stderr.write(
      `LOCAL_STORES_PORT is a port number (the helper's; the fakes take the next two), not ${process.env.LOCAL_STORES_PORT}\n`,
    );
    process.exit(1);
  }
  let stores;
  try {
    stores = await startLocalStores({ dir: path.join(dataDir, "local-stores"), port });
  } catch (error) {
    const busy = error && typeof error === "object" && "code" in error && error.code === "EADDRINUSE";
    process.stderr.write(
      busy
        ? `stores:local: port ${port}, ${port + 1} or ${port + 2} is taken (another stores:local?); LOCAL_STORES_PORT=… picks others.\n`
        : `stores:local: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`${instructions(stores, readDemo(dataDir))}\n`);
  const stop = () => {
    stores.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
