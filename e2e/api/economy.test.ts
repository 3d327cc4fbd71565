import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { OperatorActor } from "@/server/actor";
import { pool } from "@/server/db";
import {
  createCurrency,
  createItem,
  createPurchase,
  deleteCurrency,
  deleteItem,
  deletePurchase,
  listPurchases,
  updateCurrency,
  updateItem,
  updatePurchase,
} from "@/server/services/economy/definitions";
import { adjustPlayerEconomy, listTransactions } from "@/server/services/economy/wallet";
import { banPlayer } from "@/server/services/players/bans";
import {
  type ApiOptions,
  type ApiResponse,
  api,
  definitionCachesExpired,
  expectError,
  sessionCachesExpired,
  untilAnswered,
} from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";

type Balance = { id: string; name: string; balance: number };
type Change = Balance & { transactionId: string };
type PurchaseResult = {
  transactionId: string;
  purchaseId: string;
  quantity: number;
  balances: Array<{ id: string; balance: number }>;
  inventory: Array<{ itemId: string; quantity: number }>;
};
type Ledger = {
  transactions: Array<{
    id: string;
    kind: string;
    purchaseId: string | null;
    currencies: Array<{ id: string; delta: number; balance: number }>;
    items: Array<{ itemId: string; delta: number; quantity: number }>;
  }>;
  nextCursor: string | null;
};

/** The demo's economy in a project of this file's own. */
async function economyProject(): Promise<TestProject> {
  const project = await makeProject();
  const projectId = project.projectId;
  await createCurrency({ projectId, input: { id: "coins", name: "Coins", initialBalance: 100, maxBalance: 1_000_000 } });
  await createCurrency({ projectId, input: { id: "gems", name: "Gems", initialBalance: 0, clientWritable: false } });
  await createItem({ projectId, input: { id: "sword", name: "Sword" } });
  await createItem({ projectId, input: { id: "potion", name: "Potion", maxStack: 50 } });
  await createPurchase({
    projectId,
    input: { id: "buy-potion", name: "Potion", costs: [{ currencyId: "coins", amount: 10 }], rewards: [{ itemId: "potion", quantity: 1 }] },
  });
  await createPurchase({
    projectId,
    input: {
      id: "buy-sword",
      name: "Sword",
      costs: [
        { currencyId: "coins", amount: 50 },
        { currencyId: "gems", amount: 1 },
      ],
      rewards: [{ itemId: "sword", quantity: 1 }],
    },
  });
  return project;
}

let project: TestProject;
beforeAll(async () => {
  project = await economyProject();
});

const as = (p: TestPlayer, extra: ApiOptions = {}): ApiOptions => ({ key: project.clientKey, token: p.accessToken, ...extra });
const asServer = (p: TestPlayer): ApiOptions => ({ key: project.serverKey, headers: { "X-Player-Id": p.playerId } });
const balances = async (p: TestPlayer) => (await api<Balance[]>("GET", "/api/v1/economy/currencies", as(p))).body;
const balanceOf = async (p: TestPlayer, id: string) => (await balances(p)).find((b) => b.id === id)?.balance;
const change = (p: TestPlayer, id: string, dir: "add" | "subtract", amount: unknown, o: ApiOptions = as(p)) =>
  api<Change>("POST", `/api/v1/economy/currencies/${id}/${dir}`, { ...o, body: { amount } });
const buy = (p: TestPlayer, purchaseId: string, quantity?: number, o: ApiOptions = as(p)) =>
  api<PurchaseResult>("POST", "/api/v1/economy/purchase", {
    ...o,
    body: quantity === undefined ? { purchaseId } : { purchaseId, quantity },
  });
const inventory = async (p: TestPlayer) =>
  (await api<Array<{ itemId: string; quantity: number }>>("GET", "/api/v1/economy/inventory", as(p))).body.map((i) => [
    i.itemId,
    i.quantity,
  ]);
const ledgerRows = async (playerId: string) =>
  (await listTransactions({ projectId: project.projectId, playerId, limit: 100 })).transactions;
