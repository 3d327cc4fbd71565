import { pool } from "../../db";
import { AppError } from "../../errors";
import { viewerRead } from "../command";
import { listStoreProducts } from "./products";
import type { Store, StoreTransactionRow } from "./schemas";

/**
 * Operators' reads over store purchases: the Purchases page, one purchase with what backs it,
 * and revenue for the overview. Every query is scoped by project and served by an index of
 * store_transactions: the list walks (project_id, created_at DESC) with its filters applied on
 * the way; `q` is an exact match on our id (the primary key), the store's id or Apple's original
 * id (the lookup and original indexes); a player's purchases use the player index.
 */
export type PurchaseStatus = "pending" | "granted" | "refunded" | "rejected";
export type PurchaseFilter = {
  store?: Store;
  status?: PurchaseStatus;
  productId?: string;
  playerId?: string;
  /** Created at or after (ISO date or time). */
  from?: string;
  /** Created before. */
  to?: string;
  /** Exact: our receipt id, the store's transaction / order id, or Apple's original transaction id. */
  q?: string;
};

export type PurchaseRow = {
  receiptId: string;
  store: Store;
  storeTransactionId: string | null;
  originalTransactionId: string | null;
  storeProductId: string | null;
  productId: string | null;
  playerId: string | null;
  playerName: string | null;
  status: PurchaseStatus;
  refusal: string | null;
  environment: string | null;
  quantity: number;
  priceMicros: number | null;
  currency: string | null;
  purchasedAt: string | null;
  createdAt: string;
  refundedAt: string | null;
  refundReason: string | null;
  shortfall: StoreTransactionRow["shortfall"];
};

type Raw = StoreTransactionRow & { display_name: string | null };

const COLUMNS = `t.id, t.store, t.store_transaction_id, t.original_transaction_id, t.store_product_id, t.product_id, t.player_id,
  p.display_name, t.status, t.refusal, t.environment, t.quantity, t.price_micros, t.currency, t.purchased_at, t.created_at,
  t.refunded_at, t.refund_reason, t.shortfall`;
const FROM = "store_transactions t LEFT JOIN players p ON p.id = t.player_id";

