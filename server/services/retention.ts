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
  const rejectedReceipts = await deleteInBatches(
    batch,
    `DELETE FROM store_transactions WHERE id IN (
       SELECT id FROM store_transactions WHERE status = 'rejected' AND updated_at < $1
        ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    receiptsBefore,
  );
  const resolvedReports = await deleteInBatches(
    batch,
    `DELETE FROM player_reports WHERE id IN (
       SELECT id FROM player_reports WHERE status = 'resolved' AND resolved_at < $1
        ORDER BY resolved_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    reportsBefore,
  );
  return { rejectedReceipts, resolvedReports };
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