const operator = (): OperatorActor => ({
  kind: "operator",
  projectId: project.projectId,
  operatorId: "00000000-0000-7000-8000-000000000001",
  role: "ADMIN",
});

/** balance = initial + the sum of the ledger's deltas, for every wallet of the project. */
async function expectLedgerInvariant(projectId: string): Promise<number> {
  const { rows } = await pool().query<{ player_id: string; currency_id: string; balance: string; initial_balance: string; ledger: string }>(
    `SELECT w.player_id, w.currency_id, w.balance, w.initial_balance,
            coalesce((SELECT sum((c->>'delta')::bigint) FROM economy_transactions t, jsonb_array_elements(t.currencies) c
                       WHERE t.project_id = w.project_id AND t.player_id = w.player_id AND c->>'id' = w.currency_id), 0) AS ledger
       FROM wallets w WHERE w.project_id = $1`,
    [projectId],
  );
  for (const r of rows) {
    expect(BigInt(r.balance), `${r.player_id} ${r.currency_id}`).toBe(BigInt(r.initial_balance) + BigInt(r.ledger));
    expect(BigInt(r.balance)).toBeGreaterThanOrEqual(0n);
  }
  const items = await pool().query<{ quantity: string; ledger: string }>(
    `SELECT i.quantity, coalesce((SELECT sum((x->>'delta')::bigint) FROM economy_transactions t, jsonb_array_elements(t.items) x
                                   WHERE t.project_id = i.project_id AND t.player_id = i.player_id AND x->>'itemId' = i.item_id), 0) AS ledger
       FROM inventory i WHERE i.project_id = $1`,
    [projectId],
  );
  for (const r of items.rows) expect(BigInt(r.quantity)).toBe(BigInt(r.ledger));
  return rows.length;
}

