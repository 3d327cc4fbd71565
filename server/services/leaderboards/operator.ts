import { pool, prisma } from "../../db";
import { AppError } from "../../errors";
import { viewerRead } from "../command";
import type { JsonValue } from "../json-value";
import { listLeaderboards, loadLeaderboard, toDto } from "./definitions";
import { aheadOf, currentPeriod, getLeaderboardPage, getPeriodPage, listPeriods } from "./entries";
import { hiddenEntries } from "./moderation";
import { parseSchedule, periodKey, windowAt } from "./periods";
import type { Entry } from "./schemas";

/**
 * Operator reads over leaderboards that the game API does not need; and, at the end, the `…As`
 * reads the dashboard calls (each checks its caller: `viewerRead`, ../command.ts).
 */

/** The project's boards, each with when its current period ends (null: never by itself). */
export async function listBoards(o: { projectId: string; now?: Date }) {
  const now = o.now ?? new Date();
  return (await listLeaderboards(o)).map((b) => ({
    ...b,
    resetsAt: windowAt(b.resetSchedule ? parseSchedule(b.resetSchedule) : null, now).end?.toISOString() ?? null,
  }));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Entries of a period (the current one unless given) whose player id is `query` or whose display
 * name contains it, best first, with their ranks. The candidate players come from the players'
 * trigram index; each match's rank is counted in Postgres (O(rank)), so at most `limit` are returned.
 */
export async function searchEntries(o: {
  projectId: string;
  leaderboardId: string;
  query: string;
  period?: string;
  limit: number;
}): Promise<{ period: string; entries: Entry[] }> {
  const board = await loadLeaderboard(o.projectId, o.leaderboardId);
  const period = o.period ?? currentPeriod(board).period;
  const query = o.query.trim();
  if (query === "") return { period, entries: [] };
  const { rows } = await pool().query<{
    player_id: string;
    display_name: string | null;
    score: number;
    metadata: Record<string, JsonValue> | null;
    updated_at: Date;
    rank: number;
  }>(
    `SELECT e.player_id, pl.display_name, e.score, e.metadata, e.updated_at,
            ${aheadOf(["e.project_id", "e.leaderboard_id", "e.period"], "e.sort_key", "e.seq")} + 1 AS rank
       FROM leaderboard_entries e JOIN players pl ON pl.id = e.player_id
      WHERE e.project_id = $1 AND e.leaderboard_id = $2 AND e.period = $3
        AND e.player_id IN (
          SELECT id FROM players
           WHERE project_id = $1 AND (id = $4::uuid OR ($4::uuid IS NULL AND display_name ILIKE $5))
        )
      ORDER BY e.sort_key, e.seq LIMIT $6`,
    [o.projectId, board.id, period, UUID.test(query) ? query : null, likePattern(query), o.limit],
  );
  return {
    period,
    entries: rows.map((r) => ({
      rank: r.rank,
      playerId: r.player_id,
      displayName: r.display_name,
      score: r.score,
      metadata: r.metadata,
      updatedAt: r.updated_at.toISOString(),
    })),
  };
}

/**
 * One player's entry in a period (for the audit log's "before"), or ENTRY_NOT_FOUND. `lock`: the
 * row is locked until the caller's transaction ends, so a submit cannot change it between this
 * read and the caller's write (the "before" is exactly what the write replaced).
 */
export async function entryOfPlayer(o: { projectId: string; leaderboardId: string; playerId: string; period?: string; lock?: boolean }) {
  const board = await loadLeaderboard(o.projectId, o.leaderboardId);
  const period = o.period ?? currentPeriod(board).period;
  const { rows } = await pool().query<{ score: number; metadata: unknown }>(
    `SELECT score, metadata FROM leaderboard_entries WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3 AND player_id = $4::uuid${o.lock ? " FOR UPDATE" : ""}`,
    [o.projectId, board.id, period, o.playerId],
  );
  const row = rows[0];
  if (!row) throw new AppError("ENTRY_NOT_FOUND");
  return { period, score: row.score, metadata: row.metadata };
}

/**
 * The project's boards by entries in their current period, most first. Cost: one read of the
 * project's board definitions and one primary-key lookup per board in leaderboard_periods (whose
 * `entries` counter every submit and removal keeps), never a scan of entries.
 */
export async function topLeaderboards(o: { projectId: string; limit: number; now?: Date }) {
  const boards = await prisma().leaderboard.findMany({
    where: { projectId: o.projectId },
    select: { id: true, name: true, epoch: true, resetSchedule: true },
  });
  if (boards.length === 0) return { boards: [], total: 0 };
  const now = o.now ?? new Date();
  const periods = boards.map((b) => periodKey(b.epoch, b.resetSchedule ? parseSchedule(b.resetSchedule) : null, now));
  const { rows } = await pool().query<{ leaderboard_id: string; entries: number }>(
    `SELECT p.leaderboard_id, p.entries FROM unnest($2::text[], $3::text[]) AS v(id, period)
       JOIN leaderboard_periods p ON p.project_id = $1 AND p.leaderboard_id = v.id AND p.period = v.period`,
    [o.projectId, boards.map((b) => b.id), periods.map((p) => p.period)],
  );
  const entries = new Map(rows.map((r) => [r.leaderboard_id, r.entries]));
  const ranked = boards
    .map((b, i) => ({ id: b.id, name: b.name, entries: entries.get(b.id) ?? 0, resetsAt: periods[i]?.resetsAt?.toISOString() ?? null }))
    .sort((a, b) => b.entries - a.entries || a.id.localeCompare(b.id));
  return { boards: ranked.slice(0, o.limit), total: boards.length };
}

export const listBoardsAs = viewerRead(listBoards);
export const topLeaderboardsAs = viewerRead(topLeaderboards);
export const searchEntriesAs = viewerRead((o: { projectId: string; id: string; query: string; period?: string; limit: number }) =>
  searchEntries({ projectId: o.projectId, leaderboardId: o.id, query: o.query, period: o.period, limit: o.limit }),
);
export const listPeriodsAs = viewerRead((o: { projectId: string; id: string }) =>
  listPeriods({ projectId: o.projectId, leaderboardId: o.id }),
);

/** A board's definition with its current period and when that ends. */
export const boardAs = viewerRead(async (o: { projectId: string; id: string }) => {
  const board = await loadLeaderboard(o.projectId, o.id);
  const { period, resetsAt } = currentPeriod(board);
  return { ...toDto(board), period, resetsAt: resetsAt ? resetsAt.toISOString() : null };
});

/** A page of the current period, or of `period` when given (an archived one). */
export const boardEntriesAs = viewerRead(async (o: { projectId: string; id: string; period?: string; offset: number; limit: number }) => {
  if (o.period) {
    const page = await getPeriodPage({ projectId: o.projectId, leaderboardId: o.id, period: o.period, offset: o.offset, limit: o.limit });
    return { period: page.period, total: page.total, offset: page.offset, limit: page.limit, entries: page.entries };
  }
  const page = await getLeaderboardPage({ projectId: o.projectId, leaderboardId: o.id, offset: o.offset, limit: o.limit });
  const board = await loadLeaderboard(o.projectId, o.id);
  return { period: currentPeriod(board).period, total: page.total, offset: page.offset, limit: page.limit, entries: page.entries };
});

export const hiddenEntriesAs = viewerRead((o: { projectId: string; id: string; period?: string; limit: number }) =>
  hiddenEntries({ projectId: o.projectId, leaderboardId: o.id, period: o.period, limit: o.limit }),
);
