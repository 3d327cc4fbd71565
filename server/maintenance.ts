import { transaction } from "./db";
import { pruneIdempotencyKeys } from "./http/idempotency";
import { logger } from "./log";
import { handle, QUEUES } from "./queue";
import { pruneSupportRecords } from "./services/retention";
import { pruneWebhookOutbox } from "./services/webhooks/retention";
import { pruneUsage } from "./usage";

/**
 * Housekeeping that keeps auth tables from growing without bound. Ended sessions (expired or
 * revoked) are deleted a week after they ended, with their refresh tokens. Used refresh tokens
 * are kept a week for reuse detection, then deleted: a token presented more than a week after
 * it was rotated is simply unknown (401 INVALID_TOKEN) instead of revoking its session.
 * Idempotency-Key records are deleted after their 24 hours; the health view's counts per
 * server/usage.ts (minute rows 2 hours, hour rows 8 days, active-player days 32 days). Webhook
 * events and finished deliveries after WEBHOOK_RETENTION_DAYS (server/services/webhooks/retention.ts),
 * in short batches outside the auth tables' transaction; rejected store receipts and resolved
 * player reports after their retention (server/services/retention.ts), likewise.
 */
export const RETENTION_DAYS = 7;
const MAINTENANCE_LOCK = 72707370;

export async function pruneAuthTables(now = new Date()): Promise<{ sessions: number; refreshTokens: number }> {
  // One instance at a time; the others skip this round. A transaction-scoped lock, released by
  // COMMIT or ROLLBACK on the connection that took it: a session-level lock and its unlock may
  // run on different server connections behind a transaction pooler (PgBouncer), leaking the lock.
  return transaction(async (client) => {
    const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_xact_lock($1) AS locked", [MAINTENANCE_LOCK]);
    if (!rows[0]?.locked) return { sessions: 0, refreshTokens: 0 };
    const cutoff = new Date(now.getTime() - RETENTION_DAYS * 86_400_000);
    const sessions = await client.query("DELETE FROM sessions WHERE expires_at < $1 OR revoked_at < $1", [cutoff]);
    const tokens = await client.query("DELETE FROM refresh_tokens WHERE used_at < $1", [cutoff]);
    // Their pool() queries join this transaction (see transaction() in db.ts).
    await pruneIdempotencyKeys();
    await pruneUsage();
    return { sessions: sessions.rowCount ?? 0, refreshTokens: tokens.rowCount ?? 0 };
  });
}

/** The housekeeping job (hourly, once per cluster: server/queue.ts SCHEDULES). */
export function registerHousekeeping(): void {
  handle(QUEUES.housekeeping, async () => {
    const r = await pruneAuthTables();
    if (r.sessions || r.refreshTokens)
      logger("maintenance").info(r, `pruned ${r.sessions} ended sessions, ${r.refreshTokens} used refresh tokens`);
    const w = await pruneWebhookOutbox();
    if (w.deliveries || w.events)
      logger("maintenance").info(w, `pruned ${w.events} webhook events, ${w.deliveries} finished webhook deliveries`);
    const s = await pruneSupportRecords();
    if (s.rejectedReceipts || s.resolvedReports)
      logger("maintenance").info(s, `pruned ${s.rejectedReceipts} rejected store receipts, ${s.resolvedReports} resolved player reports`);
  });
}
