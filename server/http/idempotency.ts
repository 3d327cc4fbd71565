import { createHash } from "node:crypto";
import { z } from "zod";
import { pool, transaction } from "../db";
import { AppError } from "../errors";
import { Reply } from "./respond";

/**
 * Idempotency-Key records, per player. A request with a key claims it inside the transaction of
 * the change it guards: a transaction-scoped advisory lock on the key (pooler-safe), then the
 * record — a replay if it is complete, else a claim row written in the same transaction and
 * completed with the response before COMMIT. So the claim lives exactly as long as its request:
 *   - a parallel repeat finds the lock taken: 409 IDEMPOTENCY_IN_PROGRESS;
 *   - a refused change rolls back, claim included: its retry runs again;
 *   - a crashed process's transaction is rolled back by Postgres, lock and claim with it: a retry
 *     after a restart runs at once (no claim to wait out), still exactly once, since the change
 *     and the record of its answer commit together or not at all.
 * A committed record that is not complete can only be a leftover of an earlier version (which
 * claimed in a statement of its own); holding the lock proves nobody runs it, so it is taken over.
 * Records are kept RETENTION_HOURS.
 */
export const RETENTION_HOURS = 24;

export type IdempotencyScope = { projectId: string; playerId: string; key: string; requestHash: string };
export type StoredResponse = { status: number; body: unknown };

/** What identifies "the same request": method, path and the parsed body. */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash("sha256")
    .update(`${method} ${path}\n${JSON.stringify(body ?? null)}`)
    .digest("hex");
}

type Existing = { request_hash: string; status: number | null; response: unknown; expired: boolean };

/**
 * Inside the caller's transaction: claims the key, or returns the stored response to replay;
 * throws 422 (the key with another body) or 409 (the key's request is running now).
 */
export async function claimIdempotencyKey(s: IdempotencyScope): Promise<StoredResponse | null> {
  const { rows: locked } = await pool().query<{ ok: boolean }>({
    name: "idempotency-lock",
    text: "SELECT pg_try_advisory_xact_lock(hashtextextended($1 || '/' || $2 || '/' || $3, 0)) AS ok",
    values: [s.projectId, s.playerId, s.key],
  });
  if (!locked[0]?.ok) throw new AppError("IDEMPOTENCY_IN_PROGRESS", { headers: { "Retry-After": "1" } });
  const { rows } = await pool().query<Existing>({
    name: "idempotency-read",
    text: `SELECT request_hash, status, response, created_at < now() - make_interval(hours => $4) AS expired
             FROM idempotency_keys WHERE project_id = $1 AND player_id = $2 AND key = $3`,
    values: [s.projectId, s.playerId, s.key, RETENTION_HOURS],
  });
  const existing = rows[0];
  if (existing && !existing.expired && existing.status !== null) {
    if (existing.request_hash !== s.requestHash) throw new AppError("IDEMPOTENCY_KEY_REUSED");
    return { status: existing.status, body: existing.response };
  }
  // None, expired, or an incomplete leftover nobody runs (we hold the lock): claim it afresh.
  await pool().query({
    name: "idempotency-claim",
    text: `INSERT INTO idempotency_keys (project_id, player_id, key, request_hash) VALUES ($1, $2, $3, $4)
           ON CONFLICT (project_id, player_id, key)
           DO UPDATE SET request_hash = EXCLUDED.request_hash, status = NULL, response = NULL, created_at = now(), completed_at = NULL`,
    values: [s.projectId, s.playerId, s.key, s.requestHash],
  });
  return null;
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

/** Housekeeping: records older than the retention. */
export async function pruneIdempotencyKeys(): Promise<number> {
  const { rowCount } = await pool().query("DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => $1)", [
    RETENTION_HOURS,
  ]);
  return rowCount ?? 0;
}

// ---- The request path ----

/** 1–255 visible ASCII characters, as the contract says; anything else is a 400, not a silent no-op. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The scope of a request's Idempotency-Key, or null when it sends none. */
export function idempotencyScope(req: Request, url: URL, projectId: string, playerId: string, body: unknown): IdempotencyScope | null {
  const key = req.headers.get("idempotency-key");
  if (key === null) return null;
  if (!KEY_PATTERN.test(key)) {
    throw new AppError("VALIDATION_ERROR", {
      details: { issues: [{ path: "headers.idempotency-key", message: "Idempotency-Key must be 1–255 visible ASCII characters." }] },
    });
  }
  return { projectId, playerId, key, requestHash: requestHash(req.method, url.pathname, body) };
}

/**
 * Runs a change at most once per key: a completed key replays its first answer (with
 * `Idempotent-Replayed: true`); otherwise the claim, the change and the record of its answer
 * commit in one transaction (every query the service makes joins it), so a refused change or a
 * crash leaves no claim behind.
 */
export async function runIdempotent(scope: IdempotencyScope, run: () => Promise<Reply>): Promise<Reply> {
  return transaction(async () => {
    const stored = await claimIdempotencyKey(scope);
    if (stored) return new Reply(stored.status, stored.body, { "Idempotent-Replayed": "true" });
    const reply = await run();
    await completeIdempotencyKey(scope, { status: reply.status, body: reply.body });
    return reply;
  });
}

export const ZIdempotencyHeader = z.object({
  "Idempotency-Key": z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({ description: "1–255 visible ASCII characters, unique per change; kept 24 hours per player." }),
});