describe("balances, add and subtract", () => {
  it("lists every currency with its initial balance on first read", async () => {
    const p = await anonymousPlayer(project.clientKey);
    expect(await balances(p)).toEqual([
      { id: "coins", name: "Coins", balance: 100 },
      { id: "gems", name: "Gems", balance: 0 },
    ]);
  });

  it("a balance starts at the initial balance of the moment it was first read", async () => {
    const projectB = await makeProject();
    await createCurrency({ projectId: projectB.projectId, input: { id: "gold", name: "Gold", initialBalance: 5 } });
    const p = await anonymousPlayer(projectB.clientKey);
    const read = () => api<Balance[]>("GET", "/api/v1/economy/currencies", { key: projectB.clientKey, token: p.accessToken });
    expect((await read()).body).toEqual([{ id: "gold", name: "Gold", balance: 5 }]);
    await updateCurrency({ projectId: projectB.projectId, id: "gold", input: { initialBalance: 50 } });
    await definitionCachesExpired();
    expect((await read()).body[0]?.balance).toBe(5);
    const q = await anonymousPlayer(projectB.clientKey);
    expect(
      (await api<Balance[]>("GET", "/api/v1/economy/currencies", { key: projectB.clientKey, token: q.accessToken })).body[0]?.balance,
    ).toBe(50);
  });

  it("adds and subtracts, answering the balance and the ledger entry; the ledger lists both, newest first", async () => {
    const p = await anonymousPlayer(project.clientKey);
    const added = await change(p, "coins", "add", 25);
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ id: "coins", name: "Coins", balance: 125 });
    const taken = await change(p, "coins", "subtract", 120);
    expect(taken.body.balance).toBe(5);
    const ledger = await api<Ledger>("GET", "/api/v1/economy/transactions", as(p));
    expect(ledger.body.transactions.map((t) => [t.id, t.kind, t.currencies])).toEqual([
      [taken.body.transactionId, "subtract", [{ id: "coins", delta: -120, balance: 5 }]],
      [added.body.transactionId, "add", [{ id: "coins", delta: 25, balance: 125 }]],
    ]);
    expect(ledger.body.nextCursor).toBeNull();
  });

  it("refuses going below zero (409 INSUFFICIENT_FUNDS with details) and above the max (409 CURRENCY_MAX_EXCEEDED), changing nothing", async () => {
    const p = await anonymousPlayer(project.clientKey);
    const short = await change(p, "coins", "subtract", 101);
    expectError(short, 409, "INSUFFICIENT_FUNDS");
    expect((short.body as unknown as { error: { details: unknown } }).error.details).toEqual({
      currencyId: "coins",
      balance: 100,
      requested: 101,
    });
    expectError(await change(p, "coins", "add", 1_000_000 - 99), 409, "CURRENCY_MAX_EXCEEDED");
    expect((await change(p, "coins", "add", 1_000_000 - 100)).body.balance).toBe(1_000_000);
    expect(await balanceOf(p, "coins")).toBe(1_000_000);
    expect(await ledgerRows(p.playerId)).toHaveLength(1);
  });

  it("a max lowered below what a player holds never refuses taking some away (currency and stack); adding still is", async () => {
    // A project the app has not read yet: its definition cache holds nothing older than the lowered max.
    const own = await makeProject();
    const projectId = own.projectId;
    await createCurrency({ projectId, input: { id: "coins", name: "Coins", initialBalance: 0, maxBalance: 1000 } });
    await createItem({ projectId, input: { id: "potion", name: "Potion", maxStack: 50 } });
    await createPurchase({ projectId, input: { id: "drink", name: "Drink", costs: [{ itemId: "potion", quantity: 1 }], rewards: [] } });
    const p = await anonymousPlayer(own.clientKey);
    const admin: OperatorActor = { ...operator(), projectId };
    const grant = { currencies: [{ currencyId: "coins", amount: 500 }], items: [{ itemId: "potion", quantity: 40 }] };
    await adjustPlayerEconomy({ actor: admin, playerId: p.playerId, direction: "grant", ...grant, reason: "before the change" });
    await updateCurrency({ projectId, id: "coins", input: { maxBalance: 100 } });
    await updateItem({ projectId, id: "potion", input: { maxStack: 10 } });
    const mine = { key: own.clientKey, token: p.accessToken };
    const taken = await change(p, "coins", "subtract", 10, mine);
    expect([taken.status, taken.body.balance]).toEqual([200, 490]);
    const drunk = await buy(p, "drink", 1, mine);
    expect([drunk.status, drunk.body.inventory]).toEqual([200, [{ itemId: "potion", quantity: 39 }]]);
    expectError(await change(p, "coins", "add", 1, mine), 409, "CURRENCY_MAX_EXCEEDED");
  });

  it("rejects non-integer, negative, zero, huge and string amounts and unknown fields with 400", async () => {
    const p = await anonymousPlayer(project.clientKey);
    for (const amount of [1.5, -1, 0, 2 ** 53, 1e300, "10", null, true, [1], { n: 1 }]) {
      expectError(await change(p, "coins", "add", amount), 400, "VALIDATION_ERROR");
    }
    expectError(
      await api("POST", "/api/v1/economy/currencies/coins/add", { ...as(p), body: { amount: 1, note: "x" } }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(await api("POST", "/api/v1/economy/currencies/coins/add", { ...as(p), body: "{" }), 400, "INVALID_JSON");
    expect(await balanceOf(p, "coins")).toBe(100);
  });

  it("server-only currencies refuse client keys (403) and accept a server key with X-Player-Id", async () => {
    const p = await anonymousPlayer(project.clientKey);
    expectError(await change(p, "gems", "add", 5), 403, "CLIENT_WRITE_FORBIDDEN");
    const res = await change(p, "gems", "add", 5, asServer(p));
    expect(res.body.balance).toBe(5);
    const ledger = await listTransactions({ projectId: project.projectId, playerId: p.playerId, limit: 10, audit: true });
    expect(ledger.transactions[0]).toMatchObject({ kind: "add", actor: { kind: "server-key", id: p.playerId } });
  });

  it("unknown currencies are 404 CURRENCY_NOT_FOUND; another project's currency is unknown too", async () => {
    const p = await anonymousPlayer(project.clientKey);
    expectError(await change(p, "diamonds", "add", 1), 404, "CURRENCY_NOT_FOUND");
    const other = await economyProject();
    const stranger = await anonymousPlayer(other.clientKey);
    await api("POST", "/api/v1/economy/currencies/coins/add", { key: other.clientKey, token: stranger.accessToken, body: { amount: 7 } });
    expect(await balanceOf(p, "coins")).toBe(100); // other project's change, not ours
    expectError(
      await api("POST", "/api/v1/economy/currencies/coins/add", {
        key: project.clientKey,
        token: stranger.accessToken,
        body: { amount: 1 },
      }),
      401,
      "INVALID_TOKEN",
    );
  });

  it("a banned player changes nothing (403 PLAYER_BANNED)", async () => {
    const p = await anonymousPlayer(project.clientKey);
    await balances(p);
    await banPlayer({ projectId: project.projectId, playerId: p.playerId, reason: "fraud" });
    await sessionCachesExpired();
    expectError(await change(p, "coins", "add", 5), 403, "PLAYER_BANNED");
    expectError(await buy(p, "buy-potion"), 403, "PLAYER_BANNED");
    expect(await ledgerRows(p.playerId)).toHaveLength(0);
  });
});

