import { isTrusted, type PlayerActor } from "../../actor";
import { pool } from "../../db";
import { AppError } from "../../errors";
import { countEvent } from "../../metrics";
import type { JsonValue } from "../json-value";
import { withEvents } from "../webhooks/emit";
import { emitEvent } from "../webhooks/events";
import { assertOpen, type Definition, loadLeaderboard } from "./definitions";
import { refusedAsBanned } from "./moderation";
import { periodKey } from "./periods";
import { indexRange, indexRank, indexRemove, indexUpsert, indexWindow, rankIndexClient } from "./rank-index";
import type { Entry } from "./schemas";

/**
 * Scores in Postgres, the source of truth. Every board is ordered best first by
 * (sort_key, seq): sort_key is the score (ascending boards) or its negation (descending), seq a
 * global sequence value taken whenever a player's score changes, so equal scores rank by who
 * reached them first. Each submit is one SQL statement (the operator applied atomically in the
 * upsert). With the Redis rank index (rank-index.ts) ranks and pages come from it in O(log n);
 * without it (or while it is rebuilt or unreachable) from Postgres: a rank is the number of
 * entries ahead + 1, from the per-bucket counts a trigger keeps (`aheadOf`), O(buckets + bucket
 * size); a page an index scan from its offset, O(offset + limit). `total` is a counter kept by every insert and removal.
 */
type Row = {
  player_id: string;
  display_name: string | null;
  score: number;
  metadata: Record<string, JsonValue> | null;
  updated_at: Date;
  sort_key: number;
  seq: string;
};

const direction = (d: Definition) => (d.sortOrder === "asc" ? 1 : -1);

function toEntry(r: Row, rank: number): Entry {
  return {
    rank,
    playerId: r.player_id,
    displayName: r.display_name,
    score: r.score,
    metadata: r.metadata,
    updatedAt: r.updated_at.toISOString(),
  };
}

export function currentPeriod(d: Definition, now = new Date()): { period: string; resetsAt: Date | null } {
  return periodKey(d.epoch, d.schedule, now);
}

function inBounds(d: Definition, score: number): boolean {
  return (d.minScore === null || score >= d.minScore) && (d.maxScore === null || score <= d.maxScore);
}

function outOfRange(d: Definition, score: number): AppError {
  return new AppError("SCORE_OUT_OF_RANGE", { details: { score, minScore: d.minScore, maxScore: d.maxScore } });
}

/**
 * How a write changes an entry: a board's operator (a player's submit), or `set` (an operator's
 * correction: the given score, whatever the board's operator).
 */
type Rule = Definition["operator"] | "set";

/** The new score of an existing entry, in SQL ($5: the submitted value). */
const NEW_SCORE: Record<Rule, string> = {
  best: "$5::float8",
  latest: "$5::float8",
  increment: "e.score + $5::float8",
  decrement: "e.score - $5::float8",
  set: "$5::float8",
};
/** When an existing entry changes: best only for a strictly better score; the others within bounds. */
const UPDATE_WHEN: Record<Rule, string> = {
  best: "$5::float8 * $7 < e.sort_key",
  latest: "true",
  increment: "(e.score + $5::float8) BETWEEN $8::float8 AND $9::float8",
  decrement: "(e.score - $5::float8) BETWEEN $8::float8 AND $9::float8",
  set: "true",
};

/**
 * Entries of a board's period ahead of (key, seq), in SQL: the counts of the rank buckets ahead
 * of the key's bucket plus a range count inside that bucket, from its `low` (see the migration
 * `*_leaderboard_rank_buckets`) — a few thousand rows at most, where counting every entry ahead
 * was O(rank). `board`: the SQL expressions of project id, board id and period; `extra`: a
 * further condition on the counted entries `o`.
 */
export const aheadOf = (board: [string, string, string], key: string, seq: string, extra = "") => {
  const [project, id, period] = board;
  const bucketOf = `b.project_id = ${project} AND b.leaderboard_id = ${id} AND b.period = ${period}`;
  return `((SELECT coalesce(sum(b.entries), 0) FROM leaderboard_rank_buckets b
             WHERE ${bucketOf} AND b.bucket < leaderboard_rank_bucket(${key}))::int
         + (SELECT count(*) FROM leaderboard_entries o
             WHERE o.project_id = ${project} AND o.leaderboard_id = ${id} AND o.period = ${period}
               AND o.sort_key >= (SELECT b.low FROM leaderboard_rank_buckets b WHERE ${bucketOf} AND b.bucket = leaderboard_rank_bucket(${key}))
               AND (o.sort_key, o.seq) < (${key}, ${seq})${extra})::int)`;
};

