import type pg from "pg";
import { uuidv7 } from "../../crypto";
import { pool, transaction } from "../../db";
import { env } from "../../env";
import { MAX_AMOUNT } from "../economy/schemas";
import { emitEvent, emitEvents } from "../webhooks/events";
import { type Rewards, rewardRanges } from "./board-schemas";
import { periodInWords, rewardReasonOf } from "./period-words";
import { parseSchedule, periodKey } from "./periods";

/**
 * Period closes: a period ends when its schedule's boundary passes or an operator resets the
 * board ("reset now" bumps the epoch: the period it ends closes too and pays its rewards). The
 * `leaderboard-period-close` job (every minute, once per cluster) closes every ended period that
 * had entries and is not closed yet, each in its own transaction that
 *   1. claims the period: inserts its `leaderboard_period_closes` row (the primary key makes a
 *      second run — concurrent or later — wait for the first and then find the row and skip);
 *   2. ranks the period's entries as of now by the board's order (sort_key, seq: ties as the
 *      board ranks them) and pays each tier's ranks through the ledger, set-based (a few
 *      statements per close, whatever the number of winners): a REWARD row per player carrying
 *      the board and period, whose unique key refuses a second one;
 *   3. emits leaderboard.period_closed (outbox) in the same transaction.
 * Catch-up is built in: a period that ended while no instance ran is closed by the next run.
 * Banned players (as of the close) are skipped and keep their rank slot: the next player is not
 * moved up. A grant that would pass a currency's max balance or an item's max stack is refused
 * for that player as a whole (as an operator's grant is refused), counted in rewardsSkipped.
 */

/** A period ended this long ago at least is closed: writes routed by a stale definition cache or a slow clock land first. */
export const closeGraceMs = () => env().DEFINITION_CACHE_TTL_MS + 5_000;

type Candidate = {
  project_id: string;
  leaderboard_id: string;
  period: string;
  started_at: Date;
  epoch: number;
  reset_schedule: string | null;
  updated_at: Date;
};

export type Closed = {
  projectId: string;
  leaderboardId: string;
  period: string;
  startedAt: string;
  closedAt: string;
  endedBy: "schedule" | "reset";
  entries: number;
  rewardsGranted: number;
  rewardsSkipped: number;
};

/** How a period ended as of `now` (null: it is current, or in the future by a fast clock, or ended too recently). */
export function endedBy(c: Candidate, now: Date, graceMs: number): "schedule" | "reset" | null {
  const colon = c.period.indexOf(":");
  const epoch = Number(c.period.slice(0, colon));
  const start = c.period.slice(colon + 1);
  if (epoch < c.epoch) return c.updated_at.getTime() <= now.getTime() - graceMs ? "reset" : null;
  const schedule = c.reset_schedule ? parseSchedule(c.reset_schedule) : null;
  const before = new Date(now.getTime() - graceMs);
  if (periodKey(c.epoch, schedule, before).period === c.period) return null;
  if (periodKey(c.epoch, schedule, now).period === c.period) return null;
  if (start !== "all" && new Date(start).getTime() > before.getTime()) return null;
  return "schedule";
}

/** When a period began: its key's start, else (an unscheduled board's `<epoch>:all`) its first entry. */
function startOf(c: Candidate): Date {
  const start = c.period.slice(c.period.indexOf(":") + 1);
  return start === "all" ? c.started_at : new Date(start);
}

/** Closes every ended, unclosed period (of one project when given). Returns what it closed. */
export async function closeEndedPeriods(o: { now?: Date; projectId?: string; graceMs?: number } = {}): Promise<Closed[]> {
  const now = o.now ?? new Date();
  const graceMs = o.graceMs ?? closeGraceMs();
  const { rows } = await pool().query<Candidate>(
    `SELECT p.project_id, p.leaderboard_id, p.period, p.started_at, l.epoch, l.reset_schedule, l.updated_at
       FROM leaderboard_periods p
       JOIN leaderboards l ON l.project_id = p.project_id AND l.id = p.leaderboard_id
      WHERE ($1::uuid IS NULL OR p.project_id = $1::uuid)
        AND NOT EXISTS (SELECT 1 FROM leaderboard_period_closes c
                         WHERE c.project_id = p.project_id AND c.leaderboard_id = p.leaderboard_id AND c.period = p.period)
      ORDER BY p.started_at, p.project_id, p.leaderboard_id, p.period`,
    [o.projectId ?? null],
  );
  const closed: Closed[] = [];
  for (const c of rows) {
    const ended = endedBy(c, now, graceMs);
    if (!ended) continue;
    const result = await closePeriod(c, ended, now);
    if (result) closed.push(result);
  }
  return closed;
}

