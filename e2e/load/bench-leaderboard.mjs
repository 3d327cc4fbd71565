#!/usr/bin/env node
// `npm run bench:leaderboard`: leaderboard reads and writes at 1,000 and 1,000,000 entries,
// without and with the Redis rank index, each beside a bare route measured in the same run.
// Seeds each board in SQL (generate_series: players, entries, the period's count), then for
// each size measures with autocannon: submit (random scores to a `best` board), own rank
// (+5 neighbours), the top-25 page and a page at offset size/2. Prints one table, writes it as
// JSON and Markdown (e2e/load/results/leaderboard.*). Loopback only, bounded in time.
//   npm run bench:leaderboard -- [--sizes 1000,1000000] [--duration 5] [--connections 16]
// The Redis variant uses REDIS_URL, else redis://127.0.0.1:6379, and is skipped (said so) when
// no Redis answers there.
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { load, root, withProduct } from "./lib.mjs";
import { perPlayer, players } from "./scenarios.mjs";
import { bulkSql, countRankBuckets } from "./seed-volume.mjs";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,1000000" },
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "16" },
    out: { type: "string", default: path.join(root, "e2e/load/results") },
  },
});
const sizes = args.sizes.split(",").map(Number);
const duration = Number(args.duration);
const connections = Number(args.connections);
const json = { "Content-Type": "application/json" };

async function redisReachable(url) {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000, retryStrategy: () => null });
  probe.on("error", () => {});
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** players + entries + the period row for board `bench-<size>` of the demo project, in SQL. */
async function seed(product, projectId, size, botsSoFar) {
  const id = `bench-${size}`;
  const started = performance.now();
  if (size > botsSoFar) {
    await product.sql(
      `INSERT INTO players (id, project_id, display_name, updated_at)
       SELECT gen_random_uuid(), $1, 'bot-' || g, now() FROM generate_series($2::int + 1, $3::int) g`,
      [projectId, botsSoFar, size],
    );
  }
  await product.sql("INSERT INTO leaderboards (project_id, id, name, sort_order, operator) VALUES ($1, $2, $2, 'DESC', 'BEST')", [
    projectId,
    id,
  ]);
  await product.sql("INSERT INTO leaderboard_periods (project_id, leaderboard_id, period, entries) VALUES ($1, $2, '0:all', $3)", [
    projectId,
    id,
    size,
  ]);
  // Without per-row triggers (bulkSql), then the rank buckets in one pass: the row trigger would
  // upsert a bucket row per entry (minutes at 1M).
  await bulkSql(
    product,
    `INSERT INTO leaderboard_entries (project_id, leaderboard_id, period, player_id, score, sort_key, seq, updated_at)
     SELECT $1, $2, '0:all', id, s, -s, nextval('leaderboard_entries_seq_seq'), now()
       FROM (SELECT id, floor(random() * 1e6)::float8 AS s FROM players WHERE project_id = $1 AND display_name LIKE 'bot-%' LIMIT $3) x`,
    [projectId, id, size],
  );
  await countRankBuckets(product, projectId, id);
  // A board in steady state: autovacuum has run, so rank counts and offsets are index-only scans.
  await product.sql("VACUUM ANALYZE leaderboard_entries");
  await product.sql("VACUUM ANALYZE players");
  await product.sql("VACUUM ANALYZE leaderboard_rank_buckets");
  return { id, seedSeconds: (performance.now() - started) / 1000, bots: Math.max(size, botsSoFar) };
}

async function waitForIndex(product, redisUrl, projectId, id) {
  const started = performance.now();
  const redis = new Redis(redisUrl);
  try {
    await fetch(`${product.baseUrl}/api/v1/leaderboards/${id}?limit=1`, { headers: { "X-API-Key": product.demo.apiKey } });
    while (!(await redis.exists(`lb:{${projectId}:${id}:0:all}:ready`))) await new Promise((r) => setTimeout(r, 100));
  } finally {
    redis.disconnect();
  }
  return (performance.now() - started) / 1000;
}

const bare = { path: "/api/internal/bare", expect: 200 };