/**
 * The rank of the row a submit statement wrote (`u`). The statement reads the bucket counts and
 * entries as they were before it: the player's previous entry is left out of the range count by
 * id and, where its bucket is ahead of the new one, taken off the buckets' sum.
 */
const RANK_OF_WRITTEN = `${aheadOf(["u.project_id", "u.leaderboard_id", "u.period"], "u.sort_key", "u.seq", " AND o.player_id <> u.player_id")}
  - (SELECT count(*)::int FROM prev WHERE leaderboard_rank_bucket(prev.sort_key) < leaderboard_rank_bucket(u.sort_key)) + 1`;

/**
 * Applies the board's operator to the player's entry in the current period, atomically (one
 * statement: parallel increments never lose an update). Returns the entry after the submit with
 * its rank, and whether the stored score changed.
 */
export async function submitScore(o: {
  actor: PlayerActor;
  leaderboardId: string;
  score: number;
  metadata?: Record<string, JsonValue>;
  now?: Date;
}): Promise<Entry & { updated: boolean }> {
  const board = await loadLeaderboard(o.actor.projectId, o.leaderboardId);
  if (!board.clientWritable && !isTrusted(o.actor)) {
    throw new AppError("CLIENT_WRITE_FORBIDDEN", { message: "This leaderboard accepts scores from server keys only." });
  }
  assertOpen(board, o.now ?? new Date());
  const { period } = currentPeriod(board, o.now);
  const initial = board.operator === "decrement" ? -o.score : o.score;
  const counting = board.operator === "increment" || board.operator === "decrement";
  if (!counting && !inBounds(board, o.score)) throw outOfRange(board, o.score);
  const write = () =>
    writeEntry({
      projectId: o.actor.projectId,
      board,
      period,
      playerId: o.actor.playerId,
      rule: board.operator,
      value: o.score,
      initial,
      metadata: o.metadata,
    });
  // Boards that opted in: the accepted score and its event commit together.
  const row = !board.scoreEvents
    ? await write()
    : await withEvents(o.actor.projectId, async (emitting) => {
        const written = await write();
        if (emitting && written?.written) {
          await emitEvent({
            projectId: o.actor.projectId,
            type: "leaderboard.score_submitted",
            playerId: o.actor.playerId,
            data: { leaderboardId: board.id, period, playerId: o.actor.playerId, score: o.score, entryScore: written.score },
          });
        }
        return written;
      });
  countEvent("score_submit");
  if (row?.written) {
    const rank = row.rank ?? (await rankOf(o.actor.projectId, board, period, row, true));
    return { ...toEntry(row, rank), updated: true };
  }
  if (counting) throw outOfRange(board, o.score);
  // best: the stored score is at least as good; answer with it.
  if (!row) throw new Error("a kept score has no entry");
  return { ...toEntry(row, row.rank ?? (await rankOf(o.actor.projectId, board, period, row))), updated: false };
}

/**
 * The one statement that writes a score (a player's submit and an operator's correction): applies
 * `rule` to the player's entry in `period` atomically (parallel increments never lose an update),
 * keeps the period's entry count, and answers with the row written (its rank counted in the same
 * statement without the index) or, when nothing was written, the stored one.
 */
