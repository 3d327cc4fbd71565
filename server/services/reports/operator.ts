import type { OperatorActor } from "../../actor";
import { pool } from "../../db";
import { AppError } from "../../errors";
import { authorize, type OperatorContext, runCommand, viewerRead } from "../command";
import { removeEntryAs } from "../leaderboards/commands";
import { loadLeaderboard } from "../leaderboards/definitions";
import { currentPeriod } from "../leaderboards/entries";
import { putPlayerData } from "../player-data";
import { banPlayerAs } from "../players/commands";
import { reportReasonsOf, writeReportReasons } from "./index";
import { NEW_ACCOUNT_SECONDS, type QueueFilter, type ReportResolution, WARNING_KEY } from "./schemas";

/**
 * The moderation queue: open player reports grouped by reported player, and what operators do
 * about them. Viewers read; admins act. Every action closes the open reports of the player it
 * answers with a resolution (dismissed, warned, banned, entries_removed), audited through
 * runCommand; a ban and entry removals reuse the players' and boards' own audited services.
 */
type Target = { projectId: string; playerId: string };

/** Reporters of one kind in a case: how many, from how many recorded addresses, how many with none recorded. */
export type ReporterCount = { reporters: number; addresses: number; unrecorded: number };

export type QueueGroup = {
  playerId: string;
  displayName: string | null;
  banned: boolean;
  reports: number;
  reporters: number;
  /**
   * What the "most" order ranks by (docs/operating/moderation.md): established reporters count one
   * per address (one each when no address was recorded), and all new-account reporters together
   * count as one.
   */
  weight: number;
  /** Reporters whose account was at least NEW_ACCOUNT_SECONDS old when they filed. */
  established: ReporterCount;
  /** Reporters whose account was younger than that. */
  newAccounts: ReporterCount;
  /** The weight in words: "248 reports from 248 reporters, counted as 1: 248 new accounts from 1 address". */
  why: string;
  reasons: Array<{ reason: string; count: number }>;
  latestNote: string | null;
  latestAt: string;
};

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function describeKind(kind: string, c: ReporterCount): string | null {
  if (c.reporters === 0) return null;
  const from = [
    ...(c.addresses > 0 ? [`from ${plural(c.addresses, "address", "addresses")}`] : []),
    ...(c.unrecorded > 0 ? [`${c.unrecorded} with no recorded address`] : []),
  ];
  return [plural(c.reporters, `${kind} account`), from.join(", ")].filter(Boolean).join(" ");
}

/** The sentence the queue shows under a case's count (its parts are QueueGroup's fields). */
export function rankingWhy(g: Pick<QueueGroup, "reports" | "reporters" | "weight" | "established" | "newAccounts">): string {
  const parts = [describeKind("established", g.established), describeKind("new", g.newAccounts)].filter(Boolean);
  return `${plural(g.reports, "report")} from ${plural(g.reporters, "reporter")}, counted as ${g.weight}: ${parts.join("; ")}`;
}

/**
 * One statement over the queue index (player_reports_queue) and the players' primary key: whether
 * each reporter was new when they filed (their account's age at the report's created_at, which a
 * repeat does not move), then per reported player the counts the weight is made of.
 */
