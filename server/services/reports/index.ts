import type pg from "pg";
import type { PlayerActor } from "../../actor";
import { uuidv7 } from "../../crypto";
import { pool, transaction } from "../../db";
import { AppError } from "../../errors";
import { emitEvent } from "../webhooks/events";
import { DEFAULT_REPORT_REASONS, REPORT_LIMIT } from "./schemas";

/**
 * Players reporting players. A report is accepted (202) and waits in the project's moderation
 * queue; nothing happens to the reported player until an operator acts. One open report per
 * reporter and reported player: reporting again while it is open updates its reason and note
 * (same id, no second row). New reports count against the reporter's limit (REPORT_LIMIT: 10 per
 * hour, a sliding window over the reporter's own rows, so a refusal's Retry-After is exact).
 * A new report is announced as the webhook event `player.reported`, in its transaction.
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
    await assertUnderLimit(client, reporterId, now);
    const id = uuidv7(now.getTime());
    await client.query(
      `INSERT INTO player_reports (id, project_id, reporter_id, target_id, reason, note, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
      [id, projectId, reporterId, o.targetId, o.reason, o.note ?? null, now],
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

async function assertUnderLimit(client: pg.PoolClient, reporterId: string, now: Date): Promise<void> {
  const { limit, windowSeconds } = REPORT_LIMIT;
  const since = new Date(now.getTime() - windowSeconds * 1000);
  const { rows } = await client.query<{ n: number; oldest: Date | null }>(
    `SELECT count(*)::int AS n, min(created_at) AS oldest FROM player_reports WHERE reporter_id = $1 AND created_at > $2`,
    [reporterId, since],
  );
  const { n, oldest } = rows[0] ?? { n: 0, oldest: null };
  if (n < limit || !oldest) return;
  const retryAfterSeconds = Math.max(1, Math.ceil((oldest.getTime() + windowSeconds * 1000 - now.getTime()) / 1000));
  throw new AppError("RATE_LIMITED", {
    message: `At most ${limit} reports per hour.`,
    headers: { "Retry-After": String(retryAfterSeconds) },
    details: { limit, windowSeconds, retryAfterSeconds, scope: "player-reports" },
  });
}
