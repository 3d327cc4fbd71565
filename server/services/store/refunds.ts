import type pg from "pg";
import type { OperatorActor, SystemActor } from "../../actor";
import { pool, transaction } from "../../db";
import { AppError } from "../../errors";
import { countStoreReceipt } from "../../metrics";
import type { StoreName, StoreReversal } from "../../stores/types";
import { type OperatorContext, runCommand } from "../command";
import type { Line } from "../economy/schemas";
import { applyStoreChange } from "../economy/wallet";
import { banPlayer } from "../players/bans";
import { withEvents } from "../webhooks/emit";
import { emitEvent } from "../webhooks/events";
import type { RefundPolicy } from "./schemas";

/**
 * Refunds: a store (or an operator, by hand) takes a purchase back, and what it granted is taken
 * back through the ledger, in one transaction with the store transaction's row locked:
 *
 * - what is taken back is what the grant's ledger row added (not the product's rewards today,
 *   which may have changed since), each line no more than the player still holds;
 * - the rest is the shortfall, recorded on the row (the player spent it). Balances never go below
 *   zero (every purchase relies on it); the project's refund policy says what else happens:
 *   `clamp` nothing more, `ban` the player is banned when there is a shortfall;
 * - a refund seen twice (a notification redelivered, the poll finding it again, an operator and
 *   the store) acts once: the second finds the row refunded.
 *
 * Apple's REFUND_REVERSED gives back what the refund took.
 *
 * A reversal may arrive before the receipt (a player refunded at once, a game that sends the
 * receipt on its next start): it is held (`store_held_reversals`) and the receipt, when it comes,
 * is refused with RECEIPT_CANCELLED, nothing granted (receipts.ts). A REFUND_REVERSED for a held
 * refund releases it. Both paths take `lockStoreTransaction` first, so a receipt and its refund
 * arriving at once serialize: whichever commits second sees the other.
 */
export type ReversalOutcome =
  | "refunded"
  | "already_refunded"
  | "reinstated"
  | "not_refunded"
  | "unknown_transaction"
  | "cancelled_order"
  | "held"
  | "released";

/**
 * A transaction-scoped advisory lock on one store transaction id of one project: the receipt's
 * grant and a reversal of the same transaction take it before either looks for the other.
 */
export async function lockStoreTransaction(
  client: pg.PoolClient,
  o: { projectId: string; store: StoreName; transactionId: string },
): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`store:${o.projectId}:${o.store}:${o.transactionId}`]);
}

/** The reason of a held refund of this store transaction, if the store reported one before its receipt. */
export async function heldReversal(
  client: pg.PoolClient,
  o: { projectId: string; store: StoreName; transactionId: string },
): Promise<{ reason: string; reversedAt: Date } | null> {
  const { rows } = await client.query<{ reason: string; reversed_at: Date }>(
    "SELECT reason, reversed_at FROM store_held_reversals WHERE project_id = $1 AND store = $2 AND store_transaction_id = $3",
    [o.projectId, o.store, o.transactionId],
  );
  return rows[0] ? { reason: rows[0].reason, reversedAt: rows[0].reversed_at } : null;
}

type Locked = {
  id: string;
  player_id: string | null;
  status: string;
  store_transaction_id: string;
  product_id: string | null;
  ledger_transaction_id: string | null;
  refund_ledger_transaction_id: string | null;
};
type LedgerLines = { currencies: Array<{ id: string; delta: number }>; items: Array<{ itemId: string; delta: number }> };

export async function applyReversal(o: {
  projectId: string;
  reversal: StoreReversal;
  actor: OperatorActor | SystemActor;
  requestId?: string;
}): Promise<{ outcome: ReversalOutcome; receiptId: string | null }> {
  const r = o.reversal;
  const result = await transaction(async (client) => {
    await lockStoreTransaction(client, { projectId: o.projectId, store: r.store, transactionId: r.transactionId });
    const { rows } = await client.query<Locked>(
      `SELECT id, player_id, status, store_transaction_id, product_id, ledger_transaction_id, refund_ledger_transaction_id
         FROM store_transactions WHERE project_id = $1 AND store = $2 AND store_transaction_id = $3 AND status <> 'rejected'
        FOR UPDATE`,
      [o.projectId, r.store, r.transactionId],
    );
    const row = rows[0];
    if (!row) return { outcome: await holdOrRelease(client, o.projectId, r), receiptId: null };
    if (r.kind === "refund_reversed") return { outcome: await reinstate(o, row), receiptId: row.id };
    if (row.status === "refunded") return { outcome: "already_refunded" as const, receiptId: row.id };
    if (row.status === "pending") {
      await client.query(
        "UPDATE store_transactions SET status = 'rejected', refusal = 'RECEIPT_CANCELLED', updated_at = now() WHERE id = $1",
        [row.id],
      );
      return { outcome: "cancelled_order" as const, receiptId: row.id };
    }
    await takeBack(o, row);
    return { outcome: "refunded" as const, receiptId: row.id };
  });
  if (result.outcome === "refunded") countStoreReceipt(r.store, "refunded");
  return result;
}

