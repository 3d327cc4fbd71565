import type { Environment } from "@apple/app-store-server-library";
import { beforeAll, describe, expect, it } from "vitest";
import { pool } from "@/server/db";
import type { SessionOperator } from "@/server/identity/operator";
import { createCurrency, createItem } from "@/server/services/economy/definitions";
import { api } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";
import { caller, newOperator, trpcRefusal } from "../support/operators";
import { appleReceipt, sellOnAppleAs } from "../support/stores";

/**
 * The operators' side of store purchases through the tRPC router as the dashboard calls it:
 * credentials written and never read back, the Purchases list and its search, refunds by hand,
 * revenue. Purchases are real: App Store transactions signed by the suite's PKI, redeemed over HTTP.
 */
const PRIVATE_KEY =
  "-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQgSECRETSECRETSECRET\n-----END PRIVATE KEY-----";

type Seller = { project: TestProject; owner: SessionOperator; viewer: SessionOperator };

async function seller(): Promise<Seller> {
  const project = await makeProject();
  await createCurrency({ projectId: project.projectId, input: { id: "gems", name: "Gems", clientWritable: false } });
  await createItem({ projectId: project.projectId, input: { id: "vip-pass", name: "VIP pass" } });
  const owner = await newOperator("OWNER", project.projectId);
  await sellOnAppleAs(project.projectId, owner);
  return { project, owner, viewer: await newOperator("VIEWER", project.projectId) };
}

type Bought = { receiptId: string; transactionId: string; player: TestPlayer };

async function buy(s: Seller, o: { player?: TestPlayer; productId?: string; sandbox?: boolean } = {}): Promise<Bought> {
  const player = o.player ?? (await anonymousPlayer(s.project.clientKey));
  const receipt = appleReceipt({
    productId: o.productId ?? "com.example.game.gems500",
    ...(o.sandbox ? { environment: "Sandbox" as Environment } : {}),
  });
  const res = await api<{ receiptId: string }>("POST", "/api/v1/economy/receipts", {
    key: s.project.clientKey,
    token: player.accessToken,
    body: receipt.body,
  });
  expect(res.status, res.text).toBe(200);
  return { receiptId: res.body.receiptId, transactionId: receipt.transactionId, player };
}

const gemsOf = async (p: TestPlayer, key: string) =>
  (await api<Array<{ id: string; balance: number }>>("GET", "/api/v1/economy/currencies", { key, token: p.accessToken })).body.find(
    (b) => b.id === "gems",
  )?.balance;

let shop: Seller;
beforeAll(async () => {
  shop = await seller();
  await caller(shop.owner).store.setSettings({
    projectId: shop.project.projectId,
    input: {
      store: "apple",
      settings: { bundleId: "com.example.game", appAppleId: 1234567890, environments: "both" },
      secret: { keyId: "KEY123", issuerId: "issuer-1", privateKey: PRIVATE_KEY },
    },
  });
});

describe("store credentials", () => {
  it("are never read back: the settings show the hint and when the credential was set", async () => {
    const { stores } = await caller(shop.viewer).store.settings({ projectId: shop.project.projectId });
    const apple = stores.find((s) => s.store === "apple");
    expect(apple).toMatchObject({ configured: true, secretHint: "key KEY123, issuer issuer-1" });
    expect(apple?.secretUpdatedAt).toEqual(expect.any(String));
    expect(JSON.stringify(stores)).not.toContain("SECRETSECRET");
  });

  it("leave no secret in the audit rows of their change", async () => {
    const { rows } = await pool().query<{ before: unknown; after: unknown }>(
      "SELECT before, after FROM audit_log WHERE project_id = $1 AND action = 'store.settings.credential'",
      [shop.project.projectId],
    );
    expect(rows.length).toBe(1);
    expect(JSON.stringify(rows)).not.toContain("SECRETSECRET");
  });
});

describe("a viewer", () => {
  it.each([
    ["setSettings", { input: { store: "apple", settings: { bundleId: "com.example.game", environments: "both" } } }],
    ["setRefundPolicy", { policy: "ban" }],
    ["createProduct", { product: { id: "coins", name: "Coins", rewards: [{ currencyId: "gems", amount: 1 }], appleProductId: "x.coins" } }],
    ["deleteProduct", { id: "gems-500" }],
  ] as const)("is refused store.%s (FORBIDDEN)", async (procedure, input) => {
    const call = (caller(shop.viewer).store[procedure] as (i: unknown) => Promise<unknown>)({
      projectId: shop.project.projectId,
      ...input,
    });
    expect((await trpcRefusal(call)).code).toBe("FORBIDDEN");
  });

  it("is refused a refund by hand (FORBIDDEN) and the purchase stays granted", async () => {
    const bought = await buy(shop);
    const refusal = await trpcRefusal(
      caller(shop.viewer).store.refund({ projectId: shop.project.projectId, receiptId: bought.receiptId, reason: "not allowed" }),
    );
    expect(refusal.code).toBe("FORBIDDEN");
    const row = await caller(shop.viewer).store.purchase({ projectId: shop.project.projectId, receiptId: bought.receiptId });
    expect(row.status).toBe("granted");
  });
});

