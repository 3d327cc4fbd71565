import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pool } from "@/server/db";
import { DEMO_STORE_PRODUCTS, seedDemoEconomy, seedDemoStoreProducts } from "@/server/demo-seed";
import { pollRefunds } from "@/server/services/store/notifications";
import { setStoreSettingsAs } from "@/server/services/store/settings";
import { dedicatedApp } from "../support/dedicated-app";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";
import { logLine, root } from "../support/launch.mjs";
import { type LocalStores, startLocalStores } from "../support/local-stores.mjs";
import { ctx, newOperator } from "../support/operators";

/**
 * The guide's "Trying purchases locally" (docs/guides/store-receipts.md), step by step: the local
 * stores of `npm run stores:local` (e2e/support/local-stores.mjs) started on free ports, an app
 * started with exactly the environment they print (so it trusts their Apple root, not the
 * suite's), the demo game's economy and store products, the Store page's settings as printed,
 * and a purchase and a refund in each store through the helper's HTTP answers.
 */
const dir = mkdtempSync(path.join(tmpdir(), "local-stores-"));
let stores: LocalStores;
beforeAll(async () => {
  stores = await startLocalStores({ dir, port: 0 });
  // This test process polls Google's refunds itself (pollRefunds): its services reach the same fake.
  process.env.STORE_GOOGLE_API_URL = stores.env.STORE_GOOGLE_API_URL;
  process.env.STORE_GOOGLE_TOKEN_URL = stores.env.STORE_GOOGLE_TOKEN_URL;
});
afterAll(async () => {
  await stores?.close();
  rmSync(dir, { recursive: true, force: true });
});
// The printed environment, but no refund poll of its own: the suite's database holds other files' projects.
const app = dedicatedApp(() => ({ ...stores.env, STORE_REFUND_POLL_MINUTES: "0" }));

let project: TestProject;
beforeAll(async () => {
  project = await makeProject();
  await seedDemoEconomy(project.projectId);
  await seedDemoStoreProducts(project.projectId);
  const owner = ctx(await newOperator("OWNER", project.projectId));
  const { apple, google, steam } = stores.settings;
  const { projectId } = project;
  await setStoreSettingsAs(owner, { projectId, input: { store: "apple", settings: apple } });
  await setStoreSettingsAs(owner, {
    projectId,
    input: {
      store: "google",
      settings: { packageName: google.packageName, environments: google.environments },
      secret: stores.serviceAccount,
    },
  });
  await setStoreSettingsAs(owner, {
    projectId,
    input: { store: "steam", settings: { appId: steam.appId, sandbox: steam.sandbox }, secret: { publisherKey: steam.publisherKey } },
  });
});