async function writeEntry(o: {
  projectId: string;
  board: Definition;
  period: string;
  playerId: string;
  rule: Rule;
  value: number;
  /** The score of a new entry (a decrement board's first value is negated). */
  initial: number;
  metadata?: Record<string, JsonValue>;
}): Promise<(Row & { rank: number | null; written: boolean }) | undefined> {
  const values = [
    o.projectId,
    o.board.id,
    o.period,
    o.playerId,
    o.value,
    o.metadata === undefined ? null : JSON.stringify(o.metadata),
    direction(o.board),
    o.board.minScore ?? Number.NEGATIVE_INFINITY,
    o.board.maxScore ?? Number.POSITIVE_INFINITY,
    o.initial,
  ];
  const indexed = rankIndexClient() !== null;
  const { rows } = await pool()
    .query<Row & { rank: number | null; written: boolean }>({
      // Named, so each connection parses it once and Postgres can keep a generic plan: sent
      // unnamed, it was parsed and planned on every submit, which cost Postgres as much as the write.
      name: `leaderboard-write-${o.rule}${indexed ? "-indexed" : ""}`,
      text: `WITH prev AS (
       SELECT sort_key FROM leaderboard_entries WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3 AND player_id = $4::uuid
     ), upsert AS (
       INSERT INTO leaderboard_entries AS e (project_id, leaderboard_id, period, player_id, score, sort_key, seq, metadata, updated_at)
       -- A first value out of bounds (a counting board) may only reach an existing entry.
       SELECT $1, $2, $3, $4::uuid, $10::float8, $10::float8 * $7, nextval('leaderboard_entries_seq_seq'), $6::jsonb, now()
        WHERE $10::float8 BETWEEN $8::float8 AND $9::float8
           OR EXISTS (SELECT 1 FROM leaderboard_entries x WHERE x.project_id = $1 AND x.leaderboard_id = $2 AND x.period = $3 AND x.player_id = $4::uuid)
       ON CONFLICT (project_id, leaderboard_id, period, player_id) DO UPDATE
         SET score = ${NEW_SCORE[o.rule]},
             sort_key = (${NEW_SCORE[o.rule]}) * $7,
             -- A new seq taken once the row is locked: a write that waited for another gets a later seq,
             -- so the rank index (which keeps the newest seq) converges on the row as committed.
             seq = CASE WHEN ${NEW_SCORE[o.rule]} = e.score THEN e.seq ELSE nextval('leaderboard_entries_seq_seq') END,
             metadata = coalesce(EXCLUDED.metadata, e.metadata),
             updated_at = now()
         WHERE ${UPDATE_WHEN[o.rule]}
       RETURNING e.*, (xmax = 0) AS inserted
     ), counted AS (
       INSERT INTO leaderboard_periods AS p (project_id, leaderboard_id, period, entries)
       SELECT $1, $2, $3, 1 FROM upsert WHERE inserted
       ON CONFLICT (project_id, leaderboard_id, period) DO UPDATE SET entries = p.entries + 1
     )
     SELECT u.player_id, pl.display_name, u.score, u.metadata, u.updated_at, u.sort_key, u.seq,
            ${indexed ? "NULL::int" : RANK_OF_WRITTEN} AS rank, true AS written
       FROM upsert u JOIN players pl ON pl.id = u.player_id
     UNION ALL
     -- Nothing written (a best board kept a score at least as good): the stored entry, in the same round trip.
     SELECT ${ENTRY_COLUMNS}, ${indexed ? "NULL::int" : `${aheadOf(["$1::uuid", "$2::text", "$3::text"], "e.sort_key", "e.seq")} + 1`}, false
       FROM leaderboard_entries e JOIN players pl ON pl.id = e.player_id
      WHERE e.project_id = $1 AND e.leaderboard_id = $2 AND e.period = $3 AND e.player_id = $4::uuid AND NOT EXISTS (SELECT 1 FROM upsert)`,
      values,
    })
    // A banned player's new entry is refused by a trigger (see ./moderation.ts): a submit that
    // passed its checks just before the ban committed.
    .catch((error: unknown) => {
      throw refusedAsBanned(error) ?? error;
    });
  return rows[0];
}

/**
 * Operator: sets a player's score in the current period to `score`, whatever the board's operator
 * (a correction), through the statement a submit uses, so the entry count, the rank buckets and
 * the tie-break stay as a submit keeps them. Within the board's bounds; the player must be the
 * project's. Metadata is kept. The rank index is not told here: a caller in a transaction tells
 * it once committed (`rankAfterWrite`), so a rollback leaves nothing behind in it.
 */
export async function setEntryScore(o: { projectId: string; leaderboardId: string; playerId: string; score: number; now?: Date }) {
  const board = await loadLeaderboard(o.projectId, o.leaderboardId);
  if (!inBounds(board, o.score)) throw outOfRange(board, o.score);
  const { rowCount } = await pool().query("SELECT 1 FROM players WHERE project_id = $1 AND id = $2::uuid", [o.projectId, o.playerId]);
  if (!rowCount) throw new AppError("PLAYER_NOT_FOUND");
  const { period } = currentPeriod(board, o.now);
  const row = await writeEntry({ ...o, board, period, rule: "set", value: o.score, initial: o.score });
  if (!row?.written) throw new Error("a set score was not written");
  return { board, period, row };
}

/** The entry a write answered with, ranked: the index is told of the row first (newest seq wins there). */
export async function rankAfterWrite(
  projectId: string,
  board: Definition,
  period: string,
  row: Row & { rank: number | null },
): Promise<Entry> {
  return toEntry(row, row.rank ?? (await rankOf(projectId, board, period, row, true)));
}