async function measure(product, id, size, sessions) {
  const key = { "X-API-Key": product.demo.apiKey };
  for (const [i, s] of sessions.entries()) {
    const res = await fetch(`${product.baseUrl}/api/v1/leaderboards/${id}/scores`, {
      method: "POST",
      headers: { ...json, ...key, Authorization: `Bearer ${s.accessToken}` },
      body: JSON.stringify({ score: Math.floor((i / sessions.length) * 1e6) }), // spread over the board
    });
    if (res.status !== 200) throw new Error(`bench setup: submit answered ${res.status}: ${await res.text()}`);
  }
  const scenarios = [
    {
      name: "submit",
      spec: {
        method: "POST",
        path: `/api/v1/leaderboards/${id}/scores`,
        body: JSON.stringify({ score: 1 }),
        requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ score: Math.floor(Math.random() * 1e6) }) }) }],
        setupClient: perPlayer(product, sessions, json),
        expect: 200,
      },
    },
    {
      name: "own rank",
      spec: { path: `/api/v1/leaderboards/${id}/player?range=5`, setupClient: perPlayer(product, sessions), expect: 200 },
    },
    { name: "top 25", spec: { path: `/api/v1/leaderboards/${id}?limit=25`, headers: key, expect: 200 } },
    { name: `page at ${size / 2}`, spec: { path: `/api/v1/leaderboards/${id}?offset=${size / 2}&limit=25`, headers: key, expect: 200 } },
  ];
  const rows = [];
  for (const s of scenarios) {
    await load(product.baseUrl, s.spec, { duration: 1, connections });
    const result = await load(product.baseUrl, s.spec, { duration, connections });
    const baseline = await load(product.baseUrl, bare, { duration: Math.max(2, duration / 2), connections });
    rows.push({ scenario: s.name, ...result, bareRps: baseline.rps });
    console.error(
      `[leaderboard] ${size} ${s.name}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ${JSON.stringify(result.statuses)}`,
    );
  }
  return rows;
}

async function variant(name, env, redisUrl) {
  return withProduct({ BENCH_BARE_ROUTE: "1", ...env }, async (product) => {
    const hash = createHash("sha256").update(product.demo.apiKey).digest();
    const [{ project_id: projectId }] = (await product.sql("SELECT project_id FROM api_keys WHERE key_hash = $1", [hash])).rows;
    const sessions = await players(product, connections);
    const out = [];
    let bots = 0;
    for (const size of sizes) {
      const seeded = await seed(product, projectId, size, bots);
      bots = seeded.bots;
      const indexSeconds = redisUrl ? await waitForIndex(product, redisUrl, projectId, seeded.id) : null;
      console.error(
        `[leaderboard] ${name}: seeded ${size} entries in ${seeded.seedSeconds.toFixed(1)} s${indexSeconds === null ? "" : `, index built in ${indexSeconds.toFixed(1)} s`}`,
      );
      for (const row of await measure(product, seeded.id, size, sessions)) {
        out.push({ variant: name, size, seedSeconds: seeded.seedSeconds, indexSeconds, ...row });
      }
    }
    return out;
  });
}

const redisUrl = process.env.REDIS_URL || "redis://127.0.0.1:6379";
const rows = [...(await variant("Postgres only", { REDIS_URL: "" }, null))];
const notes = [];
if (await redisReachable(redisUrl)) rows.push(...(await variant("Redis rank index", { REDIS_URL: redisUrl }, redisUrl)));
else notes.push(`No Redis answered at ${redisUrl}: the Redis variant was not measured.`);

const when = new Date().toISOString();
const smallest = Math.min(...sizes);
const largest = Math.max(...sizes);
const lines = [
  `npm run bench:leaderboard — ${when}, ${(await import("node:os")).cpus().length} cores, Node ${process.version}, ${connections} connections, ${duration} s per run, embedded Postgres unless DATABASE_URL`,
  "",
  "| index | entries | scenario | req/s | p50 ms | p99 ms | errors | bare route req/s | p50 vs smallest board |",
  "|---|---:|---|---:|---:|---:|---:|---:|---:|",
  ...rows.map((r) => {
    const base = rows.find((x) => x.variant === r.variant && x.size === smallest && x.scenario.split(" ")[0] === r.scenario.split(" ")[0]);
    const ratio = r.size === smallest || !base ? "—" : `${(r.p50 / Math.max(base.p50, 0.5)).toFixed(2)}×`;
    return `| ${r.variant} | ${r.size.toLocaleString("en")} | ${r.scenario} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.errors} | ${r.bareRps.toFixed(0)} | ${ratio} |`;
  }),
  "",
  ...rows
    .filter((r) => r.scenario === "submit")
    .map(
      (r) =>
        `- ${r.variant}, ${r.size.toLocaleString("en")} entries: seeded in ${r.seedSeconds.toFixed(1)} s${r.indexSeconds === null ? "" : `, index rebuilt from Postgres in ${r.indexSeconds.toFixed(1)} s`}`,
    ),
  ...notes.map((n) => `- ${n}`),
];
console.log(lines.join("\n"));
mkdirSync(args.out, { recursive: true });
writeFileSync(
  path.join(args.out, "leaderboard.json"),
  `${JSON.stringify({ when, sizes, connections, duration, largest, rows }, null, 2)}\n`,
);
writeFileSync(path.join(args.out, "leaderboard.md"), `${lines.join("\n")}\n`);
console.error(`[leaderboard] wrote ${path.relative(process.cwd(), args.out)}/leaderboard.{json,md}`);