describe("the purchases list", () => {
  it("finds one purchase by its App Store transaction id (q)", async () => {
    const bought = await buy(shop);
    await buy(shop);
    const { purchases } = await caller(shop.viewer).store.purchases({ projectId: shop.project.projectId, q: bought.transactionId });
    expect(purchases.map((p) => p.receiptId)).toEqual([bought.receiptId]);
    expect(purchases[0]).toMatchObject({ store: "apple", productId: "gems-500", status: "granted", playerId: bought.player.playerId });
  });

  it("finds one purchase by our receipt id (q)", async () => {
    const bought = await buy(shop);
    const { purchases } = await caller(shop.viewer).store.purchases({ projectId: shop.project.projectId, q: bought.receiptId });
    expect(purchases.map((p) => p.storeTransactionId)).toEqual([bought.transactionId]);
  });

  it("filters by product and by player", async () => {
    const player = await anonymousPlayer(shop.project.clientKey);
    const vip = await buy(shop, { player, productId: "com.example.game.vip" });
    await buy(shop, { player });
    await buy(shop, { productId: "com.example.game.vip" });
    const { purchases } = await caller(shop.viewer).store.purchases({
      projectId: shop.project.projectId,
      productId: "vip",
      playerId: player.playerId,
    });
    expect(purchases.map((p) => p.receiptId)).toEqual([vip.receiptId]);
  });

  it("lists rejected receipts with their refusal code under status rejected", async () => {
    const player = await anonymousPlayer(shop.project.clientKey);
    const forged = { store: "apple", signedTransaction: "eyJhbGciOiJFUzI1NiJ9.e30.c2ln" };
    const res = await api("POST", "/api/v1/economy/receipts", { key: shop.project.clientKey, token: player.accessToken, body: forged });
    expect(res.status).toBe(422);
    const { purchases } = await caller(shop.viewer).store.purchases({
      projectId: shop.project.projectId,
      status: "rejected",
      playerId: player.playerId,
    });
    expect(purchases).toEqual([expect.objectContaining({ status: "rejected", refusal: "RECEIPT_INVALID" })]);
  });

  it("pages newest first with a cursor, every purchase once", async () => {
    const player = await anonymousPlayer(shop.project.clientKey);
    const bought = [];
    for (let i = 0; i < 5; i++) bought.push((await buy(shop, { player })).receiptId);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { purchases: Array<{ receiptId: string }>; nextCursor: string | null } = await caller(shop.viewer).store.purchases({
        projectId: shop.project.projectId,
        playerId: player.playerId,
        limit: 2,
        cursor,
      });
      seen.push(...page.purchases.map((p) => p.receiptId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...bought].reverse());
  });
});

describe("player search", () => {
  it("finds the player who redeemed a store transaction id", async () => {
    const bought = await buy(shop);
    const found = await caller(shop.viewer).players.search({ projectId: shop.project.projectId, query: bought.transactionId });
    expect(found.players.map((p) => p.id)).toEqual([bought.player.playerId]);
  });
});

describe("a refund by hand", () => {
  it("takes back what the purchase granted, marks it refunded with the reason and writes an audit row", async () => {
    const bought = await buy(shop);
    expect(await gemsOf(bought.player, shop.project.clientKey)).toBe(500);
    await caller(shop.owner).store.refund({
      projectId: shop.project.projectId,
      receiptId: bought.receiptId,
      reason: "chargeback by e-mail",
    });
    expect(await gemsOf(bought.player, shop.project.clientKey)).toBe(0);
    const detail = await caller(shop.viewer).store.purchase({ projectId: shop.project.projectId, receiptId: bought.receiptId });
    expect(detail).toMatchObject({ status: "refunded", refundReason: "by hand: chargeback by e-mail", shortfall: [] });
    expect(detail.refund?.currencies).toEqual([expect.objectContaining({ id: "gems", delta: -500 })]);
    const audit = await pool().query<{ operator_id: string; after: { reason: string } }>(
      "SELECT operator_id, after FROM audit_log WHERE project_id = $1 AND action = 'store.purchase.refund' AND target = $2",
      [shop.project.projectId, bought.receiptId],
    );
    expect(audit.rows).toEqual([
      expect.objectContaining({ operator_id: shop.owner.id, after: expect.objectContaining({ reason: "chargeback by e-mail" }) }),
    ]);
  });

  it("records as shortfall what the player already spent", async () => {
    const bought = await buy(shop);
    await caller(shop.owner).economy.adjust({
      projectId: shop.project.projectId,
      playerId: bought.player.playerId,
      direction: "revoke",
      currencies: [{ currencyId: "gems", amount: 300 }],
      reason: "spent in the game",
    });
    await caller(shop.owner).store.refund({
      projectId: shop.project.projectId,
      receiptId: bought.receiptId,
      reason: "refunded by support",
    });
    const detail = await caller(shop.viewer).store.purchase({ projectId: shop.project.projectId, receiptId: bought.receiptId });
    expect(detail.shortfall).toEqual([{ id: "gems", kind: "currency", amount: 300 }]);
  });
});

describe("revenue", () => {
  it("counts today's production sales still granted, per product and currency, leaving out sandbox and refunded ones", async () => {
    const s = await seller();
    await buy(s);
    await buy(s);
    await buy(s, { sandbox: true });
    const refunded = await buy(s);
    await caller(s.owner).store.refund({ projectId: s.project.projectId, receiptId: refunded.receiptId, reason: "refund" });
    const revenue = await caller(s.viewer).store.revenue({ projectId: s.project.projectId, days: 30 });
    const today = new Date().toISOString().slice(0, 10);
    expect(revenue.perDay).toEqual([{ day: today, productId: "gems-500", currency: "USD", count: 2, grossMicros: 3_980_000 }]);
    expect(revenue.perProduct).toEqual([{ productId: "gems-500", currency: "USD", count: 2, grossMicros: 3_980_000, refunded: 1 }]);
  });
});