describe("purchases and inventory", () => {
  it("buys with quantity: costs and rewards multiplied, answer lists what it touched; the inventory shows it", async () => {
    const p = await anonymousPlayer(project.clientKey);
    const res = await buy(p, "buy-potion", 3);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      purchaseId: "buy-potion",
      quantity: 3,
      balances: [{ id: "coins", balance: 70 }],
      inventory: [{ itemId: "potion", quantity: 3 }],
    });
    expect(await inventory(p)).toEqual([["potion", 3]]);
    const ledger = await api<Ledger>("GET", "/api/v1/economy/transactions", as(p));
    expect(ledger.body.transactions[0]).toMatchObject({
      id: res.body.transactionId,
      kind: "purchase",
      purchaseId: "buy-potion",
      currencies: [{ id: "coins", delta: -30, balance: 70 }],
      items: [{ itemId: "potion", delta: 3, quantity: 3 }],
    });
  });

  it("is all or nothing: a sword needs a gem too; without it nothing is taken (409 INSUFFICIENT_FUNDS)", async () => {
    const p = await anonymousPlayer(project.clientKey);
    const refused = await buy(p, "buy-sword");
    expectError(refused, 409, "INSUFFICIENT_FUNDS");
    expect((refused.body as unknown as { error: { details: unknown } }).error.details).toEqual({
      currencyId: "gems",
      balance: 0,
      requested: 1,
    });
    expect(await balanceOf(p, "coins")).toBe(100);
    expect(await inventory(p)).toEqual([]);
    await change(p, "gems", "add", 1, asServer(p));
    expect((await buy(p, "buy-sword")).body.balances).toEqual([
      { id: "coins", balance: 50 },
      { id: "gems", balance: 0 },
    ]);
    expect(await inventory(p)).toEqual([["sword", 1]]);
  });

  it("refuses a stack above the item's max (409 ITEM_MAX_EXCEEDED), unknown purchases (404) and bad quantities (400)", async () => {
    const p = await anonymousPlayer(project.clientKey);
    await change(p, "coins", "add", 10_000);
    expect((await buy(p, "buy-potion", 50)).status).toBe(200);
    expectError(await buy(p, "buy-potion", 1), 409, "ITEM_MAX_EXCEEDED");
    expectError(await buy(p, "buy-nothing"), 404, "PURCHASE_NOT_FOUND");
    for (const q of [0, 101, 1.5, -1]) expectError(await buy(p, "buy-potion", q), 400, "VALIDATION_ERROR");
    expectError(
      await api("POST", "/api/v1/economy/purchase", { ...as(p), body: { purchaseId: "buy-potion", quantity: "2" } }),
      400,
      "VALIDATION_ERROR",
    );
    expect(await inventory(p)).toEqual([["potion", 50]]);
  });

  it("a player funded for exactly 10 potions fires 200 parallel purchases: exactly 10 succeed, the rest 409, balance 0, 10 potions, 10 ledger rows", async () => {
    const p = await anonymousPlayer(project.clientKey);
    // 503s (a busy machine queues 200 at once past the pool's wait) are sent again: untilAnswered.
    const results = await Promise.all(Array.from({ length: 200 }, () => untilAnswered(() => buy(p, "buy-potion"))));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(10);
    for (const r of results) if (r.status !== 200) expectError(r, 409, "INSUFFICIENT_FUNDS");
    expect(await balanceOf(p, "coins")).toBe(0);
    expect(await inventory(p)).toEqual([["potion", 10]]);
    expect(await ledgerRows(p.playerId)).toHaveLength(10);
    await expectLedgerInvariant(project.projectId);
  });
});