/** A reversal of a transaction we have no receipt for (yet): a refund is held, a refund reversal releases a held one. */
async function holdOrRelease(client: pg.PoolClient, projectId: string, r: StoreReversal): Promise<ReversalOutcome> {
  if (r.kind === "refund_reversed") {
    const released = await client.query(
      "DELETE FROM store_held_reversals WHERE project_id = $1 AND store = $2 AND store_transaction_id = $3",
      [projectId, r.store, r.transactionId],
    );
    return released.rowCount ? "released" : "unknown_transaction";
  }
  await client.query(
    `INSERT INTO store_held_reversals (project_id, store, store_transaction_id, reason, reversed_at, evidence)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb) ON CONFLICT DO NOTHING`,
    [projectId, r.store, r.transactionId, r.reason, r.at, JSON.stringify(r.evidence)],
  );
  return "held";
}

async function grantedLines(projectId: string, ledgerId: string | null): Promise<LedgerLines> {
  if (!ledgerId) return { currencies: [], items: [] };
  const { rows } = await pool().query<LedgerLines>("SELECT currencies, items FROM economy_transactions WHERE id = $1 AND project_id = $2", [
    ledgerId,
    projectId,
  ]);
  return rows[0] ?? { currencies: [], items: [] };
}

async function takeBack(
  o: { projectId: string; reversal: StoreReversal; actor: OperatorActor | SystemActor; requestId?: string },
  row: Locked,
) {
  const r = o.reversal;
  const granted = await grantedLines(o.projectId, row.ledger_transaction_id);
  const take: Line[] = [];
  const shortfall: Array<{ id: string; kind: "currency" | "item"; amount: number }> = [];
  let refundLedgerId: string | null = null;
  if (row.player_id) {
    // Locked in the ledger's own order (wallets, then inventory, each by id): no deadlock with a purchase.
    const currencyIds = granted.currencies.filter((c) => c.delta > 0).map((c) => c.id);
    const itemIds = granted.items.filter((i) => i.delta > 0).map((i) => i.itemId);
    const wallets = await pool().query<{ currency_id: string; balance: string }>(
      `SELECT currency_id, balance FROM wallets WHERE project_id = $1 AND player_id = $2 AND currency_id = ANY($3::text[])
        ORDER BY currency_id FOR UPDATE`,
      [o.projectId, row.player_id, currencyIds],
    );
    const held = await pool().query<{ item_id: string; quantity: string }>(
      `SELECT item_id, quantity FROM inventory WHERE project_id = $1 AND player_id = $2 AND item_id = ANY($3::text[])
        ORDER BY item_id FOR UPDATE`,
      [o.projectId, row.player_id, itemIds],
    );
    for (const c of granted.currencies.filter((c) => c.delta > 0)) {
      const balance = Number(wallets.rows.find((w) => w.currency_id === c.id)?.balance ?? 0);
      const amount = Math.min(balance, c.delta);
      if (amount > 0) take.push({ currencyId: c.id, amount });
      if (amount < c.delta) shortfall.push({ id: c.id, kind: "currency", amount: c.delta - amount });
    }
    for (const i of granted.items.filter((i) => i.delta > 0)) {
      const quantity = Math.min(Number(held.rows.find((h) => h.item_id === i.itemId)?.quantity ?? 0), i.delta);
      if (quantity > 0) take.push({ itemId: i.itemId, quantity });
      if (quantity < i.delta) shortfall.push({ id: i.itemId, kind: "item", amount: i.delta - quantity });
    }
  }
  await withEvents(o.projectId, async (emitting) => {
    if (row.player_id && take.length > 0) {
      const applied = await applyStoreChange({
        actor: o.actor,
        playerId: row.player_id,
        kind: "store_refund",
        lines: take,
        quantity: 1,
        productId: row.product_id ?? "",
        context: { requestId: o.requestId, reason: `${r.store} ${r.transactionId} refunded: ${r.reason}` },
      });
      refundLedgerId = applied.transactionId;
    }
    await pool().query(
      `UPDATE store_transactions SET status = 'refunded', refund_ledger_transaction_id = $2, refund_reason = $3, refunded_at = $4,
              shortfall = $5::jsonb, updated_at = now() WHERE id = $1`,
      [row.id, refundLedgerId, r.reason, r.at, JSON.stringify(shortfall)],
    );
    if (emitting) {
      await emitEvent({
        projectId: o.projectId,
        type: "store.purchase_refunded",
        playerId: row.player_id ?? undefined,
        data: {
          playerId: row.player_id,
          receiptId: row.id,
          store: r.store,
          storeTransactionId: r.transactionId,
          productId: row.product_id,
          reason: r.reason,
          transactionId: refundLedgerId,
          shortfall,
        },
      });
    }
  });
  if (row.player_id && shortfall.length > 0 && (await refundPolicy(o.projectId)) === "ban") {
    await banPlayer({
      projectId: o.projectId,
      playerId: row.player_id,
      reason: `Refunded store purchase ${r.store} ${r.transactionId} already spent (${shortfall.map((s) => `${s.amount} ${s.id}`).join(", ")}).`,
    });
  }
}