async function moderationQueue(f: QueueFilter): Promise<{ groups: QueueGroup[]; reasons: string[] }> {
  const order = f.sort === "most" ? "weight DESC, reports DESC, latest_at DESC" : "latest_at DESC, reports DESC";
  const { rows } = await pool().query<{
    player_id: string;
    display_name: string | null;
    banned: boolean;
    reports: number;
    reporters: number;
    weight: number;
    established_reporters: number;
    established_addresses: number;
    established_unrecorded: number;
    new_reporters: number;
    new_addresses: number;
    new_unrecorded: number;
    reasons: Record<string, number>;
    latest_note: string | null;
    latest_at: Date;
  }>(
    `WITH open AS (
       SELECT r.target_id, r.reporter_id, r.note, r.updated_at, r.reporter_address_hash AS address,
              rp.created_at > r.created_at - make_interval(secs => $4) AS fresh
         FROM player_reports r JOIN players rp ON rp.id = r.reporter_id
        WHERE r.project_id = $1 AND r.status = 'open' AND ($2::text IS NULL OR r.reason = $2)
     )
     SELECT o.target_id AS player_id, p.display_name, p.banned_at IS NOT NULL AS banned,
            count(*)::int AS reports, count(DISTINCT o.reporter_id)::int AS reporters,
            (count(DISTINCT o.address) FILTER (WHERE NOT o.fresh)
              + count(DISTINCT o.reporter_id) FILTER (WHERE NOT o.fresh AND o.address IS NULL)
              + (bool_or(o.fresh))::int)::int AS weight,
            count(DISTINCT o.reporter_id) FILTER (WHERE NOT o.fresh)::int AS established_reporters,
            count(DISTINCT o.address) FILTER (WHERE NOT o.fresh)::int AS established_addresses,
            count(DISTINCT o.reporter_id) FILTER (WHERE NOT o.fresh AND o.address IS NULL)::int AS established_unrecorded,
            count(DISTINCT o.reporter_id) FILTER (WHERE o.fresh)::int AS new_reporters,
            count(DISTINCT o.address) FILTER (WHERE o.fresh)::int AS new_addresses,
            count(DISTINCT o.reporter_id) FILTER (WHERE o.fresh AND o.address IS NULL)::int AS new_unrecorded,
            (SELECT jsonb_object_agg(reason, n) FROM (SELECT reason, count(*)::int AS n FROM player_reports x
               WHERE x.project_id = $1 AND x.target_id = o.target_id AND x.status = 'open' GROUP BY reason) g) AS reasons,
            (array_agg(o.note ORDER BY o.updated_at DESC) FILTER (WHERE o.note IS NOT NULL))[1] AS latest_note,
            max(o.updated_at) AS latest_at
       FROM open o JOIN players p ON p.id = o.target_id AND p.project_id = $1
      GROUP BY o.target_id, p.display_name, p.banned_at
      ORDER BY ${order}
      LIMIT $3`,
    [f.projectId, f.reason ?? null, f.limit, NEW_ACCOUNT_SECONDS],
  );
  return {
    reasons: await reportReasonsOf(f.projectId),
    groups: rows.map((r) => {
      const counts = {
        reports: r.reports,
        reporters: r.reporters,
        weight: r.weight,
        established: { reporters: r.established_reporters, addresses: r.established_addresses, unrecorded: r.established_unrecorded },
        newAccounts: { reporters: r.new_reporters, addresses: r.new_addresses, unrecorded: r.new_unrecorded },
      };
      return {
        playerId: r.player_id,
        displayName: r.display_name,
        banned: r.banned,
        ...counts,
        why: rankingWhy(counts),
        reasons: Object.entries(r.reasons ?? {})
          .map(([reason, count]) => ({ reason, count }))
          .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)),
        latestNote: r.latest_note,
        latestAt: r.latest_at.toISOString(),
      };
    }),
  };
}

async function moderationPlayer(o: Target) {
  const players = await pool().query<{
    id: string;
    display_name: string | null;
    created_at: Date;
    last_seen_at: Date | null;
    banned_at: Date | null;
    banned_until: Date | null;
    ban_reason: string | null;
  }>(
    `SELECT id, display_name, created_at, last_seen_at, banned_at, banned_until, ban_reason
       FROM players WHERE id = $1 AND project_id = $2`,
    [o.playerId, o.projectId],
  );
  const p = players.rows[0];
  if (!p) throw new AppError("PLAYER_NOT_FOUND");
  const [reports, entries, bans] = [await reportsAgainst(o), await recentEntries(o), await banHistory(o)];
  const warning = await pool().query<{ value: { reason?: unknown; at?: unknown } }>(
    "SELECT value FROM player_data WHERE player_id = $1 AND project_id = $2 AND key = $3",
    [o.playerId, o.projectId, WARNING_KEY],
  );
  const given = warning.rows[0]?.value;
  return {
    player: {
      id: p.id,
      displayName: p.display_name,
      createdAt: p.created_at.toISOString(),
      lastSeenAt: p.last_seen_at?.toISOString() ?? null,
      ban: p.banned_at ? { at: p.banned_at.toISOString(), until: p.banned_until?.toISOString() ?? null, reason: p.ban_reason } : null,
    },
    /** The last warning (the private data key moderation.warning), null when none was given. */
    warning: given && typeof given.reason === "string" ? { reason: given.reason, at: String(given.at ?? "") } : null,
    reports,
    entries,
    banHistory: bans,
  };
}

