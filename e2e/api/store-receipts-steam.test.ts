import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pool } from "@/server/db";
import { pollRefunds } from "@/server/services/store/notifications";
import { dedicatedApp } from "../support/dedicated-app";
import { type FakeSteam, startFakeSteam } from "../support/fake-steam.mjs";
import type { TestPlayer, TestProject } from "../support/fixtures";
import { addTestStoreProducts, sellOnSteamAs, storeTestProject } from "../support/stores";

/**
 * Steam microtransactions against a fake ISteamMicroTxn on loopback (e2e/support/fake-steam.mjs
 * answers InitTxn, QueryTxn, FinalizeTxn and GetReport as Steam's partner documentation describes):
 * start the order → the player approves in the overlay (the fake's approve) → redeem → granted once.
 */
const APP_ID = "480";
const KEY = "0123456789ABCDEF0123456789ABCDEF";
const STEAM_ID = "76561197960287930";
let steam: FakeSteam;
beforeAll(async () => {
  steam = await startFakeSteam({ apiKey: KEY, appId: APP_ID });
  // This test process polls refunds itself (pollRefunds): its services must reach the same fake.
  process.env.STORE_STEAM_API_URL = steam.url;
});
afterAll(async () => {
  await steam?.close();
});
const app = dedicatedApp(() => ({
  STORE_STEAM_API_URL: steam.url,
  STORE_TIMEOUT_MS: "3000",
  STORE_RETRIES: "2",
  STORE_REFUND_POLL_MINUTES: "0",
}));

let project: TestProject;
beforeAll(async () => {
  const made = await storeTestProject();
  project = made.project;
  await sellOnSteamAs(project.projectId, made.owner, { appId: APP_ID, publisherKey: KEY });
  await addTestStoreProducts(project.projectId);
});

type Answer = { status: number; body: Record<string, unknown> & { error?: { code: string } } };
const call = async (path: string, o: { player?: TestPlayer; body?: unknown; method?: string } = {}): Promise<Answer> => {
  const res = await fetch(`${app().baseUrl}${path}`, {
    method: o.method ?? "POST",
    headers: {
      "Content-Type": "application/json",
      "X-API-Key": project.clientKey,
      ...(o.player ? { Authorization: `Bearer ${o.player.accessToken}` } : {}),
    },
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Answer["body"] };
};
const signIn = async () => (await call("/api/v1/auth/anonymous")).body as unknown as TestPlayer;
const start = async (player: TestPlayer, productId = "gems-500") =>
  call("/api/v1/economy/receipts/steam", { player, body: { productId, steamId: STEAM_ID } });
const redeem = (player: TestPlayer, orderId: string) => call("/api/v1/economy/receipts", { player, body: { store: "steam", orderId } });
const gemsOf = async (player: TestPlayer) =>
  ((await call("/api/v1/economy/currencies", { player, method: "GET" })).body as unknown as Array<{ id: string; balance: number }>).find(
    (b) => b.id === "gems",
  )?.balance;
const started = async (player: TestPlayer) => {
  const res = await start(player);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return String(res.body.orderId);
};

describe("a Steam microtransaction", () => {
  it("is started with InitTxn at the product's Steam item and price", async () => {
    const player = await signIn();
    const orderId = await started(player);
    expect(steam.order(orderId)).toMatchObject({ steamid: STEAM_ID, status: "Init", items: [{ itemid: 1001, qty: 1, amount: 499 }] });
  });

  it("redeemed before the player approved is 409 RECEIPT_PENDING", async () => {
    const player = await signIn();
    const orderId = await started(player);
    const res = await redeem(player, orderId);
    expect([res.status, res.body.error?.code]).toEqual([409, "RECEIPT_PENDING"]);
    expect(await gemsOf(player)).toBe(0);
  });

  it("redeemed after approval is finalized with Steam and granted", async () => {
    const player = await signIn();
    const orderId = await started(player);
    steam.approve(orderId);
    const res = await redeem(player, orderId);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ storeTransactionId: orderId, productId: "gems-500", replayed: false });
    expect(steam.order(orderId).status).toBe("Succeeded");
    expect(await gemsOf(player)).toBe(500);
  });

  it("redeemed again answers the first result; by another player it is 409 RECEIPT_ALREADY_USED", async () => {
    const [player, other] = [await signIn(), await signIn()];
    const orderId = await started(player);
    steam.approve(orderId);
    await redeem(player, orderId);
    expect((await redeem(player, orderId)).body.replayed).toBe(true);
    expect((await redeem(other, orderId)).body.error?.code).toBe("RECEIPT_ALREADY_USED");
    expect(await gemsOf(player)).toBe(500);
    expect(await gemsOf(other)).toBe(0);
  });

  it("whose FinalizeTxn answer was lost (Steam finalized it) is granted once on the retry", async () => {
    const player = await signIn();
    const orderId = await started(player);
    steam.approve(orderId);
    steam.failNext(1, 500, { call: "FinalizeTxn", processed: true });
    const res = await redeem(player, orderId);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await redeem(player, orderId)).body.replayed).toBe(true);
    expect(await gemsOf(player)).toBe(500);
  });

  it("declined in the overlay is 422 RECEIPT_CANCELLED", async () => {
    const player = await signIn();
    const orderId = await started(player);
    steam.decline(orderId);
    expect((await redeem(player, orderId)).body.error?.code).toBe("RECEIPT_CANCELLED");
    expect(await gemsOf(player)).toBe(0);
  });

  it("with an order id this project never started is 422 RECEIPT_INVALID", async () => {
    expect((await redeem(await signIn(), "123456789")).body.error?.code).toBe("RECEIPT_INVALID");
  });

  it("for a product without a Steam item is refused at the start with 422 RECEIPT_WRONG_PRODUCT", async () => {
    const res = await start(await signIn(), "vip");
    expect([res.status, res.body.error?.code]).toEqual([422, "RECEIPT_WRONG_PRODUCT"]);
  });

  it("refunded at Steam is taken back by the refund poll, once", async () => {
    const player = await signIn();
    const orderId = await started(player);
    steam.approve(orderId);
    await redeem(player, orderId);
    steam.refund(orderId);
    await pollRefunds(project.projectId, "steam");
    await pollRefunds(project.projectId, "steam");
    expect(await gemsOf(player)).toBe(0);
    const { rows } = await pool().query<{ status: string }>(
      "SELECT status FROM store_transactions WHERE project_id = $1 AND store = 'steam' AND store_transaction_id = $2",
      [project.projectId, orderId],
    );
    expect(rows).toEqual([{ status: "refunded" }]);
  });
});