describe("Idempotency-Key on add, subtract and purchase", () => {
  const key = () => ({ "Idempotency-Key": `k-${randomBytes(6).toString("hex")}` });

  it("replays a repeated purchase with the same status and body and charges once; another body is 422", async () => {
    const p = await anonymousPlayer(project.clientKey);
    const headers = key();
    const first = await buy(p, "buy-potion", 2, as(p, { headers }));
    const again = await buy(p, "buy-potion", 2, as(p, { headers }));
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expectError(await buy(p, "buy-potion", 3, as(p, { headers })), 422, "IDEMPOTENCY_KEY_REUSED");
    expectError(await change(p, "coins", "add", 1, as(p, { headers })), 422, "IDEMPOTENCY_KEY_REUSED");
    expect(await balanceOf(p, "coins")).toBe(80);
    const rows = await listTransactions({ projectId: project.projectId, playerId: p.playerId, limit: 10, audit: true });
    expect(rows.transactions).toHaveLength(1);
    const stored = await pool().query("SELECT idempotency_key, request_id FROM economy_transactions WHERE id = $1", [
      first.body.transactionId,
    ]);
    expect(stored.rows[0]).toEqual({ idempotency_key: headers["Idempotency-Key"], request_id: first.headers.get("x-request-id") });
  });

  it("the same key sent 50 times in parallel makes one change; the others replay or answer 409 IDEMPOTENCY_IN_PROGRESS", async () => {
    const p = await anonymousPlayer(project.clientKey);
    const headers = key();
    const results = await Promise.all(Array.from({ length: 50 }, () => change(p, "coins", "subtract", 7, as(p, { headers }))));
    for (const r of results) if (r.status !== 200) expectError(r, 409, "IDEMPOTENCY_IN_PROGRESS");
    const fresh = results.filter((r) => r.status === 200 && r.headers.get("idempotent-replayed") === null);
    expect(fresh).toHaveLength(1);
    for (const r of results.filter((x) => x.status === 200)) expect(r.body).toEqual(fresh[0]?.body);
    expect(await balanceOf(p, "coins")).toBe(93);
    expect(await ledgerRows(p.playerId)).toHaveLength(1);
  });

  it("a refused change is not recorded: its retry with the same key runs again", async () => {
    const p = await anonymousPlayer(project.clientKey);
    const headers = key();
    expectError(await change(p, "coins", "subtract", 150, as(p, { headers })), 409, "INSUFFICIENT_FUNDS");
    await change(p, "coins", "add", 50);
    const retried = await change(p, "coins", "subtract", 150, as(p, { headers }));
    expect(retried.status).toBe(200);
    expect(retried.body.balance).toBe(0);
  });
});