/** One period's close, in one transaction; null when another run closed it first. */
async function closePeriod(c: Candidate, ended: "schedule" | "reset", now: Date): Promise<Closed | null> {
  return transaction(async (client) => {
    await client.query("SET LOCAL statement_timeout = 120000");
    const claimed = await client.query(
      `INSERT INTO leaderboard_period_closes (project_id, leaderboard_id, period, started_at, ended_by, closed_at, entries, status)
       VALUES ($1, $2, $3, $4, $5, $6, 0, 'NO_REWARDS') ON CONFLICT DO NOTHING RETURNING 1`,
      [c.project_id, c.leaderboard_id, c.period, startOf(c), ended, now],
    );
    if (!claimed.rowCount) return null;
    // The board's rewards as of the close (an update waits for this transaction's end).
    const board = await client.query<{ rewards: Rewards | null; name: string }>(
      "SELECT rewards, name FROM leaderboards WHERE project_id = $1 AND id = $2 FOR SHARE",
      [c.project_id, c.leaderboard_id],
    );
    const rewards = board.rows[0]?.rewards ?? [];
    const named = { name: board.rows[0]?.name ?? c.leaderboard_id, words: periodInWords(c.period, c.reset_schedule, startOf(c)) };
    const counted = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM leaderboard_entries WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3",
      [c.project_id, c.leaderboard_id, c.period],
    );
    const entries = counted.rows[0]?.n ?? 0;
    const paid = rewards.length ? await payRewards(client, c, rewards, entries, now, named) : { granted: 0, skipped: 0 };
    await client.query(
      `UPDATE leaderboard_period_closes SET entries = $4, rewards_granted = $5, rewards_skipped = $6, status = $7::"LeaderboardPeriodCloseStatus"
        WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3`,
      [c.project_id, c.leaderboard_id, c.period, entries, paid.granted, paid.skipped, rewards.length ? "REWARDED" : "NO_REWARDS"],
    );
    const result: Closed = {
      projectId: c.project_id,
      leaderboardId: c.leaderboard_id,
      period: c.period,
      startedAt: startOf(c).toISOString(),
      closedAt: now.toISOString(),
      endedBy: ended,
      entries,
      rewardsGranted: paid.granted,
      rewardsSkipped: paid.skipped,
    };
    await emitEvent({
      projectId: c.project_id,
      type: "leaderboard.period_closed",
      data: {
        leaderboardId: result.leaderboardId,
        period: result.period,
        startedAt: result.startedAt,
        closedAt: result.closedAt,
        entries,
        rewardsGranted: paid.granted,
      },
    });
    return result;
  });
}

/** The CTEs `w` (winners) and `l` (the tiers' lines) from the 8 array parameters starting at $p. */
const winnersAndLines = (p: number) =>
  `w AS (SELECT * FROM unnest($${p}::uuid[], $${p + 1}::int[], $${p + 2}::int[], $${p + 3}::uuid[]) AS w(player_id, rank, tier, tx)),
   l AS (SELECT * FROM unnest($${p + 4}::int[], $${p + 5}::text[], $${p + 6}::text[], $${p + 7}::bigint[]) AS l(tier, kind, id, amount))`;

/**
 * Pays the rewarded ranks: one statement each for the ranking (with the players' key-share
 * locks), missing wallets and inventory rows, the over-max check (which locks the rows), and the
 * wallets + inventory + ledger write.
 * Locks follow apply_economy_change's order (the player's key share, then wallets by currency id,
 * then inventory by item id; here over all winners in player order), so a player's own change
 * running meanwhile queues behind the close or the close behind it, never a deadlock.
 */