async function refundPolicy(projectId: string): Promise<RefundPolicy> {
  const { rows } = await pool().query<{ refund_policy: RefundPolicy }>("SELECT refund_policy FROM projects WHERE id = $1", [projectId]);
  return rows[0]?.refund_policy ?? "clamp";
}

/** Apple reversed a refund: what the refund took is given back, and the sale counts again. */
async function reinstate(
  o: { projectId: string; reversal: StoreReversal; actor: OperatorActor | SystemActor; requestId?: string },
  row: Locked,
) {
  if (row.status !== "refunded") return "not_refunded" as const;
  const taken = await grantedLines(o.projectId, row.refund_ledger_transaction_id);
  const lines: Line[] = [
    ...taken.currencies.filter((c) => c.delta < 0).map((c) => ({ currencyId: c.id, amount: -c.delta })),
    ...taken.items.filter((i) => i.delta < 0).map((i) => ({ itemId: i.itemId, quantity: -i.delta })),
  ];
  if (row.player_id && lines.length > 0) {
    await applyStoreChange({
      actor: o.actor,
      playerId: row.player_id,
      kind: "store_purchase",
      lines,
      quantity: 1,
      productId: row.product_id ?? "",
      context: { requestId: o.requestId, reason: `${o.reversal.store} ${o.reversal.transactionId} refund reversed` },
    });
  }
  await pool().query(
    `UPDATE store_transactions SET status = 'granted', refund_ledger_transaction_id = NULL, refund_reason = NULL, refunded_at = NULL,
            shortfall = NULL, updated_at = now() WHERE id = $1`,
    [row.id],
  );
  return "reinstated" as const;
}

/**
 * An operator takes a purchase back by hand (a refund granted outside the store's flow, a
 * chargeback reported by e-mail): the same take-back as a store refund, audited with the reason.
 * It does not return the money: that happens in the store's console.
 */
export function refundByHandAs(ctx: OperatorContext, o: { projectId: string; receiptId: string; reason: string }) {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "store.purchase.refund",
    target: o.receiptId,
    before: async () => {
      const { rows } = await pool().query<{
        store: StoreName;
        store_transaction_id: string | null;
        status: string;
        player_id: string | null;
      }>("SELECT store, store_transaction_id, status, player_id FROM store_transactions WHERE id = $1 AND project_id = $2", [
        o.receiptId,
        o.projectId,
      ]);
      const row = rows[0];
      if (!row) throw new AppError("NOT_FOUND", { message: "Store purchase not found." });
      if (row.status !== "granted" || !row.store_transaction_id)
        throw new AppError("VALIDATION_ERROR", { message: `Only a granted purchase can be refunded (this one is ${row.status}).` });
      return row;
    },
    run: async (actor, before) =>
      applyReversal({
        projectId: o.projectId,
        actor,
        requestId: ctx.requestId,
        reversal: {
          store: before.store,
          transactionId: before.store_transaction_id ?? "",
          kind: "refund",
          reason: `by hand: ${o.reason}`,
          at: new Date(),
          evidence: {},
        },
      }),
    after: (result) => ({ ...result, reason: o.reason }),
  });
}
