import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../../../e2e/support/global-setup";
import { migrate } from "../../migrate";
import { aheadOf } from "./entries";

// The bucket counts the trigger keeps (migration *_leaderboard_rank_buckets) against a plain count
// of the entries ahead, on a scratch database: inserts, moves within and across buckets, ties,
// -0 and 0, negative, tiny and huge sort keys, deletes, and a deleted player's cascade.
let db: Awaited<ReturnType<typeof createDatabase>>;
let pool: pg.Pool;
const project = "00000000-0000-4000-8000-000000000001";
const board = ["$1::uuid", "$2::text", "$3::text"] as [string, string, string];

beforeAll(async () => {
  db = await createDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  await migrate(pool);
  await pool.query("INSERT INTO projects (id, name, updated_at) VALUES ($1, 'p', now())", [project]);
  await pool.query("INSERT INTO leaderboards (project_id, id, name, sort_order, operator) VALUES ($1, 'b', 'b', 'DESC', 'LATEST')", [
    project,
  ]);
  await pool.query("INSERT INTO leaderboard_periods (project_id, leaderboard_id, period) VALUES ($1, 'b', '0:all')", [project]);
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const KEYS = [0, -0, 1, -1, 0.5, -0.5, 1e-300, -1e-300, 5e-324, 1e6, -1e6, 999_999.5, 1e300, -1e300, 42, 42, 42, 3.25, -7.75];
const randomKey = () =>
  Math.random() < 0.3 ? KEYS[Math.floor(Math.random() * KEYS.length)] : (Math.random() - 0.5) * 10 ** Math.floor(Math.random() * 12);

async function expectExactRanks() {
  const { rows } = await pool.query<{ sort_key: number; seq: string; counted: number; bucketed: number }>(
    `SELECT e.sort_key, e.seq,
            (SELECT count(*)::int FROM leaderboard_entries o WHERE o.project_id = $1 AND o.leaderboard_id = $2 AND o.period = $3
                AND (o.sort_key, o.seq) < (e.sort_key, e.seq)) AS counted,
            ${aheadOf(board, "e.sort_key", "e.seq")} AS bucketed
       FROM leaderboard_entries e WHERE e.project_id = $1 AND e.leaderboard_id = $2 AND e.period = $3`,
    [project, "b", "0:all"],
  );
  expect(rows.length).toBeGreaterThan(0);
  for (const r of rows) expect({ key: r.sort_key, ahead: r.bucketed }).toEqual({ key: r.sort_key, ahead: r.counted });
  const { rows: sums } = await pool.query<{ entries: number; buckets: number }>(
    `SELECT (SELECT count(*)::int FROM leaderboard_entries WHERE project_id = $1) AS entries,
            (SELECT coalesce(sum(entries), 0)::int FROM leaderboard_rank_buckets WHERE project_id = $1) AS buckets`,
    [project],
  );
  expect(sums[0]?.buckets).toBe(sums[0]?.entries);
}

describe("leaderboard rank buckets", () => {
  it("rank from the buckets equals the count of entries ahead, through inserts, moves, deletes and cascades", async () => {
    const players: string[] = [];
    for (let i = 0; i < 300; i++) {
      const { rows } = await pool.query<{ id: string }>(
        "INSERT INTO players (id, project_id, updated_at) VALUES (gen_random_uuid(), $1, now()) RETURNING id",
        [project],
      );
      players.push(rows[0]?.id as string);
    }
    for (const id of players) {
      const key = randomKey();
      await pool.query(
        `INSERT INTO leaderboard_entries (project_id, leaderboard_id, period, player_id, score, sort_key, updated_at)
         VALUES ($1, 'b', '0:all', $2, $3::float8, $3::float8, now())`,
        [project, id, key],
      );
    }
    await expectExactRanks();
    // Moves: random new keys, and small moves inside a bucket (below its low).
    for (const id of players.slice(0, 150)) {
      const key = Math.random() < 0.5 ? randomKey() : null;
      await pool.query(
        `UPDATE leaderboard_entries SET sort_key = coalesce($3::float8, sort_key * 0.999), seq = nextval('leaderboard_entries_seq_seq')
          WHERE project_id = $1 AND player_id = $2`,
        [project, id, key],
      );
    }
    await expectExactRanks();
    await pool.query("DELETE FROM leaderboard_entries WHERE project_id = $1 AND player_id = ANY($2::uuid[])", [
      project,
      players.slice(150, 200),
    ]);
    await pool.query("DELETE FROM players WHERE id = ANY($1::uuid[])", [players.slice(200, 250)]);
    await expectExactRanks();
  });

  it("multi-row statements (bulk insert, upsert, one UPDATE moving every entry, bulk delete) keep the counts exact", async () => {
    const { rows } = await pool.query<{ id: string }>(
      "INSERT INTO players (id, project_id, updated_at) SELECT gen_random_uuid(), $1, now() FROM generate_series(1, 2000) RETURNING id",
      [project],
    );
    const ids = rows.map((r) => r.id);
    // One statement inserts 2,000 entries; scores bunch in few buckets, as a real board's do.
    await pool.query(
      `INSERT INTO leaderboard_entries (project_id, leaderboard_id, period, player_id, score, sort_key, updated_at)
       SELECT $1, 'b', '0:all', id, k, k, now() FROM (SELECT id, floor(random() * 5000)::float8 AS k FROM unnest($2::uuid[]) AS id) x`,
      [project, ids],
    );
    await expectExactRanks();
    // One UPDATE moves every entry of the board (across and within buckets, some unchanged).
    await pool.query(
      `UPDATE leaderboard_entries SET sort_key = CASE WHEN random() < 0.2 THEN sort_key WHEN random() < 0.5 THEN sort_key - 0.25 ELSE floor(random() * 1e6) END,
              seq = nextval('leaderboard_entries_seq_seq')
        WHERE project_id = $1 AND leaderboard_id = 'b'`,
      [project],
    );
    await expectExactRanks();
    // An upsert of 500 existing entries and 0 new ones, then of 250 new and 250 existing.
    await pool.query(
      `INSERT INTO leaderboard_entries (project_id, leaderboard_id, period, player_id, score, sort_key, updated_at)
       SELECT $1, 'b', '0:all', id, -k, -k, now() FROM (SELECT id, floor(random() * 100)::float8 AS k FROM unnest($2::uuid[]) AS id) x
       ON CONFLICT (project_id, leaderboard_id, period, player_id) DO UPDATE SET sort_key = EXCLUDED.sort_key, score = EXCLUDED.score`,
      [project, ids.slice(0, 500)],
    );
    await pool.query("DELETE FROM leaderboard_entries WHERE project_id = $1 AND player_id = ANY($2::uuid[])", [
      project,
      ids.slice(500, 750),
    ]);
    await pool.query(
      `INSERT INTO leaderboard_entries (project_id, leaderboard_id, period, player_id, score, sort_key, updated_at)
       SELECT $1, 'b', '0:all', id, 7, 7, now() FROM unnest($2::uuid[]) AS id
       ON CONFLICT (project_id, leaderboard_id, period, player_id) DO UPDATE SET sort_key = EXCLUDED.sort_key, score = EXCLUDED.score`,
      [project, ids.slice(250, 750)],
    );
    await expectExactRanks();
    // A bulk delete, and players deleted with their entries (the cascade is one statement per player).
    await pool.query("DELETE FROM leaderboard_entries WHERE project_id = $1 AND player_id = ANY($2::uuid[])", [
      project,
      ids.slice(750, 1500),
    ]);
    await pool.query("DELETE FROM players WHERE id = ANY($1::uuid[])", [ids.slice(1500, 1800)]);
    await expectExactRanks();
  }, 30_000); // thousands of rows through the row triggers: about 5 s on this 2-core machine, more beside the integration suite
});

/** A board of 200 entries with random keys (ties included), and its players in (sort_key, seq) order. */
async function seedBoard(id: string): Promise<string[]> {
  await pool.query("INSERT INTO leaderboards (project_id, id, name, sort_order, operator) VALUES ($1, $2, $2, 'DESC', 'LATEST')", [
    project,
    id,
  ]);
  await pool.query("INSERT INTO leaderboard_periods (project_id, leaderboard_id, period) VALUES ($1, $2, '0:all')", [project, id]);
  const { rows: created } = await pool.query<{ id: string }>(
    "INSERT INTO players (id, project_id, display_name, updated_at) SELECT gen_random_uuid(), $1, 'p' || n, now() FROM generate_series(1, 200) n RETURNING id",
    [project],
  );
  for (const player of created) {
    await pool.query(
      `INSERT INTO leaderboard_entries (project_id, leaderboard_id, period, player_id, score, sort_key, updated_at)
       VALUES ($1, $2, '0:all', $3, $4::float8, $4::float8, now())`,
      [project, id, player.id, randomKey()],
    );
  }
  // The period's entry count, as the submit statement keeps it.
  await pool.query("UPDATE leaderboard_periods SET entries = 200 WHERE project_id = $1 AND leaderboard_id = $2", [project, id]);
  const { rows: ordered } = await pool.query<{ player_id: string }>(
    "SELECT player_id FROM leaderboard_entries WHERE project_id = $1 AND leaderboard_id = $2 AND period = '0:all' ORDER BY sort_key, seq",
    [project, id],
  );
  return ordered.map((r) => r.player_id);
}

describe("the leaderboard reads without the Redis index (functions with a kept plan)", () => {
  it("leaderboard_window() answers each player's rank and nearest entries above and below as the board's (sort_key, seq) order has them", async () => {
    const order = await seedBoard("w");
    const sample = [order[0], order[1], order[order.length - 1], ...order.filter((_, i) => i % 7 === 3)] as string[];
    for (const range of [0, 2, 5]) {
      for (const playerId of sample) {
        // A named statement, as the app sends it: every call after the first runs the kept plan.
        const { rows } = await pool.query<{ side: number; player_id: string; display_name: string; ahead: number | null }>({
          name: "window-test",
          text: "SELECT side, player_id, display_name, ahead FROM leaderboard_window($1, 'w', '0:all', $2::uuid, $3) ORDER BY side, sort_key, seq",
          values: [project, playerId, range],
        });
        const at = order.indexOf(playerId);
        expect({ playerId, range, rows }).toEqual({
          playerId,
          range,
          rows: [
            ...order.slice(Math.max(0, at - range), at).map((id) => expect.objectContaining({ side: -1, player_id: id, ahead: null })),
            expect.objectContaining({ side: 0, player_id: playerId, ahead: at, display_name: expect.stringMatching(/^p\d+$/) }),
            ...order.slice(at + 1, at + 1 + range).map((id) => expect.objectContaining({ side: 1, player_id: id, ahead: null })),
          ],
        });
      }
    }
    const { rows: none } = await pool.query("SELECT * FROM leaderboard_window($1, 'w', '0:all', gen_random_uuid(), 5)", [project]);
    expect(none).toEqual([]);
  });

  it("leaderboard_page() answers the entries at [offset, offset + limit) in the board's order, with the entry count on every row", async () => {
    const order = await seedBoard("pg");
    for (const [offset, limit] of [
      [0, 25],
      [0, 1],
      [1, 10],
      [97, 25],
      [190, 25],
      [199, 5],
      [200, 5],
      [5000, 5],
    ] as const) {
      const { rows } = await pool.query<{ total: number; player_id: string | null }>({
        name: "page-test",
        text: "SELECT total, player_id FROM leaderboard_page($1, 'pg', '0:all', $2, $3)",
        values: [project, offset, limit],
      });
      const expected = order.slice(offset, offset + limit);
      // Past the end: one row with the count only.
      expect({ offset, limit, rows }).toEqual({
        offset,
        limit,
        rows: expected.length ? expected.map((id) => ({ total: 200, player_id: id })) : [{ total: 200, player_id: null }],
      });
    }
    const { rows: empty } = await pool.query("SELECT total, player_id FROM leaderboard_page($1, 'pg', 'no-such-period', 0, 25)", [project]);
    expect(empty).toEqual([{ total: 0, player_id: null }]);
  });
});