async function payRewards(
  client: pg.PoolClient,
  c: Candidate,
  rewards: Rewards,
  entries: number,
  now: Date,
  named: { name: string; words: string },
) {
  const ranges = rewardRanges(rewards, entries);
  if (ranges.length === 0) return { granted: 0, skipped: 0 };
  const lastRank = Math.max(...ranges.map((r) => r.to));
  const board = [c.project_id, c.leaderboard_id, c.period] as const;
  // Ranks as of now (row_number over the board's order: unique ranks, ties by who reached the score first).
  const ranked = await client.query<{ player_id: string; rank: number; tier: number; banned: boolean }>(
    `WITH ranked AS (
       SELECT player_id, row_number() OVER (ORDER BY sort_key, seq)::int AS rank
         FROM leaderboard_entries WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3
        ORDER BY sort_key, seq LIMIT $4
     )
     SELECT r.player_id, r.rank, t.tier,
            (pl.banned_at IS NOT NULL AND (pl.banned_until IS NULL OR pl.banned_until > $8)) AS banned
       FROM ranked r
       JOIN unnest($5::int[], $6::int[], $7::int[]) AS t(tier, first, last) ON r.rank BETWEEN t.first AND t.last
       JOIN players pl ON pl.id = r.player_id
      ORDER BY r.player_id
        FOR KEY SHARE OF pl`,
    [...board, lastRank, ranges.map((r) => r.tier), ranges.map((r) => r.from), ranges.map((r) => r.to), now],
  );
  const winners = ranked.rows.filter((r) => !r.banned);
  let skipped = ranked.rows.length - winners.length;
  if (winners.length === 0) return { granted: 0, skipped };
  const lines = rewards.flatMap((t, tier) => [
    ...t.currencies.map((l) => ({ tier, kind: "currency", id: l.id, amount: l.amount })),
    ...t.items.map((l) => ({ tier, kind: "item", id: l.id, amount: l.quantity })),
  ]);
  // The winners (w) and the tiers' lines (l) travel as arrays in every statement: no temporary
  // table, so nothing here needs session state (PgBouncer in transaction mode).
  const txIds = new Map(winners.map((w) => [w.player_id, uuidv7()]));
  const arrays = (ws: typeof winners) => [
    ws.map((w) => w.player_id),
    ws.map((w) => w.rank),
    ws.map((w) => w.tier),
    ws.map((w) => txIds.get(w.player_id) as string),
    lines.map((l) => l.tier),
    lines.map((l) => l.kind),
    lines.map((l) => l.id),
    lines.map((l) => String(l.amount)),
  ];
  // Missing wallets start at the currency's initial balance (as a player's first read does); missing inventory rows at 0.
  await client.query(
    `WITH ${winnersAndLines(2)}
     INSERT INTO wallets (project_id, player_id, currency_id, balance, initial_balance)
     SELECT $1, w.player_id, cur.id, cur.initial_balance, cur.initial_balance
       FROM w JOIN l ON l.tier = w.tier AND l.kind = 'currency'
       JOIN currencies cur ON cur.project_id = $1 AND cur.id = l.id
      ORDER BY w.player_id, cur.id
     ON CONFLICT DO NOTHING`,
    [c.project_id, ...arrays(winners)],
  );
  await client.query(
    `WITH ${winnersAndLines(2)}
     INSERT INTO inventory (project_id, player_id, item_id, quantity)
     SELECT $1, w.player_id, it.id, 0
       FROM w JOIN l ON l.tier = w.tier AND l.kind = 'item'
       JOIN items it ON it.project_id = $1 AND it.id = l.id
      ORDER BY w.player_id, it.id
     ON CONFLICT DO NOTHING`,
    [c.project_id, ...arrays(winners)],
  );
  // Lock the rows the grant changes, in order, and find the players whose grant would pass a max.
  const over = await client.query<{ player_id: string }>(
    `WITH ${winnersAndLines(3)}, cur AS (
       SELECT w.player_id, (wa.balance + l.amount > coalesce(cur.max_balance, $2::bigint)) AS over
         FROM w JOIN l ON l.tier = w.tier AND l.kind = 'currency'
         JOIN currencies cur ON cur.project_id = $1 AND cur.id = l.id
         JOIN wallets wa ON wa.project_id = $1 AND wa.player_id = w.player_id AND wa.currency_id = l.id
        ORDER BY w.player_id, l.id FOR UPDATE OF wa
     ), inv AS (
       SELECT w.player_id, (i.quantity + l.amount > coalesce(it.max_stack, $2::bigint)) AS over
         FROM w JOIN l ON l.tier = w.tier AND l.kind = 'item'
         JOIN items it ON it.project_id = $1 AND it.id = l.id
         JOIN inventory i ON i.project_id = $1 AND i.player_id = w.player_id AND i.item_id = l.id
        ORDER BY w.player_id, l.id FOR UPDATE OF i
     )
     SELECT player_id FROM cur WHERE over UNION SELECT player_id FROM inv WHERE over`,
    [c.project_id, String(MAX_AMOUNT), ...arrays(winners)],
  );
  const refused = new Set(over.rows.map((r) => r.player_id));
  const paid = winners.filter((w) => !refused.has(w.player_id));
  skipped += refused.size;
  if (paid.length === 0) return { granted: 0, skipped };
  // The ledger line in words, rewardReason's shape ("Reward: Weekly Race, week of 23 Nov 2026 (rank #2)": the SQL
  // appends each winner's rank); the board id and period key are the row's own columns.
  const reason = rewardReasonOf(named.name, named.words);
  const written = await client.query(
    `WITH ${winnersAndLines(5)}, cur AS (
       UPDATE wallets wa SET balance = wa.balance + l.amount, updated_at = now()
         FROM w JOIN l ON l.tier = w.tier AND l.kind = 'currency'
        WHERE wa.project_id = $1 AND wa.player_id = w.player_id AND wa.currency_id = l.id
       RETURNING wa.player_id, wa.currency_id, l.amount, wa.balance
     ), inv AS (
       UPDATE inventory i SET quantity = i.quantity + l.amount, updated_at = now()
         FROM w JOIN l ON l.tier = w.tier AND l.kind = 'item'
        WHERE i.project_id = $1 AND i.player_id = w.player_id AND i.item_id = l.id
       RETURNING i.player_id, i.item_id, l.amount AS delta, i.quantity
     ), cur_by AS (
       SELECT player_id, jsonb_agg(jsonb_build_object('id', currency_id, 'delta', amount, 'balance', balance) ORDER BY currency_id) AS lines
         FROM cur GROUP BY player_id
     ), inv_by AS (
       SELECT player_id, jsonb_agg(jsonb_build_object('itemId', item_id, 'delta', delta, 'quantity', quantity) ORDER BY item_id) AS lines
         FROM inv GROUP BY player_id
     )
     INSERT INTO economy_transactions
       (id, project_id, player_id, kind, currencies, items, reason, actor_kind, leaderboard_id, period)
     SELECT w.tx, $1, w.player_id, 'REWARD', coalesce(cur_by.lines, '[]'), coalesce(inv_by.lines, '[]'),
            $4 || ' (rank #' || w.rank || ')', 'system', $2, $3
       FROM w LEFT JOIN cur_by USING (player_id) LEFT JOIN inv_by USING (player_id)
     RETURNING id, player_id, currencies, items, reason`,
    [...board, reason, ...arrays(paid)],
  );
  await emitRewardEvents(c, written.rows);
  return { granted: written.rowCount ?? 0, skipped };
}