async function reportsAgainst(o: Target) {
  const { rows } = await pool().query<{
    id: string;
    reporter_id: string;
    reporter_name: string | null;
    reason: string;
    note: string | null;
    status: string;
    resolution: string | null;
    created_at: Date;
    updated_at: Date;
    resolved_at: Date | null;
  }>(
    `SELECT r.id, r.reporter_id, p.display_name AS reporter_name, r.reason, r.note, r.status, r.resolution,
            r.created_at, r.updated_at, r.resolved_at
       FROM player_reports r JOIN players p ON p.id = r.reporter_id
      WHERE r.project_id = $1 AND r.target_id = $2
      ORDER BY r.status = 'open' DESC, r.updated_at DESC LIMIT 100`,
    [o.projectId, o.playerId],
  );
  return rows.map((r) => ({
    id: r.id,
    reporterId: r.reporter_id,
    reporterName: r.reporter_name,
    reason: r.reason,
    note: r.note,
    status: r.status as "open" | "resolved",
    resolution: r.resolution as ReportResolution | null,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    resolvedAt: r.resolved_at?.toISOString() ?? null,
  }));
}

/** The player's latest board entries, each marked when it is in its board's current (public) period. */
async function recentEntries(o: Target, now = new Date()) {
  const { rows } = await pool().query<{ leaderboard_id: string; name: string; period: string; score: number; updated_at: Date }>(
    `SELECT e.leaderboard_id, l.name, e.period, e.score, e.updated_at
       FROM leaderboard_entries e JOIN leaderboards l ON l.project_id = e.project_id AND l.id = e.leaderboard_id
      WHERE e.project_id = $1 AND e.player_id = $2
      ORDER BY e.updated_at DESC LIMIT 20`,
    [o.projectId, o.playerId],
  );
  const periods = new Map<string, string>();
  for (const id of new Set(rows.map((r) => r.leaderboard_id)))
    periods.set(id, currentPeriod(await loadLeaderboard(o.projectId, id), now).period);
  return rows.map((r) => ({
    leaderboardId: r.leaderboard_id,
    leaderboardName: r.name,
    period: r.period,
    current: periods.get(r.leaderboard_id) === r.period,
    score: r.score,
    updatedAt: r.updated_at.toISOString(),
  }));
}

/** Bans and unbans of the player, from the audit log (who, when, the reason and end a ban gave). */
async function banHistory(o: Target) {
  const { rows } = await pool().query<{
    action: string;
    created_at: Date;
    email: string | null;
    after: { reason?: string; until?: string } | null;
  }>(
    `SELECT a.action, a.created_at, op.email, a.after
       FROM audit_log a LEFT JOIN operators op ON op.id = a.operator_id
      WHERE a.project_id = $1 AND a.target = $2 AND a.action IN ('player.ban', 'player.unban')
      ORDER BY a.id DESC LIMIT 50`,
    [o.projectId, o.playerId],
  );
  return rows.map((r) => ({
    action: r.action === "player.ban" ? ("ban" as const) : ("unban" as const),
    at: r.created_at.toISOString(),
    by: r.email,
    reason: r.after?.reason ?? null,
    until: r.after?.until ?? null,
  }));
}

export const moderationQueueAs = viewerRead(moderationQueue);
export const moderationPlayerAs = viewerRead(moderationPlayer);
export const reportReasonsAs = viewerRead(async (o: { projectId: string }) => ({ reasons: await reportReasonsOf(o.projectId) }));

/** Replaces the project's report reasons (open reports keep theirs). Admins and owners; audited with before and after. */
export function setReportReasonsAs(ctx: OperatorContext, o: { projectId: string; reasons: string[] }) {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "moderation.reasons",
    before: async () => ({ reasons: await reportReasonsOf(o.projectId) }),
    run: async () => {
      await writeReportReasons(o.projectId, o.reasons);
      return { reasons: o.reasons };
    },
    after: (result) => result,
  });
}