const helper = async (route: string, body: unknown) => {
  const res = await fetch(`${stores.helperUrl}${route}`, { method: "POST", body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
};
type Receipt = {
  status: string;
  storeTransactionId: string;
  environment: string;
  grant: { balances: Array<{ id: string; balance: number }> };
};
const game = async (player: TestPlayer, route: string, body: unknown) => {
  const res = await fetch(`${app().baseUrl}${route}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-API-Key": project.clientKey, Authorization: `Bearer ${player.accessToken}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Receipt & Record<string, string> };
};
const gemsOf = async (player: TestPlayer) => {
  const res = await fetch(`${app().baseUrl}/api/v1/economy/currencies`, {
    headers: { "X-API-Key": project.clientKey, Authorization: `Bearer ${player.accessToken}` },
  });
  return ((await res.json()) as Array<{ id: string; balance: number }>).find((c) => c.id === "gems")?.balance;
};
const ledgerKinds = async (player: TestPlayer) =>
  (
    await pool().query<{ kind: string }>(
      "SELECT kind FROM economy_transactions WHERE project_id = $1 AND player_id = $2 ORDER BY created_at",
      [project.projectId, player.playerId],
    )
  ).rows.map((r) => r.kind);

describe("the local stores", () => {
  it("make the server say loudly that it trusts a test root and fake stores", async () => {
    const line = await logLine(app(), "the test-root warning", (l) => String(l.msg).startsWith("STORE_APPLE_ROOT_CERTIFICATES is set"));
    expect(line.level).toBe("warn");
    expect(String(line.msg)).toContain(stores.env.STORE_APPLE_ROOT_CERTIFICATES);
    await logLine(app(), "the fake Google address warning", (l) =>
      String(l.msg).startsWith(`STORE_GOOGLE_API_URL is ${stores.google.url}`),
    );
  });

  it("sign an App Store transaction the server grants, and a REFUND notification that takes it back", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const bought = await helper("/apple/transaction", { productId: DEMO_STORE_PRODUCTS.gems500.appleProductId });
    expect(bought.status).toBe(200);
    expect(Object.keys(bought.body).sort()).toEqual(["signedTransaction", "store"]);
    const res = await game(player, "/api/v1/economy/receipts", bought.body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: "granted", productId: "gems-500", environment: "production" });
    expect(res.body.grant.balances).toContainEqual({ id: "gems", balance: 500 });

    const notification = await helper("/apple/notification", { transactionId: res.body.storeTransactionId });
    expect(notification.status).toBe(200);
    const notified = await fetch(`${app().baseUrl}/api/stores/apple/${project.projectId}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(notification.body),
    });
    expect(await notified.json()).toEqual({ duplicate: false, outcome: "refunded" });
    expect(await gemsOf(player)).toBe(0);
    expect(await ledgerKinds(player)).toEqual(["STORE_PURCHASE", "STORE_REFUND"]);
  });

  it("sign sandbox transactions too, and refuse what they cannot sign", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const bought = await helper("/apple/transaction", { productId: DEMO_STORE_PRODUCTS.gems500.appleProductId, environment: "Sandbox" });
    expect((await game(player, "/api/v1/economy/receipts", bought.body)).body).toMatchObject({ status: "granted", environment: "sandbox" });
    expect(await helper("/apple/transaction", {})).toEqual({ status: 400, body: { error: "productId is required (a string)" } });
    expect((await helper("/apple/notification", { transactionId: "1" })).status).toBe(400);
  });

  it("make a Google Play purchase token the server grants and consumes; a refund is read by the next poll", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const bought = await helper("/google/purchase", { productId: DEMO_STORE_PRODUCTS.gems500.googleProductId });
    expect(Object.keys(bought.body).sort()).toEqual(["productId", "purchaseToken", "store"]);
    const res = await game(player, "/api/v1/economy/receipts", bought.body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: "granted", productId: "gems-500" });
    expect(stores.google.purchase(String(bought.body.purchaseToken))?.consumptionState).toBe(1);

    expect((await helper("/google/refund", { purchaseToken: bought.body.purchaseToken })).status).toBe(200);
    expect(await pollRefunds(project.projectId, "google")).toEqual({ applied: 1 });
    expect(await gemsOf(player)).toBe(0);
  });

  it("answer the server's Steam InitTxn and FinalizeTxn, the helper approving as the overlay would", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const order = await game(player, "/api/v1/economy/receipts/steam", { productId: "gems-500", steamId: "76561197960287930" });
    expect(order.status, JSON.stringify(order.body)).toBe(200);
    const orderId = order.body.orderId;
    expect((await game(player, "/api/v1/economy/receipts", { store: "steam", orderId })).body).toMatchObject({
      error: { code: "RECEIPT_PENDING" },
    });
    expect(await helper("/steam/approve", { orderId })).toEqual({ status: 200, body: { orderId, status: "Approved" } });
    const res = await game(player, "/api/v1/economy/receipts", { store: "steam", orderId });
    expect(res.body).toMatchObject({ status: "granted", productId: "gems-500" });
    expect(stores.steam.order(String(orderId)).status).toBe("Succeeded");
  });
});

describe("npm run stores:local", () => {
  const cli = path.join(root, "e2e/support/local-stores.mjs");

  it("refuses NODE_ENV=production", () => {
    const run = spawnSync(process.execPath, [cli], { env: { ...process.env, NODE_ENV: "production" }, encoding: "utf8" });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("refuses to run with NODE_ENV=production");
  });

  it("prints the server's environment and the demo project's client key, and reuses its files", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "local-stores-cli-"));
    writeFileSync(path.join(dataDir, "demo.json"), JSON.stringify({ apiKey: "gb_pk_demo", baseUrl: "http://localhost:3999" }));
    const printed = async () => {
      const child = spawn(process.execPath, [cli], {
        env: { ...process.env, NODE_ENV: "test", DATA_DIR: dataDir, LOCAL_STORES_PORT: "0" },
      });
      let out = "";
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes("Ctrl-C stops.")) resolve();
        });
        child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      child.kill("SIGTERM");
      return out;
    };
    try {
      const first = await printed();
      const rootFile = path.resolve(dataDir, "local-stores", "apple-root.der");
      expect(first).toMatch(
        new RegExp(
          `STORE_APPLE_ROOT_CERTIFICATES=${rootFile} STORE_GOOGLE_API_URL=http://127\\.0\\.0\\.1:\\d+ STORE_GOOGLE_TOKEN_URL=http://127\\.0\\.0\\.1:\\d+/token STORE_STEAM_API_URL=http://127\\.0\\.0\\.1:\\d+ STORE_REFUND_POLL_MINUTES=1 npm start`,
        ),
      );
      expect(first).toContain("KEY=gb_pk_demo");
      expect(first).toContain("GB=http://localhost:3999/api/v1");
      const publisherKey = /publisher key (\w+)/.exec(first)?.[1];
      expect(publisherKey).toBeTruthy();
      const rootDer = readFileSync(rootFile);
      // A second start keeps the root the server trusts and the credentials entered on the Store page.
      expect(/publisher key (\w+)/.exec(await printed())?.[1]).toBe(publisherKey);
      expect(readFileSync(rootFile).equals(rootDer)).toBe(true);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
