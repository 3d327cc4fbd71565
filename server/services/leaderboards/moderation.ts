import { afterTransaction, inTransaction, pool } from "../../db";
import { AppError } from "../../errors";
import { logger } from "../../log";
import { MAX_REMOVE_ENTRIES } from "./board-schemas";
import { loadLeaderboard } from "./definitions";
import { currentPeriod } from "./entries";
import { indexRemove, indexReplace, rankIndexClient } from "./rank-index";

/**
 * A ban hides the player's entries from every board and period (archived ones too): the rows move
 * from leaderboard_entries to leaderboard_hidden_entries with their score, sort key and seq, and
 * move back on unban, so every public read (pages, ranks, around-me, rank buckets, period
 * closes) never meets them and needs no condition of its own (see the migration
 * `*_leaderboard_hidden_entries`). The period's entry counter is kept by each move like a
 * removal or a new entry. The Redis rank index, a cache of leaderboard_entries, is told once the
 * change has committed (`syncRankIndex`), from what Postgres then holds.
 *
 * Callers run these in the ban's transaction, after the player's row is locked and its ban
 * written (the refusal trigger reads it: a restore must come after the ban is lifted).
 */
export type BoardPeriod = { leaderboardId: string; period: string };

/**
 * The periods the player has entries in (visible or hidden), locked in one order before the
 * entries, as a submit and a player's deletion take them (period rows before entry rows).
 */
async function lockPeriodsOf(projectId: string, playerId: string): Promise<void> {
  await pool().query(
    `SELECT 1 FROM leaderboard_periods p
      WHERE p.project_id = $1
        AND (EXISTS (SELECT 1 FROM leaderboard_entries e
                      WHERE e.project_id = p.project_id AND e.leaderboard_id = p.leaderboard_id AND e.period = p.period AND e.player_id = $2::uuid)
          OR EXISTS (SELECT 1 FROM leaderboard_hidden_entries h
                      WHERE h.project_id = p.project_id AND h.leaderboard_id = p.leaderboard_id AND h.period = p.period AND h.player_id = $2::uuid))
      ORDER BY p.leaderboard_id, p.period FOR NO KEY UPDATE`,
    [projectId, playerId],
  );
}

const toBoards = (rows: Array<{ leaderboard_id: string; period: string }>): BoardPeriod[] =>
  rows.map((r) => ({ leaderboardId: r.leaderboard_id, period: r.period }));

/**
 * Moves every visible entry of the player into the hidden ones, in one statement. A hidden row
 * already there for the same board and period (a second ban) keeps the better of the two, by the
 * board's order (sort key, then seq). Returns the boards and periods whose entries moved.
 */
export async function hideEntriesOf(o: { projectId: string; playerId: string; reason: string }): Promise<BoardPeriod[]> {
  await lockPeriodsOf(o.projectId, o.playerId);
  const { rows } = await pool().query<{ leaderboard_id: string; period: string }>(
    `WITH moved AS (
       DELETE FROM leaderboard_entries WHERE project_id = $1 AND player_id = $2::uuid RETURNING *
     ), counted AS (
       UPDATE leaderboard_periods p SET entries = p.entries - 1 FROM moved
        WHERE p.project_id = $1 AND p.leaderboard_id = moved.leaderboard_id AND p.period = moved.period
     ), hidden AS (
       INSERT INTO leaderboard_hidden_entries AS h
              (project_id, leaderboard_id, period, player_id, score, sort_key, seq, metadata, updated_at, hidden_reason)
       SELECT project_id, leaderboard_id, period, player_id, score, sort_key, seq, metadata, updated_at, $3 FROM moved
       ON CONFLICT (project_id, leaderboard_id, period, player_id) DO UPDATE
          SET score = EXCLUDED.score, sort_key = EXCLUDED.sort_key, seq = EXCLUDED.seq, metadata = EXCLUDED.metadata,
              updated_at = EXCLUDED.updated_at, hidden_reason = EXCLUDED.hidden_reason
        WHERE (EXCLUDED.sort_key, EXCLUDED.seq) < (h.sort_key, h.seq)
     )
     SELECT leaderboard_id, period FROM moved ORDER BY leaderboard_id, period`,
    [o.projectId, o.playerId, o.reason],
  );
  return toBoards(rows);
}

export type Restored = {
  boards: BoardPeriod[];
  /** Hidden entries back on their boards (as new entries, or replacing a worse one the player made meanwhile). */
  restored: number;
  /** Hidden entries dropped because the player's entry made meanwhile (a timed ban's end not yet processed) is better. */
  keptNewer: number;
};

