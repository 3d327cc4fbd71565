import { pool } from "../../db";
import { AppError } from "../../errors";
import { viewerRead } from "../command";
import { economyConfig, listCurrencies, listItems, listPurchases } from "./definitions";
import { listTransactions } from "./wallet";

/**
 * Operator reads over the economy: a player's holdings and ledger, the project's totals; and, at
 * the end, the `…As` reads the dashboard calls (each checks its caller: `viewerRead`, ../command.ts).
 */

async function assertPlayer(projectId: string, playerId: string): Promise<void> {
  const { rowCount } = await pool().query("SELECT 1 FROM players WHERE id = $1::uuid AND project_id = $2", [playerId, projectId]);
  if (!rowCount) throw new AppError("PLAYER_NOT_FOUND");
}

/**
 * Every currency with the player's balance and every item they hold. Read-only: a wallet the
 * player has not used yet is shown at the currency's initial balance (`started: false`) and not created.
 */
export async function playerHoldings(o: { projectId: string; playerId: string }) {
  await assertPlayer(o.projectId, o.playerId);
  const config = await economyConfig(o.projectId);
  const [wallets, inventory] = await Promise.all([
    pool().query<{ currency_id: string; balance: string }>(
      "SELECT currency_id, balance FROM wallets WHERE project_id = $1 AND player_id = $2",
      [o.projectId, o.playerId],
    ),
    pool().query<{ item_id: string; quantity: string; updated_at: Date }>(
      "SELECT item_id, quantity, updated_at FROM inventory WHERE project_id = $1 AND player_id = $2 AND quantity > 0 ORDER BY item_id",
      [o.projectId, o.playerId],
    ),
  ]);
  const held = new Map(wallets.rows.map((r) => [r.currency_id, Number(r.balance)]));
  return {
    balances: [...config.currencies.values()].map((c) => ({
      id: c.id,
      name: c.name,
      balance: held.get(c.id) ?? c.initialBalance,
      started: held.has(c.id),
    })),
    inventory: inventory.rows.map((r) => ({
      itemId: r.item_id,
      name: config.items.get(r.item_id)?.name ?? r.item_id,
      quantity: Number(r.quantity),
      updatedAt: r.updated_at.toISOString(),
    })),
  };
}

/** The player's ledger for operators: newest first, with reason, request id and who (an operator by e-mail). */
export async function playerLedger(o: { projectId: string; playerId: string; cursor?: string; limit: number }) {
  await assertPlayer(o.projectId, o.playerId);
  const page = await listTransactions({ ...o, audit: true });
  const operatorIds = [...new Set(page.transactions.flatMap((t) => (t.actor?.kind === "operator" && t.actor.id ? [t.actor.id] : [])))];
  const emails = new Map<string, string>();
  if (operatorIds.length) {
    const { rows } = await pool().query<{ id: string; email: string }>("SELECT id, email FROM operators WHERE id = ANY($1::uuid[])", [
      operatorIds,
    ]);
    for (const r of rows) emails.set(r.id, r.email);
  }
  return {
    nextCursor: page.nextCursor,
    transactions: page.transactions.map((t) => ({
      id: t.id,
      kind: t.kind,
      purchaseId: t.purchaseId,
      source: t.source,
      currencies: t.currencies,
      items: t.items,
      createdAt: t.createdAt,
      reason: t.reason ?? null,
      requestId: t.requestId ?? null,
      actor: {
        kind: t.actor?.kind ?? "system",
        id: t.actor?.id ?? null,
        label:
          t.actor?.kind === "operator" && t.actor.id
            ? (emails.get(t.actor.id) ?? "deleted operator")
            : t.actor?.kind === "server-key"
              ? "game server (server key)"
              : t.actor?.kind === "player"
                ? "the player"
                : "system",
      },
    })),
  };
}

/**
 * Each currency's total in circulation: the sum of started wallets' balances and how many hold
 * some. Cost: one aggregate over the project's wallet rows (a range of the wallets primary key,
 * (project, player, currency)): linear in players × currencies of the project, no other table;
 * wallets never touched are not counted (they would hold the initial balance).
 */
export async function currencyTotals(o: { projectId: string }) {
  const config = await economyConfig(o.projectId);
  const { rows } = await pool().query<{ currency_id: string; total: string; holders: number }>(
    `SELECT currency_id, sum(balance)::text AS total, count(*) FILTER (WHERE balance > 0)::int AS holders
       FROM wallets WHERE project_id = $1 GROUP BY currency_id`,
    [o.projectId],
  );
  const byId = new Map(rows.map((r) => [r.currency_id, r]));
  return [...config.currencies.values()].map((c) => ({
    id: c.id,
    name: c.name,
    // A string: a sum of balances may pass 2^53.
    total: byId.get(c.id)?.total ?? "0",
    holders: byId.get(c.id)?.holders ?? 0,
  }));
}

/**
 * How many players hold more of a currency (or an item) than `max`: what lowering its maximum to
 * `max` would leave above it (they keep it; only decreases are accepted until they are below).
 * One count over the project's wallets or inventory rows of that definition.
 */
export async function holdersAbove(o: {
  projectId: string;
  kind: "currency" | "item";
  id: string;
  max: number;
}): Promise<{ players: number }> {
  const sql =
    o.kind === "currency"
      ? "SELECT count(*)::int AS n FROM wallets WHERE project_id = $1 AND currency_id = $2 AND balance > $3"
      : "SELECT count(*)::int AS n FROM inventory WHERE project_id = $1 AND item_id = $2 AND quantity > $3";
  const { rows } = await pool().query<{ n: number }>(sql, [o.projectId, o.id, o.max]);
  return { players: rows[0]?.n ?? 0 };
}

export const listCurrenciesAs = viewerRead(listCurrencies);
export const listItemsAs = viewerRead(listItems);
export const listPurchasesAs = viewerRead(listPurchases);
export const currencyTotalsAs = viewerRead(currencyTotals);
export const holdersAboveAs = viewerRead(holdersAbove);
export const playerHoldingsAs = viewerRead(playerHoldings);
export const playerLedgerAs = viewerRead((o: { projectId: string; playerId: string; cursor?: string | null; limit: number }) =>
  playerLedger({ projectId: o.projectId, playerId: o.playerId, cursor: o.cursor ?? undefined, limit: o.limit }),
);
