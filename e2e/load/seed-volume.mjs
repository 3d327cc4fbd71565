// Realistic volume for `npm run bench`: seeds the bench project (the demo project of a started
// product) in SQL, each step timed:
//   - 1,000,000 players. The first 100,000 are the "real" players the scenarios act as: each
//     has a 1 KiB `profile` data key (with the usage counters the service keeps on the player
//     row), a funded `coins` wallet (balance 999,900 with the GRANT ledger row that explains it,
//     so balance = initial + ledger stays true) and a session with one unused refresh token
//     `rt_volume_<n>` (only its SHA-256 is stored, as the service does). The other 900,000 are
//     bot entrants: a leaderboard entry holds one player per board (its primary key is
//     project, board, period, player), so a board of 1,000,000 entries needs 1,000,000 players.
//     All are anonymous-style: no display name, no e-mail (as `POST /auth/anonymous` makes them).
//   - one `volume` board (desc, best) with 1,000,000 entries (every player, random scores) and
//     the period row with its entry count, as the service keeps it.
// Then VACUUM ANALYZE (a board in steady state: index-only rank counts) and, where Redis is
// configured, waits until the service has rebuilt the Redis rank index of the board.
// Player ids are md5('volume:<n>')::uuid, so scenarios name a player by its number.
// Seeding is skipped when the project already has the board (a second product on the same database).
import { createHash } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";

export const VOLUME_BOARD = "volume";
export const VOLUME = { players: 100_000, entries: 1_000_000 };
/** The 1 KiB value every real player holds under `profile` (the size as the service counts it). */
export const PROFILE_VALUE = { blob: "x".repeat(1024 - 11) };
const PROFILE_BYTES = Buffer.byteLength(JSON.stringify(PROFILE_VALUE));
export const FUNDED_COINS = 999_900;
export const refreshTokenOf = (n) => `rt_volume_${n}`;

export async function projectIdOf(product) {
  const hash = createHash("sha256").update(product.demo.apiKey).digest();
  const { rows } = await product.sql("SELECT project_id FROM api_keys WHERE key_hash = $1", [hash]);
  return rows[0].project_id;
}

/**
 * Bulk loads of rows consistent by construction (every id comes from the same series) run with
 * session_replication_role = replica: no foreign-key check per row and no per-row trigger (the
 * rank buckets those triggers keep are then counted in one GROUP BY: `countRankBuckets`). Needs a
 * superuser (the embedded Postgres and the local one are); otherwise plain statements (checks and
 * triggers on).
 */
