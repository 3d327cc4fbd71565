import { env } from "../../env";
import { deleteInBatches } from "../retention";

/**
 * The outbox's retention, run by the hourly housekeeping (server/maintenance.ts). Older than
 * WEBHOOK_RETENTION_DAYS (by creation time):
 * - a finished delivery (succeeded, or failed — a skipped one is failed too) is deleted;
 * - an event is deleted unless it still has a pending delivery (due, waiting for a retry, or in
 *   flight: a pending delivery is never deleted, so neither is its event) or a delivery younger
 *   than the retention (a recent resend or replay keeps its history).
 * Each batch is one short statement of its own (no transaction around them), oldest first, so a
 * big backlog never holds long locks; rows another transaction holds are skipped (SKIP LOCKED)
 * and left for the next run.
 */
export const PRUNE_BATCH = 5_000;

export type Pruned = { deliveries: number; events: number };

export async function pruneWebhookOutbox(o: { now?: Date; retentionDays?: number; batchSize?: number } = {}): Promise<Pruned> {
  const days = o.retentionDays ?? env().WEBHOOK_RETENTION_DAYS;
  const cutoff = new Date((o.now ?? new Date()).getTime() - days * 86_400_000);
  const batch = o.batchSize ?? PRUNE_BATCH;
  const deliveries = await deleteInBatches(
    batch,
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT id FROM webhook_deliveries
        WHERE created_at < $1 AND status <> 'PENDING'
        ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    cutoff,
  );
  // Locking the event (FOR UPDATE) conflicts with the key-share lock a resend's or replay's new
  // delivery takes on it, so an event being given a delivery right now is skipped, not cascaded.
  const events = await deleteInBatches(
    batch,
    `DELETE FROM webhook_events WHERE id IN (
       SELECT e.id FROM webhook_events e
        WHERE e.created_at < $1
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND (d.status = 'PENDING' OR d.created_at >= $1))
        ORDER BY e.created_at LIMIT $2 FOR UPDATE OF e SKIP LOCKED)`,
    cutoff,
  );
  return { deliveries, events };
}
