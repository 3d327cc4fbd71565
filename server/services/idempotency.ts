import { createHash } from "node:crypto";
import { pool } from "../db";
import { AppError } from "../errors";

/**
 * Idempotency-Key records, per player. A request with a key first claims it (one INSERT, in
 * its own statement, so a parallel repeat sees it in flight: 409 IDEMPOTENCY_IN_PROGRESS), runs
 * its change, and completes the record with the response inside the change's own transaction —
 * a crash between the change and the record is impossible: both commit or neither does. A
 * failed change releases its claim (it changed nothing; a retry runs again). A claim left by a
 * crashed process is taken over after CLAIM_STALE_SECONDS. Records are kept RETENTION_HOURS.
 */
export const RETENTION_HOURS = 24;
export const CLAIM_STALE_SECONDS = 60;

export type IdempotencyScope = { projectId: string; playerId: string; key: string; requestHash: string };
export type StoredResponse = { status: number; body: unknown };

/** What identifies "the same request": method, path and the parsed body. */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash("sha256")
    .update(`${method} ${path}\n${JSON.stringify(body ?? null)}`)
    .digest("hex");
}

type Existing = { request_hash: string; status: number | null; response: unknown; stale: boolean; expired: boolean };

/** Claims the key, or returns the stored response to replay; throws 422 (other body) or 409 (in flight). */
export async function claimIdempotencyKey(s: IdempotencyScope): Promise<StoredResponse | null> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const claimed = await pool().query({
      name: "idempotency-claim",
      text: `INSERT INTO idempotency_keys (project_id, player_id, key, request_hash) VALUES ($1, $2, $3, $4)
             ON CONFLICT (project_id, player_id, key) DO NOTHING`,
      values: [s.projectId, s.playerId, s.key, s.requestHash],
    });
    if (claimed.rowCount === 1) return null;
    const { rows } = await pool().query<Existing>({
      name: "idempotency-read",
      text: `SELECT request_hash, status, response,
                    completed_at IS NULL AND created_at < now() - make_interval(secs => $4) AS stale,
                    created_at < now() - make_interval(hours => $5) AS expired
               FROM idempotency_keys WHERE project_id = $1 AND player_id = $2 AND key = $3`,
      values: [s.projectId, s.playerId, s.key, CLAIM_STALE_SECONDS, RETENTION_HOURS],
    });
    const existing = rows[0];
    if (!existing) continue; // released meanwhile: claim again
    if (existing.expired || existing.stale) {
      await pool().query("DELETE FROM idempotency_keys WHERE project_id = $1 AND player_id = $2 AND key = $3 AND request_hash = $4", [
        s.projectId,
        s.playerId,
        s.key,
        existing.request_hash,
      ]);
      continue;
    }
    if (existing.request_hash !== s.requestHash) throw new AppError("IDEMPOTENCY_KEY_REUSED");
    if (existing.status === null) throw new AppError("IDEMPOTENCY_IN_PROGRESS", { headers: { "Retry-After": "1" } });
    return { status: existing.status, body: existing.response };
  }
  throw new AppError("IDEMPOTENCY_IN_PROGRESS", { headers: { "Retry-After": "1" } });
}

/** Records the response; call inside the transaction of the change the key guards. */
export async function completeIdempotencyKey(s: IdempotencyScope, response: StoredResponse): Promise<void> {
  await pool().query({
    name: "idempotency-complete",
    text: `UPDATE idempotency_keys SET status = $4, response = $5::jsonb, completed_at = now()
            WHERE project_id = $1 AND player_id = $2 AND key = $3`,
    values: [s.projectId, s.playerId, s.key, response.status, JSON.stringify(response.body ?? null)],
  });
}

/** Gives the claim up after the change failed (nothing changed; a retry runs again). */
export async function releaseIdempotencyKey(s: IdempotencyScope): Promise<void> {
  await pool().query(
    "DELETE FROM idempotency_keys WHERE project_id = $1 AND player_id = $2 AND key = $3 AND request_hash = $4 AND completed_at IS NULL",
    [s.projectId, s.playerId, s.key, s.requestHash],
  );
}

/** Housekeeping: records older than the retention. */
export async function pruneIdempotencyKeys(): Promise<number> {
  const { rowCount } = await pool().query("DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => $1)", [
    RETENTION_HOURS,
  ]);
  return rowCount ?? 0;
}