const toRow = (r: Raw): PurchaseRow => ({
  receiptId: r.id,
  store: r.store,
  storeTransactionId: r.store_transaction_id,
  originalTransactionId: r.original_transaction_id,
  storeProductId: r.store_product_id,
  productId: r.product_id,
  playerId: r.player_id,
  playerName: r.display_name,
  status: r.status,
  refusal: r.refusal,
  environment: r.environment,
  quantity: r.quantity,
  priceMicros: r.price_micros === null ? null : Number(r.price_micros),
  currency: r.currency,
  purchasedAt: r.purchased_at?.toISOString() ?? null,
  createdAt: r.created_at.toISOString(),
  refundedAt: r.refunded_at?.toISOString() ?? null,
  refundReason: r.refund_reason,
  shortfall: r.shortfall,
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The keyset cursor: the last row's (created_at, id), which is the list's order. */
const encodeCursor = (r: Raw) => Buffer.from(`${r.created_at.toISOString()}|${r.id}`).toString("base64url");
function decodeCursor(cursor: string): [string, string] {
  const [at, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  if (!at || !id || !UUID.test(id) || Number.isNaN(Date.parse(at)))
    throw new AppError("VALIDATION_ERROR", { details: { issues: [{ path: "cursor", message: "Unknown cursor." }] } });
  return [at, id];
}

/** `t.project_id = $1 AND …` for the filters; their values are appended to `params`. */
function purchaseWhere(f: PurchaseFilter, params: unknown[]): string {
  const bind = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = ["t.project_id = $1"];
  if (f.store) where.push(`t.store = ${bind(f.store)}`);
  if (f.status) where.push(`t.status = ${bind(f.status)}`);
  if (f.productId) where.push(`t.product_id = ${bind(f.productId)}`);
  if (f.playerId) where.push(`t.player_id = ${bind(f.playerId)}::uuid`);
  if (f.from) where.push(`t.created_at >= ${bind(f.from)}::timestamptz`);
  if (f.to) where.push(`t.created_at < ${bind(f.to)}::timestamptz`);
  const q = f.q?.trim();
  if (q) {
    const arms = [`t.store_transaction_id = ${bind(q)}`, `t.original_transaction_id = ${bind(q)}`];
    if (UUID.test(q)) arms.push(`t.id = ${bind(q)}::uuid`);
    where.push(`(${arms.join(" OR ")})`);
  }
  return where.join(" AND ");
}

export async function listPurchases(
  o: PurchaseFilter & { projectId: string; cursor?: string; limit: number },
): Promise<{ purchases: PurchaseRow[]; nextCursor: string | null }> {
  const params: unknown[] = [o.projectId];
  let where = purchaseWhere(o, params);
  if (o.cursor) {
    const [at, id] = decodeCursor(o.cursor);
    params.push(at, id);
    where += ` AND (t.created_at, t.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
  }
  params.push(o.limit + 1);
  const { rows } = await pool().query<Raw>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE ${where} ORDER BY t.created_at DESC, t.id DESC LIMIT $${params.length}`,
    params,
  );
  const page = rows.slice(0, o.limit);
  const last = page[page.length - 1];
  return { purchases: page.map(toRow), nextCursor: rows.length > o.limit && last ? encodeCursor(last) : null };
}

type LedgerRow = {
  id: string;
  kind: string;
  currencies: Array<{ id: string; delta: number; balance?: number }>;
  items: Array<{ itemId: string; delta: number; quantity?: number }>;
  reason: string | null;
  createdAt: string;
};

/**
 * One purchase with what backs it: the store's evidence (the decoded, verified transaction; never
 * a token or credential: those are not kept), the ledger rows of its grant and refund, and the
 * store notifications that named its store transaction id.
 */
export async function purchase(o: { projectId: string; receiptId: string }) {
  if (!UUID.test(o.receiptId)) throw new AppError("NOT_FOUND", { message: "Store purchase not found." });
  const { rows } = await pool().query<
    Raw & { evidence: Record<string, unknown>; ledger_transaction_id: string | null; refund_ledger_transaction_id: string | null }
  >(
    `SELECT ${COLUMNS}, t.evidence, t.ledger_transaction_id, t.refund_ledger_transaction_id FROM ${FROM} WHERE t.id = $1 AND t.project_id = $2`,
    [o.receiptId, o.projectId],
  );
  const row = rows[0];
  if (!row) throw new AppError("NOT_FOUND", { message: "Store purchase not found." });
  const ledgerIds = [row.ledger_transaction_id, row.refund_ledger_transaction_id].filter((id): id is string => id !== null);
  const [ledger, notifications] = await Promise.all([
    pool().query<{
      id: string;
      kind: string;
      currencies: LedgerRow["currencies"];
      items: LedgerRow["items"];
      reason: string | null;
      created_at: Date;
    }>("SELECT id, kind, currencies, items, reason, created_at FROM economy_transactions WHERE project_id = $1 AND id = ANY($2::uuid[])", [
      o.projectId,
      ledgerIds,
    ]),
    row.store_transaction_id
      ? pool().query<{ id: string; notification_id: string; type: string; subtype: string | null; outcome: string; received_at: Date }>(
          `SELECT id, notification_id, type, subtype, outcome, received_at FROM store_notifications
            WHERE project_id = $1 AND store = $2 AND store_transaction_id = $3 ORDER BY received_at`,
          [o.projectId, row.store, row.store_transaction_id],
        )
      : Promise.resolve({ rows: [] }),
  ]);
  const ledgerRow = (id: string | null): LedgerRow | null => {
    const r = ledger.rows.find((l) => l.id === id);
    return r
      ? {
          id: r.id,
          kind: r.kind.toLowerCase(),
          currencies: r.currencies,
          items: r.items,
          reason: r.reason,
          createdAt: r.created_at.toISOString(),
        }
      : null;
  };
  return {
    ...toRow(row),
    evidence: row.evidence,
    grant: ledgerRow(row.ledger_transaction_id),
    refund: ledgerRow(row.refund_ledger_transaction_id),
    notifications: notifications.rows.map((n) => ({
      id: n.id,
      notificationId: n.notification_id,
      type: n.type,
      subtype: n.subtype,
      outcome: n.outcome,
      receivedAt: n.received_at.toISOString(),
    })),
  };
}

export type Revenue = {
  days: number;
  /** Per UTC day, product and currency: sales still granted (refunded ones are out) and the refunds made that day. */
  perDay: Array<{ day: string; productId: string; currency: string | null; count: number; grossMicros: number }>;
  perProduct: Array<{ productId: string; currency: string | null; count: number; grossMicros: number; refunded: number }>;
};

/**
 * Revenue of the last `days` UTC days (today included): production sales still granted, per day
 * and per product, summed per currency. Sandbox purchases (tests, reviewers) and refunded sales
 * are left out; `refunded` counts the product's sales of the period refunded since.
 */
export async function revenue(o: { projectId: string; days: number }): Promise<Revenue> {
  const since = "date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - make_interval(days => $2::int - 1)";
  const [perDay, perProduct] = await Promise.all([
    pool().query<{ day: string; product_id: string; currency: string | null; count: number; gross: string | null }>(
      `SELECT to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, t.product_id, t.currency,
              count(*)::int AS count, sum(t.price_micros)::text AS gross
         FROM store_transactions t
        WHERE t.project_id = $1 AND t.created_at >= ${since} AND t.status = 'granted' AND t.environment = 'production'
          AND t.product_id IS NOT NULL
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      [o.projectId, o.days],
    ),
    pool().query<{ product_id: string; currency: string | null; count: number; gross: string | null; refunded: number }>(
      `SELECT t.product_id, t.currency, (count(*) FILTER (WHERE t.status = 'granted'))::int AS count,
              (sum(t.price_micros) FILTER (WHERE t.status = 'granted'))::text AS gross,
              (count(*) FILTER (WHERE t.status = 'refunded'))::int AS refunded
         FROM store_transactions t
        WHERE t.project_id = $1 AND t.created_at >= ${since} AND t.status IN ('granted', 'refunded') AND t.environment = 'production'
          AND t.product_id IS NOT NULL
        GROUP BY 1, 2 ORDER BY 1, 2`,
      [o.projectId, o.days],
    ),
  ]);
  return {
    days: o.days,
    perDay: perDay.rows.map((r) => ({
      day: r.day,
      productId: r.product_id,
      currency: r.currency,
      count: r.count,
      grossMicros: Number(r.gross ?? 0),
    })),
    perProduct: perProduct.rows.map((r) => ({
      productId: r.product_id,
      currency: r.currency,
      count: r.count,
      grossMicros: Number(r.gross ?? 0),
      refunded: r.refunded,
    })),
  };
}

export const listStorePurchasesAs = viewerRead(listPurchases);
export const storePurchaseAs = viewerRead(purchase);
export const storeRevenueAs = viewerRead(revenue);
/** Belongs beside listStoreProducts (products.ts); here until it moves there. */
export const listStoreProductsAs = viewerRead(listStoreProducts);