/**
 * Moves the player's hidden entries back, with their score and seq. Where the player has an entry
 * in the same board and period already (made after a timed ban ran out and before its end was
 * processed), the better one by the board's order stays and the other is dropped.
 */
export async function restoreEntriesOf(o: { projectId: string; playerId: string }): Promise<Restored> {
  await lockPeriodsOf(o.projectId, o.playerId);
  const { rows } = await pool().query<{ leaderboard_id: string; period: string; written: boolean }>(
    `WITH back AS (
       DELETE FROM leaderboard_hidden_entries WHERE project_id = $1 AND player_id = $2::uuid RETURNING *
     ), restored AS (
       INSERT INTO leaderboard_entries AS e (project_id, leaderboard_id, period, player_id, score, sort_key, seq, metadata, updated_at)
       SELECT project_id, leaderboard_id, period, player_id, score, sort_key, seq, metadata, updated_at FROM back
       ON CONFLICT (project_id, leaderboard_id, period, player_id) DO UPDATE
          SET score = EXCLUDED.score, sort_key = EXCLUDED.sort_key, seq = EXCLUDED.seq, metadata = EXCLUDED.metadata,
              updated_at = EXCLUDED.updated_at
        WHERE (EXCLUDED.sort_key, EXCLUDED.seq) < (e.sort_key, e.seq)
       RETURNING e.leaderboard_id, e.period, (xmax = 0) AS inserted
     ), counted AS (
       UPDATE leaderboard_periods p SET entries = p.entries + 1 FROM restored
        WHERE p.project_id = $1 AND p.leaderboard_id = restored.leaderboard_id AND p.period = restored.period AND restored.inserted
     )
     SELECT b.leaderboard_id, b.period, (r.leaderboard_id IS NOT NULL) AS written
       FROM back b LEFT JOIN restored r ON r.leaderboard_id = b.leaderboard_id AND r.period = b.period
      ORDER BY b.leaderboard_id, b.period`,
    [o.projectId, o.playerId],
  );
  const restored = rows.filter((r) => r.written).length;
  return { boards: toBoards(rows.filter((r) => r.written)), restored, keptNewer: rows.length - restored };
}

/**
 * Deletes every entry of the player for good, visible and hidden (a ban that removes them).
 * Returns the boards and periods whose visible entries went, and the count of each kind.
 */
export async function deleteEntriesOf(o: { projectId: string; playerId: string }) {
  await lockPeriodsOf(o.projectId, o.playerId);
  const { rows } = await pool().query<{ leaderboard_id: string; period: string }>(
    `WITH gone AS (
       DELETE FROM leaderboard_entries WHERE project_id = $1 AND player_id = $2::uuid RETURNING leaderboard_id, period
     ), counted AS (
       UPDATE leaderboard_periods p SET entries = p.entries - 1 FROM gone
        WHERE p.project_id = $1 AND p.leaderboard_id = gone.leaderboard_id AND p.period = gone.period
     )
     SELECT leaderboard_id, period FROM gone ORDER BY leaderboard_id, period`,
    [o.projectId, o.playerId],
  );
  const hidden = await pool().query("DELETE FROM leaderboard_hidden_entries WHERE project_id = $1 AND player_id = $2::uuid", [
    o.projectId,
    o.playerId,
  ]);
  return { boards: toBoards(rows), visible: rows.length, hidden: hidden.rowCount ?? 0 };
}

/**
 * Removes the entries of up to MAX_REMOVE_ENTRIES players from one board's period, visible or
 * hidden, in two statements (the period's row locked first, as a submit takes it). Returns who
 * had an entry and which kind. Callers tell the rank index afterwards (`syncRankIndex`).
 */
export async function removeEntriesOf(o: { projectId: string; leaderboardId: string; period: string; playerIds: string[] }) {
  if (o.playerIds.length > MAX_REMOVE_ENTRIES)
    throw new AppError("VALIDATION_ERROR", {
      details: { issues: [{ path: "playerIds", message: `At most ${MAX_REMOVE_ENTRIES} entries per call.` }] },
    });
  const ref = [o.projectId, o.leaderboardId, o.period, o.playerIds];
  await pool().query(
    "SELECT 1 FROM leaderboard_periods WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3 FOR NO KEY UPDATE",
    ref.slice(0, 3),
  );
  const visible = await pool().query<{ player_id: string }>(
    `WITH gone AS (
       DELETE FROM leaderboard_entries WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3 AND player_id = ANY($4::uuid[])
       RETURNING player_id
     ), counted AS (
       UPDATE leaderboard_periods SET entries = entries - (SELECT count(*) FROM gone)
        WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3 AND EXISTS (SELECT 1 FROM gone)
     )
     SELECT player_id FROM gone ORDER BY player_id`,
    ref,
  );
  const hidden = await pool().query<{ player_id: string }>(
    `DELETE FROM leaderboard_hidden_entries WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3 AND player_id = ANY($4::uuid[])
     RETURNING player_id`,
    ref,
  );
  return { visible: visible.rows.map((r) => r.player_id), hidden: hidden.rows.map((r) => r.player_id).sort() };
}