export async function bulkSql(product, text, values) {
  if (!product.databaseUrl) return product.sql(text, values);
  const client = new pg.Client({ connectionString: product.databaseUrl });
  await client.connect();
  try {
    // SET LOCAL: scoped to this transaction, so it cannot outlive it on a pooled server
    // connection (PgBouncer in transaction mode) and reach the app's queries.
    await client.query("BEGIN");
    await client.query("SAVEPOINT role");
    await client.query("SET LOCAL session_replication_role = replica").catch(() => client.query("ROLLBACK TO SAVEPOINT role"));
    const result = await client.query(text, values);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/** The per-bucket counts the rank triggers keep, for a board loaded by `bulkSql`, in one pass. */
export async function countRankBuckets(product, projectId, boardId) {
  const buckets = await product.sql("SELECT to_regclass('leaderboard_rank_buckets') IS NOT NULL AS present");
  if (!buckets.rows[0].present) return;
  await product.sql(
    `INSERT INTO leaderboard_rank_buckets (project_id, leaderboard_id, period, bucket, entries, low)
     SELECT project_id, leaderboard_id, period, leaderboard_rank_bucket(sort_key), count(*), min(sort_key)
       FROM leaderboard_entries WHERE project_id = $1 AND leaderboard_id = $2 AND period = '0:all'
      GROUP BY 1, 2, 3, 4
     ON CONFLICT DO NOTHING`, // already counted where the row trigger ran (no superuser)
    [projectId, boardId],
  );
}

/**
 * Seeds the volume into `product`'s bench project; returns the seconds of each step.
 * `redisUrl`: the product's Redis, to wait for the rank index (null: none configured).
 */
export async function seedVolume(product, { redisUrl = null, log = console.error } = {}) {
  const projectId = await projectIdOf(product);
  const steps = {};
  const exists = await product.sql("SELECT 1 FROM leaderboards WHERE project_id = $1 AND id = $2", [projectId, VOLUME_BOARD]);
  if (exists.rowCount) {
    log(`[seed] project ${projectId} already holds the volume; not seeded again`);
    return { projectId, steps, reused: true };
  }
  const step = async (name, run) => {
    const started = performance.now();
    await run();
    steps[name] = (performance.now() - started) / 1000;
    log(`[seed] ${name}: ${steps[name].toFixed(1)} s`);
  };
  const { players, entries } = VOLUME;
  const bulk = (text, values) => bulkSql(product, text, values);
  const total = performance.now();
  // Two statements at once where they touch different rows: the app is idle during seeding and
  // the machine has more than one core.
  const halves = (n) => [
    [1, Math.floor(n / 2)],
    [Math.floor(n / 2) + 1, n],
  ];
  await step(`${entries.toLocaleString("en")} players (${players.toLocaleString("en")} with a 1 KiB data key)`, () =>
    Promise.all(
      halves(entries).map(([from, to]) =>
        bulk(
          `INSERT INTO players (id, project_id, created_at, updated_at, last_login_at, data_keys, data_bytes)
           SELECT md5('volume:' || g)::uuid, $1, now(), now(), now(),
                  CASE WHEN g <= $4 THEN 1 ELSE 0 END, CASE WHEN g <= $4 THEN $5 ELSE 0 END
             FROM generate_series($2::int, $3::int) g`,
          [projectId, from, to, players, PROFILE_BYTES],
        ),
      ),
    ),
  );
  await step(`${entries.toLocaleString("en")} leaderboard entries`, async () => {
    await product.sql(
      "INSERT INTO leaderboards (project_id, id, name, sort_order, operator, min_score) VALUES ($1, $2, 'Volume', 'DESC', 'BEST', 0)",
      [projectId, VOLUME_BOARD],
    );
    await product.sql("INSERT INTO leaderboard_periods (project_id, leaderboard_id, period, entries) VALUES ($1, $2, '0:all', $3)", [
      projectId,
      VOLUME_BOARD,
      entries,
    ]);
    await Promise.all(
      halves(entries).map(([from, to]) =>
        bulk(
          `INSERT INTO leaderboard_entries (project_id, leaderboard_id, period, player_id, score, sort_key, seq, updated_at)
           SELECT $1, $2, '0:all', md5('volume:' || g)::uuid, s, -s, nextval('leaderboard_entries_seq_seq'), now()
             FROM (SELECT g, floor(random() * 1e6)::float8 AS s FROM generate_series($3::int, $4::int) g) x`,
          [projectId, VOLUME_BOARD, from, to],
        ),
      ),
    );
    await countRankBuckets(product, projectId, VOLUME_BOARD);
  });
  await step(`${players.toLocaleString("en")} 1 KiB data keys`, () =>
    bulk(
      `INSERT INTO player_data (player_id, project_id, key, value, size_bytes)
       SELECT md5('volume:' || g)::uuid, $1, 'profile', $3::jsonb, $4 FROM generate_series(1, $2::int) g`,
      [projectId, players, JSON.stringify(PROFILE_VALUE), PROFILE_BYTES],
    ),
  );
  await step(`${players.toLocaleString("en")} funded wallets (+ ledger rows)`, async () => {
    const { rows } = await product.sql("SELECT initial_balance FROM currencies WHERE project_id = $1 AND id = 'coins'", [projectId]);
    const initial = Number(rows[0].initial_balance);
    await bulk(
      `WITH w AS (
         INSERT INTO wallets (project_id, player_id, currency_id, balance, initial_balance)
         SELECT $1, md5('volume:' || g)::uuid, 'coins', $3::bigint + $4::bigint, $3 FROM generate_series(1, $2::int) g
       )
       INSERT INTO economy_transactions (id, project_id, player_id, kind, currencies, items, reason, actor_kind)
       SELECT gen_random_uuid(), $1, md5('volume:' || g)::uuid, 'GRANT',
              jsonb_build_array(jsonb_build_object('id', 'coins', 'delta', $4::bigint, 'balance', $3::bigint + $4::bigint)),
              '[]'::jsonb, 'bench volume seed', 'system'
         FROM generate_series(1, $2::int) g`,
      [projectId, players, initial, FUNDED_COINS],
    );
  });
  await step(`${players.toLocaleString("en")} sessions with a refresh token`, () =>
    bulk(
      `WITH s AS (
         INSERT INTO sessions (id, project_id, player_id, expires_at)
         SELECT md5('volume-session:' || g)::uuid, $1, md5('volume:' || g)::uuid, now() + interval '30 days'
           FROM generate_series(1, $2::int) g
       )
       INSERT INTO refresh_tokens (id, session_id, token_hash)
       SELECT gen_random_uuid(), md5('volume-session:' || g)::uuid, sha256(convert_to('rt_volume_' || g, 'UTF8'))
         FROM generate_series(1, $2::int) g`,
      [projectId, players],
    ),
  );
  // A database in steady state: autovacuum has run (visibility map set: rank counts are
  // index-only scans), statistics are fresh, and the checkpoint the bulk load's WAL calls for is
  // done now rather than during the first measured scenario.
  await step("VACUUM ANALYZE + CHECKPOINT", async () => {
    const tables = ["players", "leaderboard_entries", "player_data", "wallets", "sessions", "refresh_tokens", "economy_transactions"];
    for (const table of tables) await product.sql(`VACUUM ANALYZE ${table}`);
    await product.sql("VACUUM ANALYZE leaderboard_rank_buckets").catch(() => undefined); // before its migration: absent
    await product.sql("CHECKPOINT").catch(() => undefined); // superusers only
  });
  steps.total = (performance.now() - total) / 1000;
  log(`[seed] total: ${steps.total.toFixed(1)} s`);
  if (redisUrl) {
    const started = performance.now();
    await waitForRankIndex(product, redisUrl, projectId);
    steps.rankIndex = (performance.now() - started) / 1000;
    log(`[seed] Redis rank index of the 1M board rebuilt by the service: ${steps.rankIndex.toFixed(1)} s`);
  }
  return { projectId, steps, reused: false };
}

/** Asks for the board (which starts the service's rebuild) and waits for the index's ready marker. */
export async function waitForRankIndex(product, redisUrl, projectId, { timeoutMs = 180_000 } = {}) {
  const redis = new Redis(redisUrl);
  const deadline = Date.now() + timeoutMs;
  try {
    const ready = `lb:{${projectId}:${VOLUME_BOARD}:0:all}:ready`;
    while (!(await redis.exists(ready))) {
      if (Date.now() > deadline) throw new Error(`the Redis rank index was not ready after ${timeoutMs / 1000} s`);
      await fetch(`${product.baseUrl}/api/v1/leaderboards/${VOLUME_BOARD}?limit=1`, { headers: { "X-API-Key": product.demo.apiKey } });
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    redis.disconnect();
  }
}