/** The rank of a row: from the index (told first of a row just written), else counted in Postgres. */
async function rankOf(projectId: string, board: Definition, period: string, row: Row, written = false): Promise<number> {
  if (written) await indexUpsert(projectId, board.id, period, { playerId: row.player_id, sortKey: row.sort_key, seq: row.seq });
  const fromIndex = await indexRank(projectId, board.id, period, row.player_id);
  if (fromIndex !== null) return fromIndex;
  const { rows } = await pool().query<{ ahead: number }>({
    name: "leaderboard-rank",
    text: `SELECT ${aheadOf(["$1::uuid", "$2::text", "$3::text"], "$4::float8", "$5::bigint")} AS ahead`,
    values: [projectId, board.id, period, row.sort_key, row.seq],
  });
  return (rows[0]?.ahead ?? 0) + 1;
}

const ENTRY_COLUMNS = "e.player_id, pl.display_name, e.score, e.metadata, e.updated_at, e.sort_key, e.seq";
/** The entry columns as leaderboard_window() and leaderboard_page() name them. */
const READ_COLUMNS = "player_id, display_name, score, metadata, updated_at, sort_key, seq";

/** Entries at 0-based ranks [start, start + count) — from the index when it can say, else Postgres. */
async function entriesAt(projectId: string, board: Definition, period: string, start: number, count: number) {
  const fromIndex = await indexRange(projectId, board.id, period, start, start + count - 1);
  if (!fromIndex) return null;
  return { total: fromIndex.total, entries: await entriesOf(projectId, board, period, start, fromIndex.playerIds) };
}

/** The rows of the players the index placed at 0-based ranks start, start + 1, … (in that order). */
async function entriesOf(projectId: string, board: Definition, period: string, start: number, playerIds: string[]) {
  const { rows } = await pool().query<Row>({
    name: "leaderboard-entries-of",
    text: `SELECT ${ENTRY_COLUMNS} FROM leaderboard_entries e JOIN players pl ON pl.id = e.player_id
            WHERE e.project_id = $1 AND e.leaderboard_id = $2 AND e.period = $3 AND e.player_id = ANY($4::uuid[])`,
    values: [projectId, board.id, period, playerIds],
  });
  const byPlayer = new Map(rows.map((r) => [r.player_id, r]));
  const ordered = playerIds.flatMap((id) => byPlayer.get(id) ?? []);
  return ordered.map((r, i) => toEntry(r, start + i + 1));
}

async function pageOf(projectId: string, board: Definition, period: string, offset: number, limit: number) {
  const indexed = await entriesAt(projectId, board, period, offset, limit);
  if (indexed) return indexed;
  // From Postgres: the page and the period's entry count in one round trip (an empty page is one
  // row with the total only), through a function whose plan is made once per connection
  // (migration *_leaderboard_reads_generic_plan): the first row's position by an index-only scan
  // over the rank index, then the page's rows from there with their display names.
  const { rows } = await pool().query<Row & { total: number }>({
    name: "leaderboard-page",
    text: `SELECT total, ${READ_COLUMNS} FROM leaderboard_page($1, $2, $3, $4, $5)`,
    values: [projectId, board.id, period, offset, limit],
  });
  const entries = rows.filter((r) => r.player_id !== null);
  return { total: rows[0]?.total ?? 0, entries: entries.map((r, i) => toEntry(r, offset + i + 1)) };
}

/** A page of the current period, best first. */
export async function getLeaderboardPage(o: { projectId: string; leaderboardId: string; offset: number; limit: number; now?: Date }) {
  const board = await loadLeaderboard(o.projectId, o.leaderboardId);
  const { period, resetsAt } = currentPeriod(board, o.now);
  const page = await pageOf(o.projectId, board, period, o.offset, o.limit);
  return {
    id: board.id,
    name: board.name,
    sortOrder: board.sortOrder,
    total: page.total,
    offset: o.offset,
    limit: o.limit,
    resetsAt: resetsAt ? resetsAt.toISOString() : null,
    period,
    rewards: board.rewards,
    startsAt: board.startsAt,
    endsAt: board.endsAt,
    entries: page.entries,
  };
}

