import { type Actor, isTrusted, type OperatorActor, type PlayerActor, type SystemActor } from "../../actor";
import { uuidv7 } from "../../crypto";
import { pool } from "../../db";
import { AppError } from "../../errors";
import { countEvent } from "../../metrics";
import { withEvents } from "../webhooks/emit";
import { emitEvent } from "../webhooks/events";
import { economyConfig } from "./definitions";
import { isCurrencyLine, type Line, MAX_AMOUNT, type TransactionDto } from "./schemas";

/**
 * Balances, inventories and the ledger. Every change is one transaction (one statement:
 * apply_economy_change, see its migration) that
 *   1. takes the player's wallet rows of the currencies it touches, then their inventory rows
 *      of the items it touches, each in id order (an upsert that creates a missing row at its
 *      starting value and locks an existing one) — one stable order for every kind of change,
 *      so concurrent changes of one player queue instead of deadlocking;
 *   2. checks every new value against 0 and, where it goes up, the currency's max or the item's
 *      max stack and 2^53 − 1 (lowering a max never freezes what players already hold above it);
 *   3. writes the new values and the ledger row in one statement.
 * All or nothing: a refused check changes nothing. Balances and quantities are also CHECKed
 * non-negative by the database. Invariant (tested under parallel load): a wallet's balance is
 * its initial balance plus the sum of its ledger deltas.
 */
/** REWARD rows are written set-based by leaderboard period closes (server/services/leaderboards/closes.ts), not here. */
type Kind = "add" | "subtract" | "purchase" | "grant" | "revoke" | "store_purchase" | "store_refund";
type Delta = { id: string; delta: bigint };
export type ChangeContext = { requestId?: string; idempotencyKey?: string; reason?: string };

const big = (n: number) => BigInt(n);
const LIMIT = BigInt(MAX_AMOUNT);

function actorColumns(actor: Actor): { kind: string; id: string | null } {
  if (actor.kind === "player") return { kind: actor.via === "server-key" ? "server-key" : "player", id: actor.playerId };
  if (actor.kind === "operator") return { kind: "operator", id: actor.operatorId };
  return { kind: "system", id: null };
}

type Applied = {
  transactionId: string;
  balances: Array<{ id: string; balance: number }>;
  inventory: Array<{ itemId: string; quantity: number }>;
};

/** apply_economy_change's own SQLSTATEs as the API's errors; anything else unchanged. */
const CHANGE_ERRORS: Record<
  string,
  "INSUFFICIENT_FUNDS" | "CURRENCY_MAX_EXCEEDED" | "INSUFFICIENT_ITEMS" | "ITEM_MAX_EXCEEDED" | "PLAYER_NOT_FOUND"
> = {
  GBE01: "INSUFFICIENT_FUNDS",
  GBE02: "CURRENCY_MAX_EXCEEDED",
  GBE03: "INSUFFICIENT_ITEMS",
  GBE04: "ITEM_MAX_EXCEEDED",
  // The player was deleted (a change racing the account's deletion).
  GBE05: "PLAYER_NOT_FOUND",
};
function changeError(error: unknown): unknown {
  const { code, detail } = error as { code?: string; detail?: string };
  if (!code || !Object.hasOwn(CHANGE_ERRORS, code)) return error;
  const details = JSON.parse(detail ?? "{}") as Record<string, string | number>;
  return new AppError(CHANGE_ERRORS[code] as (typeof CHANGE_ERRORS)[string], {
    details: Object.fromEntries(Object.entries(details).map(([k, v]) => [k, k.endsWith("Id") ? v : Number(v)])),
  });
}

/**
 * The one way a balance or an inventory changes: one statement, apply_economy_change
 * (prisma/migrations/*_apply_economy_change), which takes the rows, checks and writes as the
 * header says, and commits on its own (or joins the caller's transaction).
 */