/**
 * Tells the rank index what Postgres holds for the player on these boards and periods: the entry
 * (placed where its sort key and seq put it, whatever seq the index held) or nothing. Read after
 * the change ended, committed or rolled back, so the index follows what was committed either way.
 * Inside a transaction it runs once that has ended, without being awaited.
 */
export async function syncRankIndex(projectId: string, playerIds: string[], boards: BoardPeriod[]): Promise<void> {
  if (boards.length === 0 || playerIds.length === 0 || !rankIndexClient()) return;
  if (inTransaction()) {
    afterTransaction(() => {
      syncRankIndex(projectId, playerIds, boards).catch((error: unknown) =>
        logger("leaderboards").error({ reason: (error as Error).message }, "rank index sync failed"),
      );
    });
    return;
  }
  const { rows } = await pool().query<{ leaderboard_id: string; period: string; player_id: string; sort_key: number; seq: string }>(
    `SELECT e.leaderboard_id, e.period, e.player_id, e.sort_key, e.seq
       FROM unnest($2::text[], $3::text[]) AS b(id, period)
       JOIN leaderboard_entries e ON e.project_id = $1 AND e.leaderboard_id = b.id AND e.period = b.period
      WHERE e.player_id = ANY($4::uuid[])`,
    [projectId, boards.map((b) => b.leaderboardId), boards.map((b) => b.period), playerIds],
  );
  const held = new Map(rows.map((r) => [`${r.leaderboard_id}\n${r.period}\n${r.player_id}`, r]));
  const seen = new Set<string>();
  const work: Promise<void>[] = [];
  for (const b of boards) {
    for (const playerId of playerIds) {
      const key = `${b.leaderboardId}\n${b.period}\n${playerId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const row = held.get(key);
      work.push(
        row
          ? indexReplace(projectId, b.leaderboardId, b.period, { playerId, sortKey: row.sort_key, seq: row.seq })
          : indexRemove(projectId, b.leaderboardId, b.period, playerId),
      );
    }
  }
  await Promise.all(work);
}

/** Postgres' refusal of a banned player's new entry (the migration's trigger), as the API's error. */
export function refusedAsBanned(error: unknown): AppError | null {
  return (error as { code?: string } | null)?.code === "GB403" ? new AppError("PLAYER_BANNED") : null;
}

export type HiddenEntry = {
  playerId: string;
  displayName: string | null;
  score: number;
  updatedAt: string;
  hiddenAt: string;
  /** The ban's reason as the player's row holds it now (the reason at hiding time when the ban has been lifted since). */
  reason: string;
  bannedUntil: string | null;
};

/**
 * Entries a ban hides from a period (the current one unless given), best first, at most `limit`,
 * with how many there are: the board page lists them apart, marked with the ban.
 */
export async function hiddenEntries(o: { projectId: string; leaderboardId: string; period?: string; limit: number }) {
  const board = await loadLeaderboard(o.projectId, o.leaderboardId);
  const period = o.period ?? currentPeriod(board).period;
  const { rows } = await pool().query<{
    player_id: string;
    display_name: string | null;
    score: number;
    updated_at: Date;
    hidden_at: Date;
    reason: string;
    banned_until: Date | null;
    total: number;
  }>(
    `SELECT h.player_id, pl.display_name, h.score, h.updated_at, h.hidden_at, coalesce(pl.ban_reason, h.hidden_reason) AS reason,
            pl.banned_until, count(*) OVER ()::int AS total
       FROM leaderboard_hidden_entries h JOIN players pl ON pl.id = h.player_id
      WHERE h.project_id = $1 AND h.leaderboard_id = $2 AND h.period = $3
      ORDER BY h.sort_key, h.seq LIMIT $4`,
    [o.projectId, board.id, period, o.limit],
  );
  return {
    period,
    total: rows[0]?.total ?? 0,
    entries: rows.map(
      (r): HiddenEntry => ({
        playerId: r.player_id,
        displayName: r.display_name,
        score: r.score,
        updatedAt: r.updated_at.toISOString(),
        hiddenAt: r.hidden_at.toISOString(),
        reason: r.reason,
        bannedUntil: r.banned_until?.toISOString() ?? null,
      }),
    ),
  };
}
