// `npm run bench:config-isolation`: does one project's large remote config slow another project's
// GET /config? (issue 51). The production build (startProxiedProduct: own database, demo project
// unlimited) with two projects:
//   - "big": the demo project with a config at the Enterprise cap — 2,000 json keys of ~500 bytes,
//     a ~1 MB answer (written with SQL, as a full project would be) — polled by BIG_PLAYERS players
//     (in a process of its own), either fetching the whole answer (200) or revalidating it with
//     If-None-Match (304), at BIG_RATE requests/s (open loop) and then as fast as it answers;
//   - "small": a project of its own with 5 keys, polled by SMALL_PLAYERS players at SMALL_RATE
//     requests/s (open loop, so its latency is measured at a fixed rate, not at saturation).
// Per side (the answer cache on, as shipped; CONFIG_ANSWER_CACHE_BYTES=0, every answer serialised
// and hashed per request, as before): small alone, then beside each of big's four loads. Prints
// small's p50/p99 and rate, big's rate and statuses, and the app's CPU (not Postgres's).
// Everything runs on this machine: the app, Postgres and this load generator share its cores.
// Loopback only; each run lasts DURATION seconds, the whole bench is cut off after 15 minutes.

import { fork } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { load, paced, processCpuMs, runSides, startProxiedProduct } from "./lib.mjs";

const DURATION = Number(process.env.CONFIG_BENCH_DURATION ?? 10);
const BIG_PLAYERS = Number(process.env.CONFIG_BENCH_BIG_PLAYERS ?? 32);
const SMALL_PLAYERS = Number(process.env.CONFIG_BENCH_SMALL_PLAYERS ?? 8);
const SMALL_RATE = Number(process.env.CONFIG_BENCH_SMALL_RATE ?? 100);
/** Big's fixed rate in the paced phases (open loop); the other phases poll it as fast as it answers. */
const BIG_RATE = Number(process.env.CONFIG_BENCH_BIG_RATE ?? 40);
const BIG_KEYS = 2_000;
const RUN_LIMIT_MS = 15 * 60_000;
const ALL_SIDES = [
  { name: "answer cache on (default)", env: {} },
  { name: "answer cache off (CONFIG_ANSWER_CACHE_BYTES=0)", env: { CONFIG_ANSWER_CACHE_BYTES: "0" } },
];
/** CONFIG_BENCH_SIDES=1 or 2 runs only that side. */
const SIDES = process.env.CONFIG_BENCH_SIDES
  ? ALL_SIDES.filter((_, i) => process.env.CONFIG_BENCH_SIDES?.split(",").includes(String(i + 1)))
  : ALL_SIDES;

const log = (m) => process.stderr.write(`[bench-config-isolation] ${m}\n`);

/** A second project, unlimited as the demo one, with a client key. */
async function smallProject(product) {
  const projectId = randomUUID();
  const key = `gb_client_${randomBytes(24).toString("base64url")}`;
  await product.sql(
    "INSERT INTO projects (id, name, plan, custom_rate_limit, updated_at) VALUES ($1, 'small', 'ENTERPRISE', 1000000000, now())",
    [projectId],
  );
  await product.sql("INSERT INTO api_keys (id, project_id, kind, name, prefix, key_hash) VALUES ($1, $2, 'CLIENT', 'client', $3, $4)", [
    randomUUID(),
    projectId,
    key.slice(0, 16),
    createHash("sha256").update(key).digest(),
  ]);
  await product.sql(
    `INSERT INTO remote_config_keys (project_id, key, type, default_value, description)
     SELECT $1, 'small.' || i, 'number', to_jsonb(i), '' FROM generate_series(1, 5) AS i`,
    [projectId],
  );
  return { projectId, key };
}

async function bigConfig(product) {
  const hash = createHash("sha256").update(product.demo.apiKey).digest();
  const { rows } = await product.sql("SELECT project_id FROM api_keys WHERE key_hash = $1", [hash]);
  const projectId = rows[0].project_id;
  // 2,000 keys of a 500-byte value each: the answer is ~1,03 MB, just under the Enterprise cap (1 MiB).
  await product.sql(
    `INSERT INTO remote_config_keys (project_id, key, type, default_value, description)
     SELECT $1, 'big.key.' || lpad(i::text, 4, '0'), 'json', to_jsonb(repeat('x', 498)), '' FROM generate_series(1, $2) AS i`,
    [projectId, BIG_KEYS],
  );
  return { projectId, key: product.demo.apiKey };
}

let address = 0;
async function signIn(base, key) {
  address += 1;
  const res = await fetch(`${base}/api/v1/auth/anonymous`, {
    method: "POST",
    headers: { "X-API-Key": key, "Content-Type": "application/json", "X-Forwarded-For": `198.18.${address >> 8}.${address & 255}` },
    body: "{}",
  });
  if (res.status !== 200) throw new Error(`sign-in: ${res.status} ${await res.text()}`);
  return (await res.json()).accessToken;
}

async function players(base, key, n) {
  const tokens = [];
  for (let i = 0; i < n; i++) tokens.push(await signIn(base, key));
  return tokens;
}

/** GET /config as one player per connection (or slot), in turn; `etags`: revalidate with each player's ETag. */
function configSpec(key, tokens, etags = null) {
  let next = 0;
  return {
    path: "/api/v1/config",
    expect: etags ? 304 : 200,
    setupClient: (client) => {
      const i = next++ % tokens.length;
      client.setHeaders({
        "X-API-Key": key,
        Authorization: `Bearer ${tokens[i]}`,
        ...(etags ? { "If-None-Match": etags[i] } : {}),
      });
    },
  };
}