/** Closes the player's open reports with `resolution`; PLAYER_NOT_FOUND for another project's player. */
async function closeReports(o: Target & { resolution: ReportResolution; note?: string }): Promise<{ closed: number }> {
  const exists = await pool().query("SELECT 1 FROM players WHERE id = $1 AND project_id = $2", [o.playerId, o.projectId]);
  if (exists.rowCount === 0) throw new AppError("PLAYER_NOT_FOUND");
  const { rowCount } = await pool().query(
    `UPDATE player_reports SET status = 'resolved', resolution = $3, resolution_note = $4, resolved_at = now(), updated_at = now()
      WHERE project_id = $1 AND target_id = $2 AND status = 'open'`,
    [o.projectId, o.playerId, o.resolution, o.note ?? null],
  );
  return { closed: rowCount ?? 0 };
}

const ACTION_OF: Record<ReportResolution, string> = {
  dismissed: "dismiss",
  warned: "warn",
  banned: "ban",
  entries_removed: "remove-entries",
};

/** The audited close of a player's open reports, after (or as) the action that answers them. */
function resolveReportsAs(
  ctx: OperatorContext,
  o: Target & { resolution: ReportResolution; note?: string },
  work?: (actor: OperatorActor) => Promise<void>,
) {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: `moderation.${ACTION_OF[o.resolution]}`,
    target: o.playerId,
    run: async (actor) => {
      const closed = await closeReports(o);
      await work?.(actor);
      return closed;
    },
    after: (result) => ({ resolution: o.resolution, ...result, ...(o.note ? { note: o.note } : {}) }),
  });
}

/** Nothing to act on: the player's open reports are closed as dismissed. */
export function dismissReportsAs(ctx: OperatorContext, o: Target & { note?: string }) {
  return resolveReportsAs(ctx, { ...o, resolution: "dismissed" });
}

/**
 * Writes the private data key `moderation.warning` = {reason, at} (the game reads it with the
 * player's token and shows it) and closes the open reports as warned.
 */
export function warnPlayerAs(ctx: OperatorContext, o: Target & { reason: string; now?: Date }) {
  const at = (o.now ?? new Date()).toISOString();
  return resolveReportsAs(ctx, { ...o, resolution: "warned", note: o.reason }, async (actor) => {
    await putPlayerData({
      actor,
      playerId: o.playerId,
      key: WARNING_KEY,
      value: { reason: o.reason, at },
      visibility: "private",
      precondition: {},
    });
  });
}

/** Bans through the players' own ban command (audited as player.ban), then closes the open reports as banned. */
export async function banFromQueueAs(ctx: OperatorContext, o: Target & { reason: string; until?: string | null }) {
  await authorize(ctx, o.projectId, "ADMIN");
  const ban = await banPlayerAs(ctx, o);
  const { closed } = await resolveReportsAs(ctx, { ...o, resolution: "banned", note: o.reason });
  return { ban, closed };
}

/**
 * Removes the player's entries from the current period of every board they are on, one audited
 * removal each (leaderboard.entry.remove), then closes the open reports as entries_removed.
 */
export async function removeReportedEntriesAs(ctx: OperatorContext, o: Target & { note?: string }) {
  await authorize(ctx, o.projectId, "ADMIN");
  const current = (await recentEntriesAll(o)).filter((e) => e.current);
  for (const e of current)
    await removeEntryAs(ctx, { projectId: o.projectId, id: e.leaderboardId, playerId: o.playerId, period: e.period });
  const { closed } = await resolveReportsAs(ctx, { ...o, resolution: "entries_removed" });
  return { removed: current.length, closed };
}

async function recentEntriesAll(o: Target) {
  const exists = await pool().query("SELECT 1 FROM players WHERE id = $1 AND project_id = $2", [o.playerId, o.projectId]);
  if (exists.rowCount === 0) throw new AppError("PLAYER_NOT_FOUND");
  const { rows } = await pool().query<{ leaderboard_id: string; period: string }>(
    "SELECT leaderboard_id, period FROM leaderboard_entries WHERE project_id = $1 AND player_id = $2",
    [o.projectId, o.playerId],
  );
  const out: Array<{ leaderboardId: string; period: string; current: boolean }> = [];
  for (const r of rows) {
    const board = await loadLeaderboard(o.projectId, r.leaderboard_id);
    out.push({ leaderboardId: r.leaderboard_id, period: r.period, current: currentPeriod(board).period === r.period });
  }
  return out;
}