async function applyChange(o: {
  actor: Actor;
  playerId: string;
  kind: Kind;
  currencies: Delta[];
  items: Delta[];
  purchaseId?: string;
  quantity?: number;
  context: ChangeContext;
  /** A store grant: paid for with real money, so a currency's maximum or an item's max stack does not refuse it. */
  uncapped?: boolean;
}): Promise<Applied> {
  const projectId = o.actor.projectId;
  const config = await economyConfig(projectId);
  const currencies = [...o.currencies].sort((a, b) => (a.id < b.id ? -1 : 1));
  const items = [...o.items].sort((a, b) => (a.id < b.id ? -1 : 1));
  const capOf = (max: number | null | undefined) => String(max === null || max === undefined || o.uncapped ? LIMIT : big(max));
  const transactionId = uuidv7();
  const who = actorColumns(o.actor);
  return withEvents(projectId, async (emitting) => {
    const applied = await runChange();
    if (emitting) await emitChangeEvents({ projectId, playerId: o.playerId, kind: o.kind, currencies, items, applied, o });
    return applied;
  });

  async function runChange(): Promise<Applied> {
    const { rows } = await pool()
      .query<{ currencies: Array<{ id: string; balance: number }>; items: Array<{ itemId: string; quantity: number }> }>({
        name: "economy-apply-change",
        text: `SELECT currencies, items FROM apply_economy_change($1, $2, $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::text[], $8::bigint[], $9::bigint[],
               $10, $11::"EconomyTransactionKind", $12, $13, $14, $15, $16, $17, $18)`,
        values: [
          projectId,
          o.playerId,
          currencies.map((c) => c.id),
          currencies.map((c) => String(c.delta)),
          currencies.map((c) => String(config.currencies.get(c.id)?.initialBalance ?? 0)),
          currencies.map((c) => capOf(config.currencies.get(c.id)?.maxBalance)),
          items.map((i) => i.id),
          items.map((i) => String(i.delta)),
          items.map((i) => capOf(config.items.get(i.id)?.maxStack)),
          transactionId,
          o.kind.toUpperCase(),
          o.purchaseId ?? null,
          o.quantity ?? null,
          o.context.reason ?? null,
          o.context.idempotencyKey ?? null,
          o.context.requestId ?? null,
          who.kind,
          who.id,
        ],
      })
      .catch((error: unknown) => {
        throw changeError(error);
      });
    const row = rows[0];
    if (!row) throw new Error("apply_economy_change returned no row");
    return {
      transactionId,
      balances: row.currencies.map((c) => ({ id: c.id, balance: Number(c.balance) })),
      inventory: row.items.map((i) => ({ itemId: i.itemId, quantity: Number(i.quantity) })),
    };
  }
}

/**
 * The webhook events of one ledger row, in its transaction: currency.changed for the currencies
 * (deltas and balances after), item.granted / item.revoked for items gained / lost, and
 * purchase.completed for a purchase.
 */
async function emitChangeEvents(e: {
  projectId: string;
  playerId: string;
  kind: Kind;
  currencies: Delta[];
  items: Delta[];
  applied: Applied;
  o: { purchaseId?: string; quantity?: number; context: ChangeContext };
}): Promise<void> {
  const base = { playerId: e.playerId, transactionId: e.applied.transactionId, kind: e.kind, reason: e.o.context.reason ?? null };
  const balance = new Map(e.applied.balances.map((b) => [b.id, b.balance]));
  const held = new Map(e.applied.inventory.map((i) => [i.itemId, i.quantity]));
  const emit = (type: "currency.changed" | "item.granted" | "item.revoked" | "purchase.completed", data: Record<string, unknown>) =>
    emitEvent({ projectId: e.projectId, type, playerId: e.playerId, data: { ...base, ...data } });
  if (e.currencies.length > 0) {
    await emit("currency.changed", {
      purchaseId: e.o.purchaseId ?? null,
      currencies: e.currencies.map((c) => ({ currencyId: c.id, delta: Number(c.delta), balance: balance.get(c.id) ?? null })),
    });
  }
  const gained = e.items.filter((i) => i.delta > 0n);
  const lost = e.items.filter((i) => i.delta < 0n);
  const lines = (list: Delta[]) => list.map((i) => ({ itemId: i.id, quantity: Math.abs(Number(i.delta)), total: held.get(i.id) ?? null }));
  if (gained.length > 0) await emit("item.granted", { purchaseId: e.o.purchaseId ?? null, items: lines(gained) });
  if (lost.length > 0) await emit("item.revoked", { purchaseId: e.o.purchaseId ?? null, items: lines(lost) });
  if (e.kind === "purchase" && e.o.purchaseId) {
    await emit("purchase.completed", {
      purchaseId: e.o.purchaseId,
      quantity: e.o.quantity ?? 1,
      balances: e.applied.balances.map((b) => ({ currencyId: b.id, balance: b.balance })),
      inventory: e.applied.inventory,
    });
  }
}

/**
 * A store purchase's grant or a store refund's take-back, in the caller's transaction
 * (server/services/store): a ledger row of kind store_purchase / store_refund naming the store
 * product (purchaseId) and the store transaction (reason). Grants are uncapped; a take-back is
 * computed by the caller to stay within what the player holds.
 */
export function applyStoreChange(o: {
  actor: PlayerActor | OperatorActor | SystemActor;
  playerId: string;
  kind: "store_purchase" | "store_refund";
  lines: Line[];
  quantity: number;
  productId: string;
  context: ChangeContext;
}): Promise<Applied> {
  const deltas = o.kind === "store_purchase" ? purchaseDeltas([], o.lines, o.quantity) : purchaseDeltas(o.lines, [], o.quantity);
  return applyChange({
    actor: o.actor,
    playerId: o.playerId,
    kind: o.kind,
    ...deltas,
    purchaseId: o.productId,
    quantity: o.quantity,
    context: o.context,
    uncapped: true,
  });
}