async function etagsOf(base, key, tokens) {
  const tags = [];
  for (const t of tokens) {
    const res = await fetch(`${base}/api/v1/config`, { headers: { "X-API-Key": key, Authorization: `Bearer ${t}` } });
    const bytes = (await res.arrayBuffer()).byteLength;
    tags.push({ etag: res.headers.get("etag"), bytes });
  }
  return tags;
}

/**
 * Big's load in a process of its own: reading ~50 MB/s of answers would otherwise hold up the
 * event loop that times small's requests, and small's latency would be the load generator's.
 */
function bigLoad(base, key, tokens, etags, rate) {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, CONFIG_BENCH_ROLE: "big" } });
    child.once("message", (r) => {
      resolve(r);
      child.kill();
    });
    child.once("error", reject);
    child.send({ base, key, tokens, etags, rate, duration: DURATION });
  });
}

async function runSide(side) {
  const product = await startProxiedProduct("bench_config", side.env);
  try {
    const base = product.baseUrl;
    const big = await bigConfig(product);
    const small = await smallProject(product);
    await new Promise((r) => setTimeout(r, 1_500)); // the new key past API_KEY_CACHE_TTL_SECONDS=1
    const bigTokens = await players(base, big.key, BIG_PLAYERS);
    const smallTokens = await players(base, small.key, SMALL_PLAYERS);
    const bigTags = await etagsOf(base, big.key, bigTokens);
    const smallTags = await etagsOf(base, small.key, smallTokens);
    log(`${side.name}: big answer ${bigTags[0].bytes} bytes, small ${smallTags[0].bytes} bytes`);
    // Warm-up: the routes compiled, the pools open, the definitions cached.
    await load(base, configSpec(big.key, bigTokens), { duration: 2, connections: 4 });
    await paced(base, configSpec(small.key, smallTokens), { duration: 2, rate: SMALL_RATE, slots: SMALL_PLAYERS });

    const smallRun = () => paced(base, configSpec(small.key, smallTokens), { duration: DURATION, rate: SMALL_RATE, slots: SMALL_PLAYERS });
    // The app's CPU (the launcher and its workers, not Postgres) over a phase, per second.
    const measured = async (run) => {
      const cpu0 = processCpuMs(product.pid, { exclude: "postgres" });
      const t0 = performance.now();
      const out = await run();
      return { ...out, appCpu: (processCpuMs(product.pid, { exclude: "postgres" }) - cpu0) / ((performance.now() - t0) / 1000) };
    };
    const rows = [];
    log(`${side.name}: small alone`);
    rows.push(await measured(async () => ({ phase: "small alone", small: await smallRun(), big: null })));
    const tags = bigTags.map((t) => t.etag);
    for (const [phase, etags, rate] of [
      [`small + big revalidated (304s) at ${BIG_RATE}/s`, tags, BIG_RATE],
      [`small + big fetched (200s) at ${BIG_RATE}/s`, null, BIG_RATE],
      ["small + big revalidated (304s) at full speed", tags, null],
      ["small + big fetched (200s) at full speed", null, null],
    ]) {
      log(`${side.name}: ${phase}`);
      rows.push(
        await measured(async () => {
          const [s, b] = await Promise.all([smallRun(), bigLoad(base, big.key, bigTokens, etags, rate)]);
          return { phase, small: s, big: b };
        }),
      );
    }
    return { side: side.name, bigBytes: bigTags[0].bytes, rows };
  } finally {
    await product.stop();
  }
}

async function main() {
  const results = await runSides("bench-config-isolation", SIDES, runSide, { limitMs: RUN_LIMIT_MS });
  const ms = (v) => (Number.isFinite(v) ? `${v.toFixed(1)} ms` : "–");
  const statuses = (s) =>
    Object.entries(s)
      .map(([code, n]) => `${code}×${n}`)
      .join(", ");
  console.log(
    `\nsmall: ${SMALL_PLAYERS} players, GET /config at ${SMALL_RATE}/s (open loop); big: ${BIG_PLAYERS} players, at ${BIG_RATE}/s then at full speed, a ${results[0]?.bigBytes} byte answer; ${DURATION} s each; ${os.availableParallelism()} cores, Node ${process.versions.node}\n`,
  );
  console.log(
    "| answer cache | phase | small p50 | small p99 | small req/s | small errors | big req/s | big p50 | big statuses | big MB/s | app CPU ms/s | app CPU ms per request (both) |",
  );
  console.log("|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|");
  for (const r of results)
    for (const row of r.rows) {
      const b = row.big;
      const mbs = b ? ((b.statuses[200] ?? 0) * r.bigBytes) / DURATION / 1e6 : null;
      console.log(
        `| ${r.side} | ${row.phase} | ${ms(row.small.p50)} | ${ms(row.small.p99)} | ${row.small.rate.toFixed(0)} | ${row.small.errors} | ${b ? b.rps.toFixed(0) : "–"} | ${b ? ms(b.p50) : "–"} | ${b ? statuses(b.statuses) : "–"} | ${mbs === null ? "–" : mbs.toFixed(0)} | ${row.appCpu.toFixed(0)} | ${b ? (row.appCpu / (b.rps + row.small.rate)).toFixed(2) : "–"} |`,
      );
    }
}

if (process.env.CONFIG_BENCH_ROLE === "big")
  process.once("message", ({ base, key, tokens, etags, rate, duration }) =>
    (rate
      ? paced(base, configSpec(key, tokens, etags), { duration, rate, slots: tokens.length }).then((r) => ({ ...r, rps: r.rate }))
      : load(base, configSpec(key, tokens, etags), { duration, connections: tokens.length })
    ).then((r) => process.send(r)),
  );
else
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