/** The player's entry in the current period, with up to `range` neighbours on each side. */
export async function getPlayerEntry(o: { projectId: string; leaderboardId: string; playerId: string; range?: number; now?: Date }) {
  const board = await loadLeaderboard(o.projectId, o.leaderboardId);
  const { period } = currentPeriod(board, o.now);
  const indexed = await windowFromIndex(o.projectId, board, period, o.playerId, o.range ?? 0);
  if (indexed) return indexed;
  // From Postgres: the entry, its rank and its neighbours in one round trip, through a function
  // whose plan is made once per connection (migration *_leaderboard_reads_generic_plan).
  const range = o.range ?? 0;
  const { rows } = await pool().query<Row & { side: number; ahead: number | null }>({
    name: "leaderboard-window",
    text: `SELECT side, ${READ_COLUMNS}, ahead FROM leaderboard_window($1, $2, $3, $4::uuid, $5)`,
    values: [o.projectId, board.id, period, o.playerId, range],
  });
  const self = rows.find((r) => r.side === 0);
  if (!self) throw new AppError("ENTRY_NOT_FOUND");
  const entry = toEntry(self, (self.ahead ?? 0) + 1);
  if (!range) return entry;
  const bySortKey = (a: Row, b: Row) => a.sort_key - b.sort_key || (BigInt(a.seq) < BigInt(b.seq) ? -1 : 1);
  const above = rows.filter((r) => r.side < 0).sort(bySortKey);
  const below = rows.filter((r) => r.side > 0).sort(bySortKey);
  return {
    ...entry,
    above: above.map((r, i) => toEntry(r, entry.rank - (above.length - i))),
    below: below.map((r, i) => toEntry(r, entry.rank + i + 1)),
  };
}

/** Rank, entry and neighbours from the index (one Redis call: rank and window), then one Postgres read of those rows. */
async function windowFromIndex(projectId: string, board: Definition, period: string, playerId: string, range: number) {
  const window = await indexWindow(projectId, board.id, period, playerId, range);
  if (!window) return null;
  const entries = await entriesOf(projectId, board, period, window.start, window.playerIds);
  const self = entries.find((e) => e.playerId === playerId);
  if (!self) return null;
  if (range === 0) return self;
  return { ...self, above: entries.filter((e) => e.rank < self.rank), below: entries.filter((e) => e.rank > self.rank) };
}

/** Operator: removes one player's entry from the current period (or a given one). */
export async function removeEntry(o: { projectId: string; leaderboardId: string; playerId: string; period?: string }): Promise<void> {
  const board = await loadLeaderboard(o.projectId, o.leaderboardId);
  const period = o.period ?? currentPeriod(board).period;
  const { rows } = await pool().query(
    `WITH removed AS (
       DELETE FROM leaderboard_entries WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3 AND player_id = $4::uuid RETURNING 1
     )
     UPDATE leaderboard_periods SET entries = entries - (SELECT count(*) FROM removed)
      WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3 AND EXISTS (SELECT 1 FROM removed)
     RETURNING 1`,
    [o.projectId, board.id, period, o.playerId],
  );
  if (rows.length === 0) throw new AppError("ENTRY_NOT_FOUND");
  await indexRemove(o.projectId, board.id, period, o.playerId);
}

export type PeriodSummary = {
  period: string;
  startedAt: string;
  entries: number;
  current: boolean;
  /** When the period-close job closed it (null: not closed yet), and how many players its rewards paid. */
  closedAt: string | null;
  rewardsGranted: number | null;
};

/** Operator: every period that has had entries, newest first; the current one is marked. */
export async function listPeriods(o: { projectId: string; leaderboardId: string; now?: Date }): Promise<PeriodSummary[]> {
  const board = await loadLeaderboard(o.projectId, o.leaderboardId);
  const { period } = currentPeriod(board, o.now);
  const { rows } = await pool().query<{
    period: string;
    started_at: Date;
    entries: number;
    closed_at: Date | null;
    rewards_granted: number | null;
  }>(
    `SELECT p.period, p.started_at, p.entries, c.closed_at, c.rewards_granted
       FROM leaderboard_periods p
       LEFT JOIN leaderboard_period_closes c ON c.project_id = p.project_id AND c.leaderboard_id = p.leaderboard_id AND c.period = p.period
      WHERE p.project_id = $1 AND p.leaderboard_id = $2 ORDER BY p.started_at DESC, p.period DESC`,
    [o.projectId, board.id],
  );
  return rows.map((r) => ({
    period: r.period,
    startedAt: r.started_at.toISOString(),
    entries: r.entries,
    current: r.period === period,
    closedAt: r.closed_at?.toISOString() ?? null,
    rewardsGranted: r.rewards_granted,
  }));
}

/** Operator: a page of any period, archived or current. */
export async function getPeriodPage(o: { projectId: string; leaderboardId: string; period: string; offset: number; limit: number }) {
  const board = await loadLeaderboard(o.projectId, o.leaderboardId);
  return { period: o.period, offset: o.offset, limit: o.limit, ...(await pageOf(o.projectId, board, o.period, o.offset, o.limit)) };
}