// ---- The game API ----

/** Every currency of the project with the player's balance; missing wallets start now, at the initial balance. */
export async function getBalances(o: { actor: PlayerActor }): Promise<Array<{ id: string; name: string; balance: number }>> {
  const config = await economyConfig(o.actor.projectId);
  const read = () =>
    pool().query<{ currency_id: string; balance: string }>({
      name: "wallets-of-player",
      text: "SELECT currency_id, balance FROM wallets WHERE project_id = $1 AND player_id = $2",
      values: [o.actor.projectId, o.actor.playerId],
    });
  let { rows } = await read();
  const missing = [...config.currencies.values()].filter((c) => !rows.some((r) => r.currency_id === c.id));
  if (missing.length) {
    await pool().query(
      `INSERT INTO wallets (project_id, player_id, currency_id, balance, initial_balance)
       SELECT $1, $2, v.id, v.initial, v.initial FROM unnest($3::text[], $4::bigint[]) AS v(id, initial) ORDER BY v.id
       ON CONFLICT DO NOTHING`,
      [o.actor.projectId, o.actor.playerId, missing.map((c) => c.id), missing.map((c) => String(c.initialBalance))],
    );
    ({ rows } = await read());
  }
  const balances = new Map(rows.map((r) => [r.currency_id, Number(r.balance)]));
  return [...config.currencies.values()].map((c) => ({ id: c.id, name: c.name, balance: balances.get(c.id) ?? c.initialBalance }));
}

/** add / subtract one currency; server-only currencies refuse game clients. */
export async function changeBalance(o: {
  actor: PlayerActor;
  currencyId: string;
  amount: number;
  direction: "add" | "subtract";
  context: ChangeContext;
}): Promise<{ id: string; name: string; balance: number; transactionId: string }> {
  const currency = (await economyConfig(o.actor.projectId)).currencies.get(o.currencyId);
  if (!currency) throw new AppError("CURRENCY_NOT_FOUND");
  if (!currency.clientWritable && !isTrusted(o.actor)) {
    throw new AppError("CLIENT_WRITE_FORBIDDEN", { message: "This currency is changed by server keys only." });
  }
  const delta = o.direction === "add" ? big(o.amount) : -big(o.amount);
  const applied = await applyChange({
    actor: o.actor,
    playerId: o.actor.playerId,
    kind: o.direction,
    currencies: [{ id: currency.id, delta }],
    items: [],
    context: o.context,
  });
  return { id: currency.id, name: currency.name, balance: applied.balances[0]?.balance ?? 0, transactionId: applied.transactionId };
}

export async function getInventory(o: { actor: PlayerActor }) {
  const config = await economyConfig(o.actor.projectId);
  const { rows } = await pool().query<{ item_id: string; quantity: string; updated_at: Date }>({
    name: "inventory-of-player",
    text: "SELECT item_id, quantity, updated_at FROM inventory WHERE project_id = $1 AND player_id = $2 AND quantity > 0 ORDER BY item_id",
    values: [o.actor.projectId, o.actor.playerId],
  });
  return rows.map((r) => ({
    itemId: r.item_id,
    name: config.items.get(r.item_id)?.name ?? r.item_id,
    quantity: Number(r.quantity),
    updatedAt: r.updated_at.toISOString(),
  }));
}

/** Net deltas of a purchase × quantity (a currency both paid and received nets out). */
function purchaseDeltas(costs: Line[], rewards: Line[], quantity: number): { currencies: Delta[]; items: Delta[] } {
  const currencies = new Map<string, bigint>();
  const items = new Map<string, bigint>();
  const add = (lines: Line[], sign: bigint) => {
    for (const line of lines) {
      if (isCurrencyLine(line))
        currencies.set(line.currencyId, (currencies.get(line.currencyId) ?? 0n) + sign * big(line.amount) * big(quantity));
      else items.set(line.itemId, (items.get(line.itemId) ?? 0n) + sign * big(line.quantity) * big(quantity));
    }
  };
  add(costs, -1n);
  add(rewards, 1n);
  return {
    currencies: [...currencies].map(([id, delta]) => ({ id, delta })),
    items: [...items].map(([id, delta]) => ({ id, delta })),
  };
}