describe("the ledger", () => {
  it("pages newest first with a cursor; a bad cursor or limit is 400", async () => {
    const p = await anonymousPlayer(project.clientKey);
    for (let i = 1; i <= 7; i++) await change(p, "coins", "add", i);
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: ApiResponse<Ledger> = await api<Ledger>(
        "GET",
        `/api/v1/economy/transactions?limit=3${cursor ? `&cursor=${cursor}` : ""}`,
        as(p),
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.transactions.map((t) => t.currencies[0]?.delta ?? 0));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1]);
    for (const q of ["limit=0", "limit=101", "cursor=nonsense", "extra=1"]) {
      expectError(await api("GET", `/api/v1/economy/transactions?${q}`, as(p)), 400, "VALIDATION_ERROR");
    }
  });

  it("shows only the caller's own entries", async () => {
    const a = await anonymousPlayer(project.clientKey);
    const b = await anonymousPlayer(project.clientKey);
    await change(a, "coins", "add", 1);
    expect((await api<Ledger>("GET", "/api/v1/economy/transactions", as(b))).body.transactions).toEqual([]);
  });
});

describe("operators", () => {
  it("grant and revoke currency and items with a reason, recorded as the operator's change", async () => {
    const p = await anonymousPlayer(project.clientKey);
    await adjustPlayerEconomy({
      actor: operator(),
      playerId: p.playerId,
      direction: "grant",
      currencies: [{ currencyId: "gems", amount: 3 }],
      items: [{ itemId: "sword", quantity: 2 }],
      reason: "apology for the outage",
    });
    await adjustPlayerEconomy({
      actor: operator(),
      playerId: p.playerId,
      direction: "revoke",
      items: [{ itemId: "sword", quantity: 1 }],
      reason: "duplicate",
    });
    await expect(
      adjustPlayerEconomy({
        actor: operator(),
        playerId: p.playerId,
        direction: "revoke",
        currencies: [{ currencyId: "gems", amount: 4 }],
        reason: "x",
      }),
    ).rejects.toMatchObject({ code: "INSUFFICIENT_FUNDS" });
    expect(await balanceOf(p, "gems")).toBe(3);
    expect(await inventory(p)).toEqual([["sword", 1]]);
    const ledger = await listTransactions({ projectId: project.projectId, playerId: p.playerId, limit: 10, audit: true });
    expect(ledger.transactions.map((t) => [t.kind, t.reason, (t as { actor?: { kind: string } }).actor?.kind])).toEqual([
      ["revoke", "duplicate", "operator"],
      ["grant", "apology for the outage", "operator"],
    ]);
    await expect(
      adjustPlayerEconomy({
        actor: operator(),
        playerId: "0196a000-0000-7000-8000-000000000000",
        direction: "grant",
        currencies: [{ currencyId: "gems", amount: 1 }],
        reason: "x",
      }),
    ).rejects.toMatchObject({ code: "PLAYER_NOT_FOUND" });
  });

  it("refuses to delete definitions players hold or purchases refer to (409 IN_USE); unused ones go", async () => {
    const own = await economyProject();
    const projectId = own.projectId;
    await expect(deleteCurrency({ projectId, id: "coins" })).rejects.toMatchObject({ code: "IN_USE", details: { reason: "referenced" } });
    await expect(deleteItem({ projectId, id: "potion" })).rejects.toMatchObject({ code: "IN_USE" });
    await deletePurchase({ projectId, id: "buy-potion" });
    const p = await anonymousPlayer(own.clientKey);
    await api("POST", "/api/v1/economy/currencies/gems/add", {
      key: own.serverKey,
      headers: { "X-Player-Id": p.playerId },
      body: { amount: 1 },
    });
    await deletePurchase({ projectId, id: "buy-sword" });
    await expect(deleteCurrency({ projectId, id: "gems" })).rejects.toMatchObject({ code: "IN_USE", details: { reason: "held" } });
    await deleteItem({ projectId, id: "potion" });
    await createCurrency({ projectId, input: { id: "tokens", name: "Tokens" } });
    await definitionCachesExpired();
    await api("GET", "/api/v1/economy/currencies", { key: own.clientKey, token: p.accessToken }); // wallets: coins 100, tokens 0
    await expect(deleteCurrency({ projectId, id: "coins" })).rejects.toMatchObject({ code: "IN_USE", details: { reason: "held" } });
    await deleteCurrency({ projectId, id: "tokens" }); // an empty wallet is not holding it
    expect((await pool().query("SELECT 1 FROM wallets WHERE project_id = $1 AND currency_id = 'tokens'", [projectId])).rowCount).toBe(0);
    await expect(
      createPurchase({ projectId, input: { id: "x", name: "x", costs: [{ currencyId: "tokens", amount: 1 }], rewards: [] } }),
    ).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
    });
    await expect(createCurrency({ projectId, input: { id: "gems", name: "again" } })).rejects.toMatchObject({ code: "ALREADY_EXISTS" });
  });
});

