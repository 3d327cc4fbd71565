import { createHmac } from "node:crypto";
import type pg from "pg";
import type { PlayerActor } from "../../actor";
import { uuidv7 } from "../../crypto";
import { pool, transaction } from "../../db";
import { env } from "../../env";
import { AppError } from "../../errors";
import { ipSubject } from "../../ratelimit/ip";
import { emitEvent } from "../webhooks/events";
import { DEFAULT_REPORT_REASONS, NEW_ACCOUNT_SECONDS, REPORT_ADDRESS_LIMIT, REPORT_LIMIT, REPORT_TARGET_LIMIT } from "./schemas";

/**
 * Players reporting players. A report is accepted (202) and waits in the project's moderation
 * queue; nothing happens to the reported player until an operator acts. One open report per
 * reporter and reported player: reporting again while it is open updates its reason and note
 * (same id, no second row). New reports count against the reporter's limit (REPORT_LIMIT: 10 per
 * hour, a sliding window over the reporter's own rows, so a refusal's Retry-After is exact), the
 * address's (REPORT_ADDRESS_LIMIT: 30 per hour per project, whoever files them) and, for a reporter
 * whose account is new, the reported player's (REPORT_TARGET_LIMIT: 20 per hour from new accounts).
 * The address is kept only as a keyed hash (addressHash). A new report is announced as the webhook
 * event `player.reported`, in its transaction.
 */
export async function reportReasonsOf(projectId: string): Promise<string[]> {
  const { rows } = await pool().query<{ report_reasons: string[] | null }>({
    name: "report-reasons",
    text: "SELECT report_reasons FROM moderation_settings WHERE project_id = $1",
    values: [projectId],
  });
  return rows[0]?.report_reasons ?? [...DEFAULT_REPORT_REASONS];
}

/** Replaces the project's list (open reports keep their reason); the caller checked the list (ZReportReasons) and the actor. */
export async function writeReportReasons(projectId: string, reasons: readonly string[]): Promise<void> {
  await pool().query(
    `INSERT INTO moderation_settings (project_id, report_reasons, updated_at) VALUES ($1, $2, now())
     ON CONFLICT (project_id) DO UPDATE SET report_reasons = EXCLUDED.report_reasons, updated_at = now()`,
    [projectId, reasons],
  );
}

