import { pool } from "../db";
import { env } from "../env";

/**
 * How long records kept for support are kept, run by the hourly housekeeping (server/maintenance.ts):
 * - a rejected store receipt (refused, kept so support can see what a player sent and why it was
 *   refused) is deleted REJECTED_RECEIPT_RETENTION_DAYS after it was refused (its last update);
 * - a resolved player report is deleted RESOLVED_REPORT_RETENTION_DAYS after it was resolved (an
 *   appeal reaches this far back; the ban itself and its history stay with the player).
 * Open reports, granted and refunded receipts (the ledger's evidence) and held refunds are kept.
 * Each batch is one short statement of its own, oldest first, rows another transaction holds skipped.
 */
export const PRUNE_BATCH = 5_000;

export type PrunedRecords = { rejectedReceipts: number; resolvedReports: number };

export async function pruneSupportRecords(
  o: { now?: Date; rejectedReceiptDays?: number; resolvedReportDays?: number; batchSize?: number } = {},
): Promise<PrunedRecords> {
  const now = (o.now ?? new Date()).getTime();
  const batch = o.batchSize ?? PRUNE_BATCH;
  const receiptsBefore = new Date(now - (o.rejectedReceiptDays ?? env().REJECTED_RECEIPT_RETENTION_DAYS) * 86_400_000);
  const reportsBefore = new Date(now - (o.resolvedReportDays ?? env().RESOLVED_REPORT_RETENTION_DAYS) * 86_400_000);
  const rejectedReceipts = await pruneOlderThan(
    batch,
    { table: "store_transactions", status: "rejected", at: "updated_at" },
    receiptsBefore,
  );
  const resolvedReports = await pruneOlderThan(batch, { table: "player_reports", status: "resolved", at: "resolved_at" }, reportsBefore);
  return { rejectedReceipts, resolvedReports };
}

/** The kinds of record retention deletes: fixed names, never input (they are spliced into the statement). */
type Prunable =
  | { table: "store_transactions"; status: "rejected"; at: "updated_at" }
  | { table: "player_reports"; status: "resolved"; at: "resolved_at" };

/** Deletes the rows of `kind` whose time is before `cutoff`, oldest first, `batch` rows a statement. */
function pruneOlderThan(batch: number, kind: Prunable, cutoff: Date): Promise<number> {
  return deleteInBatches(
    batch,
    `DELETE FROM ${kind.table} WHERE id IN (
       SELECT id FROM ${kind.table} WHERE status = '${kind.status}' AND ${kind.at} < $1
        ORDER BY ${kind.at} LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    cutoff,
  );
}

/** Runs `sql` (parameters: the cutoff, the batch size) until a batch deletes fewer than `batch` rows. */
export async function deleteInBatches(batch: number, sql: string, cutoff: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await pool().query(sql, [cutoff, batch]);
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < batch) return total;
  }
}