describe("what a purchase must change", () => {
  it("refuses rewards that are exactly the costs (in any order), on create and on update, with a VALIDATION_ERROR naming why", async () => {
    const { projectId } = project;
    const lines = [
      { currencyId: "coins", amount: 1 },
      { itemId: "sword", quantity: 2 },
    ];
    const refusal = {
      code: "VALIDATION_ERROR",
      details: { issues: [{ path: "rewards", message: "The rewards are the same as the costs: buying it would change nothing." }] },
    };
    await expect(
      createPurchase({ projectId, input: { id: "loop", name: "Loop", costs: lines, rewards: [...lines].reverse() } }),
    ).rejects.toMatchObject(refusal);
    await expect(
      updatePurchase({ projectId, id: "buy-potion", input: { rewards: [{ currencyId: "coins", amount: 10 }] } }),
    ).rejects.toMatchObject(refusal);
    const listed = await listPurchases({ projectId });
    expect(listed.map((p) => p.id)).not.toContain("loop");
    expect(listed.find((p) => p.id === "buy-potion")?.rewards).toEqual([{ itemId: "potion", quantity: 1 }]);
  });

  it("the same lines with another amount are a real exchange and are kept", async () => {
    const { projectId } = project;
    const created = await createPurchase({
      projectId,
      input: {
        id: "exchange",
        name: "Exchange",
        costs: [{ currencyId: "coins", amount: 10 }],
        rewards: [{ currencyId: "coins", amount: 11 }],
      },
    });
    expect(created.rewards).toEqual([{ currencyId: "coins", amount: 11 }]);
  });

  it("allows a purchase that costs nothing (a daily gift) and refuses one with no lines at all", async () => {
    const { projectId } = project;
    const gift = await createPurchase({
      projectId,
      input: { id: "daily-gift", name: "Daily gift", costs: [], rewards: [{ itemId: "potion", quantity: 1 }] },
    });
    expect(gift.costs).toEqual([]);
    await expect(createPurchase({ projectId, input: { id: "nothing", name: "Nothing", costs: [], rewards: [] } })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
      details: { issues: [{ path: "rewards", message: "A purchase needs costs or rewards." }] },
    });
  });
});

describe("a seeded random mix of parallel changes across players", () => {
  it("keeps every balance = initial + ledger, nothing negative or above its max", async () => {
    const ps = await Promise.all(Array.from({ length: 6 }, () => anonymousPlayer(project.clientKey)));
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const ops = Array.from({ length: 240 }, () => {
      const p = ps[Math.floor(random() * ps.length)] as TestPlayer;
      const roll = random();
      if (roll < 0.35) return () => change(p, "coins", "add", 1 + Math.floor(random() * 40));
      if (roll < 0.6) return () => change(p, "coins", "subtract", 1 + Math.floor(random() * 60));
      if (roll < 0.85) return () => buy(p, "buy-potion", 1 + Math.floor(random() * 3));
      return () => buy(p, "buy-sword");
    });
    const results = await Promise.all(ops.map((op) => untilAnswered(op as () => Promise<ApiResponse>)));
    for (const r of results) expect([200, 409]).toContain(r.status);
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThan(60);
    expect(await expectLedgerInvariant(project.projectId)).toBeGreaterThan(6);
    const max = await pool().query("SELECT 1 FROM wallets WHERE project_id = $1 AND currency_id = 'coins' AND balance > 1000000", [
      project.projectId,
    ]);
    expect(max.rowCount).toBe(0);
  });
});