export async function reportPlayer(o: {
  actor: PlayerActor;
  targetId: string;
  reason: string;
  note?: string;
  /** The client address, from the rate limiter's source (caller.ip: X-Forwarded-For as the launcher and TRUST_PROXY leave it). */
  ip?: string;
  now?: Date;
}): Promise<{ id: string; status: "open" }> {
  const { projectId, playerId: reporterId } = o.actor;
  if (o.targetId === reporterId) throw new AppError("CANNOT_REPORT_SELF");
  const reasons = await reportReasonsOf(projectId);
  if (!reasons.includes(o.reason))
    throw new AppError("VALIDATION_ERROR", {
      message: `Unknown report reason: use one of ${reasons.join(", ")}.`,
      details: { issues: [{ path: "body.reason", message: `Must be one of: ${reasons.join(", ")}.` }], reasons },
    });
  const now = o.now ?? new Date();
  return transaction(async (client) => {
    const target = await client.query("SELECT 1 FROM players WHERE id = $1 AND project_id = $2", [o.targetId, projectId]);
    if (target.rowCount === 0) throw new AppError("PLAYER_NOT_FOUND");
    // One reporter's reports are decided one at a time: the count and the insert cannot interleave.
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`player-report:${reporterId}`]);
    const repeat = await client.query<{ id: string }>(
      `UPDATE player_reports SET reason = $4, note = $5, updated_at = $6
        WHERE project_id = $1 AND reporter_id = $2 AND target_id = $3 AND status = 'open' RETURNING id`,
      [projectId, reporterId, o.targetId, o.reason, o.note ?? null, now],
    );
    const updated = repeat.rows[0];
    if (updated) return { id: updated.id, status: "open" as const };
    // A studio's game server acting for the player (server key) sends from its own address, the
    // same for all its players: that address says nothing of the reporter and is not recorded.
    const address = o.actor.via === "token" && o.ip !== undefined ? addressHash(projectId, o.ip) : null;
    // So are the address's and the reported player's new reports. Always in the order reporter,
    // address, reported player (a select list is evaluated left to right): two filings never wait
    // for each other's locks in a cycle.
    await client.query(
      `SELECT CASE WHEN $1::text IS NOT NULL THEN pg_advisory_xact_lock(hashtextextended($1, 0)) END,
              pg_advisory_xact_lock(hashtextextended($2, 0))`,
      [address && `player-report-address:${address.toString("hex")}`, `player-report-target:${o.targetId}`],
    );
    await assertUnderLimits(client, { projectId, reporterId, targetId: o.targetId, address, now });
    const id = uuidv7(now.getTime());
    await client.query(
      `INSERT INTO player_reports (id, project_id, reporter_id, target_id, reason, note, reporter_address_hash, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
      [id, projectId, reporterId, o.targetId, o.reason, o.note ?? null, address, now],
    );
    // A new report only (a repeat above updates the open one and announces nothing); about the reported player.
    await emitEvent({
      projectId,
      type: "player.reported",
      playerId: o.targetId,
      data: {
        reportId: id,
        playerId: o.targetId,
        reporterId,
        reason: o.reason,
        ...(o.note === undefined ? {} : { note: o.note }),
        createdAt: now.toISOString(),
      },
    });
    return { id, status: "open" as const };
  });
}

/**
 * The filing address as stored: HMAC-SHA256 under the server's JWT secret of the project and the
 * address as the rate limiter counts it (IPv6 per /64), the first 16 bytes. Keyed, because a plain
 * hash of an IPv4 address is reversed by hashing all 2^32 candidates; with the project, because
 * the same address in two projects need not be linkable. A new JWT_SECRET starts new groups.
 */
export function addressHash(projectId: string, ip: string): Buffer {
  return createHmac("sha256", env().JWT_SECRET)
    .update(`player-report-address:${projectId}:${ipSubject(ip)}`)
    .digest()
    .subarray(0, 16);
}

type Scope = "player-reports" | "player-reports-address" | "player-reports-target";
const LIMITS: Record<Scope, { limit: number; windowSeconds: number; message: string }> = {
  "player-reports": { ...REPORT_LIMIT, message: `At most ${REPORT_LIMIT.limit} reports per hour.` },
  "player-reports-address": {
    ...REPORT_ADDRESS_LIMIT,
    message: `At most ${REPORT_ADDRESS_LIMIT.limit} reports per hour from one address.`,
  },
  "player-reports-target": {
    ...REPORT_TARGET_LIMIT,
    message: `This player received ${REPORT_TARGET_LIMIT.limit} reports from new accounts this hour: try again later.`,
  },
};

/**
 * One statement for the three sliding windows. Each asks for the `limit`-th newest report of its
 * window: when there is one the limit is spent, and a slot frees when that report leaves the
 * window, so Retry-After is exact. The reported player's window counts reports from accounts that
 * were new when they filed, and applies only when this reporter's account is new. A refusal
 * answers the scope that frees last: retrying after it is not refused by another.
 */
async function assertUnderLimits(
  client: pg.PoolClient,
  o: { projectId: string; reporterId: string; targetId: string; address: Buffer | null; now: Date },
): Promise<void> {
  const since = (scope: Scope) => new Date(o.now.getTime() - LIMITS[scope].windowSeconds * 1000);
  const { rows } = await client.query<Record<Scope, Date | null>>(
    `SELECT
       (SELECT created_at FROM player_reports WHERE reporter_id = $1 AND created_at > $2
         ORDER BY created_at DESC OFFSET $3 LIMIT 1) AS "player-reports",
       (SELECT created_at FROM player_reports WHERE project_id = $4 AND reporter_address_hash = $5 AND created_at > $6
         ORDER BY created_at DESC OFFSET $7 LIMIT 1) AS "player-reports-address",
       (SELECT r.created_at FROM player_reports r JOIN players rp ON rp.id = r.reporter_id
         WHERE r.target_id = $8 AND r.created_at > $9 AND rp.created_at > r.created_at - make_interval(secs => $11)
           AND (SELECT created_at FROM players WHERE id = $1) > $12::timestamptz - make_interval(secs => $11)
         ORDER BY r.created_at DESC OFFSET $10 LIMIT 1) AS "player-reports-target"`,
    [
      o.reporterId,
      since("player-reports"),
      LIMITS["player-reports"].limit - 1,
      o.projectId,
      o.address,
      since("player-reports-address"),
      LIMITS["player-reports-address"].limit - 1,
      o.targetId,
      since("player-reports-target"),
      LIMITS["player-reports-target"].limit - 1,
      NEW_ACCOUNT_SECONDS,
      o.now,
    ],
  );
  const spent = Object.entries(rows[0] ?? {}).flatMap(([scope, oldest]) => {
    if (!(oldest instanceof Date)) return [];
    const { windowSeconds } = LIMITS[scope as Scope];
    return [
      {
        scope: scope as Scope,
        retryAfterSeconds: Math.max(1, Math.ceil((oldest.getTime() + windowSeconds * 1000 - o.now.getTime()) / 1000)),
      },
    ];
  });
  const refusal = spent.sort((a, b) => b.retryAfterSeconds - a.retryAfterSeconds)[0];
  if (!refusal) return;
  const { limit, windowSeconds, message } = LIMITS[refusal.scope];
  throw new AppError("RATE_LIMITED", {
    message,
    headers: { "Retry-After": String(refusal.retryAfterSeconds) },
    details: { limit, windowSeconds, retryAfterSeconds: refusal.retryAfterSeconds, scope: refusal.scope },
  });
}