type RewardRow = {
  id: string;
  player_id: string;
  reason: string;
  currencies: Array<{ id: string; delta: number; balance: number }>;
  items: Array<{ itemId: string; delta: number; quantity: number }>;
};

/** currency.changed and item.granted for every paid player, as an operator's grant has them, with the board and period. */
async function emitRewardEvents(c: Candidate, rows: RewardRow[]): Promise<void> {
  const base = (r: RewardRow) => ({
    playerId: r.player_id,
    transactionId: r.id,
    kind: "reward",
    reason: r.reason,
    purchaseId: null,
    source: { leaderboardId: c.leaderboard_id, period: c.period },
  });
  const changed = rows.filter((r) => r.currencies.length > 0);
  await emitEvents(
    c.project_id,
    "currency.changed",
    changed.map((r) => ({
      playerId: r.player_id,
      data: { ...base(r), currencies: r.currencies.map((l) => ({ currencyId: l.id, delta: Number(l.delta), balance: Number(l.balance) })) },
    })),
  );
  const granted = rows.filter((r) => r.items.length > 0);
  await emitEvents(
    c.project_id,
    "item.granted",
    granted.map((r) => ({
      playerId: r.player_id,
      data: { ...base(r), items: r.items.map((l) => ({ itemId: l.itemId, quantity: Number(l.delta), total: Number(l.quantity) })) },
    })),
  );
}

/** What the operator sees of a board's closes, newest first. */
export async function listCloses(o: { projectId: string; leaderboardId: string; limit?: number }) {
  const { rows } = await pool().query<{
    period: string;
    started_at: Date;
    ended_by: string;
    closed_at: Date;
    entries: number;
    rewards_granted: number;
    rewards_skipped: number;
    status: string;
  }>(
    `SELECT period, started_at, ended_by, closed_at, entries, rewards_granted, rewards_skipped, status FROM leaderboard_period_closes
      WHERE project_id = $1 AND leaderboard_id = $2 ORDER BY closed_at DESC, period DESC LIMIT $3`,
    [o.projectId, o.leaderboardId, o.limit ?? 50],
  );
  return rows.map((r) => ({
    period: r.period,
    startedAt: r.started_at.toISOString(),
    endedBy: r.ended_by,
    closedAt: r.closed_at.toISOString(),
    entries: r.entries,
    rewardsGranted: r.rewards_granted,
    rewardsSkipped: r.rewards_skipped,
    status: r.status,
  }));
}
