import { pool } from "../../db";
import { AppError } from "../../errors";
import { ROLE_RANK } from "../../identity/operator";
import { authorize, type OperatorContext } from "../command";
import { aheadOf } from "../leaderboards/entries";
import { playerNotes, playerTags } from "./notes";

/**
 * What support reads on a player's page beside the profile (./admin.ts): when the player was
 * last seen and with which client, their board entries with ranks, their ban history (from the
 * audit log) and the studio's notes and tags. One read per part, one after another (inside a
 * transaction every query shares its one connection).
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The player's most recent entries shown (one per board and period). */
export const BOARD_ENTRIES_SHOWN = 50;
/** Ban history rows shown, newest first. */
export const BAN_HISTORY_SHOWN = 50;

export type BanHistoryRow = {
  action: string;
  operatorEmail: string | null;
  createdAt: string;
  reason: string | null;
  until: string | null;
};

export async function playerSupport(o: { projectId: string; playerId: string }) {
  if (!UUID.test(o.playerId)) throw new AppError("PLAYER_NOT_FOUND");
  const { rows } = await pool().query<{
    last_seen_at: Date | null;
    last_login_at: Date | null;
    client_version: string | null;
    platform: string | null;
  }>("SELECT last_seen_at, last_login_at, client_version, platform FROM players WHERE project_id = $1 AND id = $2::uuid", [
    o.projectId,
    o.playerId,
  ]);
  const player = rows[0];
  if (!player) throw new AppError("PLAYER_NOT_FOUND");
  const boards = await pool().query<{
    leaderboard_id: string;
    name: string;
    period: string;
    score: number;
    rank: number;
    updated_at: Date;
  }>(
    `SELECT e.leaderboard_id, l.name, e.period, e.score, e.updated_at,
            ${aheadOf(["e.project_id", "e.leaderboard_id", "e.period"], "e.sort_key", "e.seq")} + 1 AS rank
       FROM leaderboard_entries e JOIN leaderboards l ON l.project_id = e.project_id AND l.id = e.leaderboard_id
      WHERE e.project_id = $1 AND e.player_id = $2::uuid
      ORDER BY e.updated_at DESC LIMIT ${BOARD_ENTRIES_SHOWN}`,
    [o.projectId, o.playerId],
  );
  // Every audited ban and unban of this player: by an operator, a bulk action, a job, moderation.
  const bans = await pool().query<{ action: string; email: string | null; created_at: Date; after: unknown }>(
    `SELECT a.action, op.email, a.created_at, a.after FROM audit_log a LEFT JOIN operators op ON op.id = a.operator_id
      WHERE a.project_id = $1 AND a.target = $2 AND a.action ~ '(^|\\.)(un)?ban($|[.-])'
      ORDER BY a.id DESC LIMIT ${BAN_HISTORY_SHOWN}`,
    [o.projectId, o.playerId],
  );
  const field = (after: unknown, key: string) => {
    const value = after && typeof after === "object" ? (after as Record<string, unknown>)[key] : undefined;
    return typeof value === "string" ? value : null;
  };
  return {
    lastSeenAt: (player.last_seen_at ?? player.last_login_at)?.toISOString() ?? null,
    /** Where lastSeenAt came from: the last sign-in or refresh, or only the last sign-in (older rows). */
    lastSeenSource: player.last_seen_at ? ("activity" as const) : player.last_login_at ? ("login" as const) : null,
    clientVersion: player.client_version,
    platform: player.platform,
    boards: boards.rows.map((b) => ({
      leaderboardId: b.leaderboard_id,
      name: b.name,
      period: b.period,
      score: b.score,
      rank: b.rank,
      updatedAt: b.updated_at.toISOString(),
    })),
    banHistory: bans.rows.map(
      (b): BanHistoryRow => ({
        action: b.action,
        operatorEmail: b.email,
        createdAt: b.created_at.toISOString(),
        reason: field(b.after, "reason"),
        until: field(b.after, "until"),
      }),
    ),
    notes: await playerNotes(o),
    tags: await playerTags(o),
  };
}

/** The support read as a member sees it: which notes are theirs, and whether they may delete anyone's (owners). */
export async function playerSupportAs(ctx: OperatorContext, o: { projectId: string; playerId: string }) {
  const actor = await authorize(ctx, o.projectId, "VIEWER");
  const support = await playerSupport(o);
  return {
    ...support,
    notes: support.notes.map((n) => ({ ...n, mine: n.authorId === actor.operatorId })),
    mayDeleteAnyNote: ROLE_RANK[actor.role] >= ROLE_RANK.OWNER,
  };
}