export async function purchase(o: { actor: PlayerActor; purchaseId: string; quantity: number; context: ChangeContext }) {
  const definition = (await economyConfig(o.actor.projectId)).purchases.get(o.purchaseId);
  if (!definition) throw new AppError("PURCHASE_NOT_FOUND");
  const deltas = purchaseDeltas(definition.costs, definition.rewards, o.quantity);
  const applied = await applyChange({
    actor: o.actor,
    playerId: o.actor.playerId,
    kind: "purchase",
    ...deltas,
    purchaseId: definition.id,
    quantity: o.quantity,
    context: o.context,
  });
  countEvent("purchase");
  return {
    transactionId: applied.transactionId,
    purchaseId: definition.id,
    quantity: o.quantity,
    balances: applied.balances,
    inventory: applied.inventory,
  };
}

type LedgerRow = {
  id: string;
  kind: string;
  purchase_id: string | null;
  currencies: TransactionDto["currencies"];
  items: TransactionDto["items"];
  created_at: Date;
  reason: string | null;
  actor_kind: string;
  actor_id: string | null;
  request_id: string | null;
  leaderboard_id: string | null;
  period: string | null;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A player's ledger, newest first; the cursor is the last id of the previous page. */
export async function listTransactions(o: { projectId: string; playerId: string; cursor?: string; limit: number; audit?: boolean }) {
  let before: string | null = null;
  if (o.cursor !== undefined) {
    const decoded = Buffer.from(o.cursor, "base64url").toString("utf8");
    if (!UUID.test(decoded))
      throw new AppError("VALIDATION_ERROR", { details: { issues: [{ path: "query.cursor", message: "Unknown cursor." }] } });
    before = decoded;
  }
  const { rows } = await pool().query<LedgerRow>({
    name: "ledger-page",
    text: `SELECT id, kind, purchase_id, currencies, items, created_at, reason, actor_kind, actor_id, request_id, leaderboard_id, period FROM economy_transactions
            WHERE project_id = $1 AND player_id = $2 AND ($3::uuid IS NULL OR id < $3::uuid)
            ORDER BY id DESC LIMIT $4`,
    values: [o.projectId, o.playerId, before, o.limit + 1],
  });
  const page = rows.slice(0, o.limit);
  const last = page[page.length - 1];
  return {
    transactions: page.map((r) => ({
      id: r.id,
      kind: r.kind.toLowerCase() as TransactionDto["kind"],
      purchaseId: r.purchase_id,
      source: r.leaderboard_id !== null && r.period !== null ? { leaderboardId: r.leaderboard_id, period: r.period } : null,
      currencies: r.currencies,
      items: r.items,
      createdAt: r.created_at.toISOString(),
      // Who, why and which request: for operators (the dashboard), not in the game API's answer.
      ...(o.audit ? { reason: r.reason, actor: { kind: r.actor_kind, id: r.actor_id }, requestId: r.request_id } : {}),
    })),
    nextCursor: rows.length > o.limit && last ? Buffer.from(last.id).toString("base64url") : null,
  };
}

// ---- Operators ----

async function assertPlayer(projectId: string, playerId: string): Promise<void> {
  const { rowCount } = await pool().query("SELECT 1 FROM players WHERE id = $1::uuid AND project_id = $2", [playerId, projectId]);
  if (!rowCount) throw new AppError("PLAYER_NOT_FOUND");
}

/**
 * An operator grants (positive) or revokes (`revoke`: the amounts are taken away) currencies and
 * items, with a reason; recorded in the ledger as the operator's change. Limits apply as for players.
 */
export async function adjustPlayerEconomy(o: {
  actor: OperatorActor | SystemActor;
  playerId: string;
  direction: "grant" | "revoke";
  currencies?: Array<{ currencyId: string; amount: number }>;
  items?: Array<{ itemId: string; quantity: number }>;
  reason: string;
  requestId?: string;
}) {
  const config = await economyConfig(o.actor.projectId);
  await assertPlayer(o.actor.projectId, o.playerId);
  for (const c of o.currencies ?? []) if (!config.currencies.has(c.currencyId)) throw new AppError("CURRENCY_NOT_FOUND");
  for (const i of o.items ?? []) if (!config.items.has(i.itemId)) throw new AppError("ITEM_NOT_FOUND");
  const deltas = purchaseDeltas(
    o.direction === "grant" ? [] : [...(o.currencies ?? []), ...(o.items ?? [])],
    o.direction === "grant" ? [...(o.currencies ?? []), ...(o.items ?? [])] : [],
    1,
  );
  if (deltas.currencies.length + deltas.items.length === 0) {
    throw new AppError("VALIDATION_ERROR", { details: { issues: [{ path: "currencies", message: "Nothing to change." }] } });
  }
  return applyChange({
    actor: o.actor,
    playerId: o.playerId,
    kind: o.direction,
    ...deltas,
    context: { reason: o.reason, requestId: o.requestId },
  });
}
