// Shared pieces of the benchmark scripts: start the product the way `npm start` does and drive
// load with autocannon. Loopback only, bounded in time.
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { freePort, launchApp, root } from "../support/launch.mjs";

export { freePort, root };

/** `sql(text, values)` on its own short connection to `databaseUrl` (seeding, budgets, checks). */
export function sqlOn(databaseUrl) {
  return async (text, values = []) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return await client.query(text, values);
    } finally {
      await client.end();
    }
  };
}

export function ensureBuild() {
  const r = spawnSync(process.execPath, ["server/cli/start.mjs", "--build-only"], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/**
 * The frame of a benchmark that compares sides (configurations, runtimes, rounds of them): builds
 * once, runs `run(side)` for each side in turn, and stops the whole process (exit 2) when the
 * run takes longer than `limitMs`. Returns what `run` answered, in side order.
 */
export async function runSides(name, sides, run, { limitMs }) {
  const cutOff = setTimeout(() => {
    process.stderr.write(`[${name}] run limit of ${limitMs / 60_000} min reached: stopping\n`);
    process.exit(2);
  }, limitMs);
  ensureBuild();
  const results = [];
  for (const side of sides) results.push(await run(side));
  clearTimeout(cutOff);
  return results;
}

/**
 * Starts `node server/cli/start.mjs` (what `npm start` runs) in a temporary data directory —
 * on a fresh embedded Postgres, or on DATABASE_URL when the caller's environment sets it (and
 * REDIS_URL for the limiter likewise) — waits until it is ready, and returns its demo.json.
 */
/** `launch.execPath`: the Node.js binary that runs the server (default: this one's); `launch.cwd`: the checkout (default: this one). */
export async function startProduct(extraEnv = {}, nodeArgs = [], launch = {}) {
  // DATABASE_URL and DATA_DIR may come with extraEnv (one database, or one data directory — and
  // so one demo project — for several starts in turn); otherwise from the caller's environment.
  const given = (name) => (Object.hasOwn(extraEnv, name) ? extraEnv[name] : process.env[name]) || undefined;
  const databaseUrlGiven = given("DATABASE_URL");
  const keepDataDir = Object.hasOwn(extraEnv, "DATA_DIR");
  const dataDir = keepDataDir ? extraEnv.DATA_DIR : mkdtempSync(path.join(tmpdir(), "gb-bench-"));
  chmodSync(dataDir, 0o755);
  const env = {
    DATA_DIR: dataDir,
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    PUBLIC_URL: undefined,
    NODE_ENV: undefined,
  };
  if (databaseUrlGiven && !process.env.JWT_SECRET) env.JWT_SECRET = "bench-only-secret-bench-only-secret-0123456789";
  Object.assign(env, extraEnv); // "" or undefined means unset
  // Output to a file in the data directory, as a deployment writes to a file or a log collector:
  // reading it through a pipe would cost the load generator's process (same cores) per line.
  const logFile = path.join(dataDir, `app-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}.log`);
  const app = await launchApp({ env, nodeArgs, logFile, execPath: launch.execPath, cwd: launch.cwd });
  let demo;
  let secrets;
  try {
    demo = JSON.parse(readFileSync(path.join(dataDir, "demo.json"), "utf8"));
    // Written only for the embedded Postgres (and development): not on DATABASE_URL with JWT_SECRET.
    const secretsFile = path.join(dataDir, "secrets.json");
    secrets = existsSync(secretsFile) ? JSON.parse(readFileSync(secretsFile, "utf8")) : {};
  } catch (error) {
    // Not left running when its files are not what the bench expects (a run once left one behind).
    await app.stop();
    throw error;
  }
  const databaseUrl =
    databaseUrlGiven ||
    `postgresql://postgres:${encodeURIComponent(secrets.postgresPassword)}@127.0.0.1:${env.EMBEDDED_POSTGRES_PORT}/game`;
  const redisUrl = given("REDIS_URL") ?? null;
  return {
    baseUrl: app.baseUrl,
    /** The launcher's process id (the server; embedded Postgres runs as its descendants). */
    pid: app.child.pid,
    demo,
    dataDir,
    /** The secret the product signs access tokens with (a second launcher on its database needs it). */
    jwtSecret: env.JWT_SECRET ?? secrets.jwtSecret,
    database: databaseUrlGiven ? "DATABASE_URL" : "embedded Postgres",
    databaseUrl,
    store: given("UPSTASH_REDIS_REST_URL") ? "Upstash" : redisUrl ? "Redis (REDIS_URL)" : "in-process",
    redisUrl,
    output: app.output,
    /** Runs SQL against the product's database (to lift the bench project's budget). */
    sql: sqlOn(databaseUrl),
    stop: async () => {
      await app.stop();
      if (!keepDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The production build behind a proxy of ours (TRUST_PROXY: each request names its client in
 * X-Forwarded-For) with the in-process limiter, on its own fresh database of the local Postgres
 * (DATABASE_URL's server, default 127.0.0.1:5432) with the demo project seeded and unlimited.
 * `stop()` stops it and drops the database.
 */
export async function startProxiedProduct(prefix, extraEnv = {}, launch = {}) {
  const adminUrl = new URL(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
  const dbName = `${prefix}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  const drop = async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  };
  try {
    const product = await startProduct(
      {
        DATABASE_URL: dbUrl.toString(),
        REDIS_URL: undefined,
        UPSTASH_REDIS_REST_URL: undefined,
        UPSTASH_REDIS_REST_TOKEN: undefined,
        TRUST_PROXY: "true",
        // On DATABASE_URL a production start seeds the demo project only when asked.
        SEED_DEMO: "true",
        API_KEY_CACHE_TTL_SECONDS: "1",
        LOG_LEVEL: "warn",
        ...extraEnv,
      },
      [],
      launch,
    );
    await unlimitDemo(product);
    return {
      ...product,
      stop: async () => {
        await product.stop();
        await drop();
      },
    };
  } catch (error) {
    await drop();
    throw error;
  }
}

/** Lifts the budget of the demo key's project so load is not cut off by its own plan. */
export async function unlimitDemo(product) {
  const hash = createHash("sha256").update(product.demo.apiKey).digest();
  await product.sql(
    `UPDATE projects SET plan = 'ENTERPRISE', custom_rate_limit = 1000000000 WHERE id = (SELECT project_id FROM api_keys WHERE key_hash = $1)`,
    [hash],
  );
  await new Promise((r) => setTimeout(r, 1_500)); // API_KEY_CACHE_TTL_SECONDS=1 in the bench instances
}

/** `spec.expect`: one status or an array of statuses every answer must have one of. */
export function expectedStatuses(spec) {
  return new Set([spec.expect].flat());
}

/**
 * One autocannon run against `baseUrl`, closed loop: every connection sends its next request
 * when the previous answer arrived, so this measures the maximum rate and the latency at it.
 * `spec`: method, path, headers, body, setupClient (per connection headers), requests
 * (autocannon's per-request hooks) and `expect`, the status every answer must have.
 * (For latency at a given rate use `paced`: autocannon's rate options send each connection's
 * per-second quota back to back at the start of every second, and its coordinated-omission
 * correction uses 1/rate in seconds as an interval in milliseconds.)
 */
export async function load(baseUrl, spec, { duration, connections = 32 } = {}) {
  const result = await autocannon({
    // autocannon takes the path from the URL (a separate `path` option is ignored).
    url: `${baseUrl}${spec.path}`,
    connections,
    duration,
    method: spec.method ?? "GET",
    headers: spec.headers ?? {},
    body: spec.body,
    setupClient: spec.setupClient,
    requests: spec.requests,
  });
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, st]) => [code, Number(st.count)]));
  const expected = expectedStatuses(spec);
  const answered = Object.values(statuses).reduce((n, c) => n + c, 0);
  const ok = Object.entries(statuses).reduce((n, [code, c]) => n + (expected.has(Number(code)) ? c : 0), 0);
  const refused = statuses[429] ?? 0;
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    // Wrong status (other than 429), socket errors and time-outs all count; 429s are counted apart.
    errors: answered - ok - refused + result.errors + result.timeouts,
    refused,
    requests: result.requests.total,
    statuses,
  };
}

/**
 * Open-loop load at a fixed rate (as wrk2 does): request i is due at start + i/rate, whatever
 * happened to earlier ones, and its latency is counted from when it was due — so a stall
 * shows up in every request it delayed (no coordinated omission) and requests are spread
 * evenly over each second instead of sent in bursts. `slots` stand in for autocannon's
 * connections: each gets the headers/body its `setupClient` sets (e.g. one player each) and
 * requests take the slots in turn; up to `slots` requests are on the wire at once (a request
 * due while all are busy waits, and that wait counts). Returns p50/p99 in ms, the rate
 * reached, and errors like `load`.
 */
export async function paced(baseUrl, spec, { duration, rate, slots = 32 }) {
  const url = new URL(spec.path, baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: slots });
  const requests = [];
  for (let i = 0; i < slots; i++) {
    const slot = { headers: spec.headers ?? {}, body: spec.body };
    spec.setupClient?.({ setHeaders: (h) => (slot.headers = h ?? {}), setBody: (b) => (slot.body = b) });
    requests.push(slot);
  }
  const hooks = (spec.requests ?? []).map((r) => r.setupRequest).filter(Boolean);
  const expected = expectedStatuses(spec);
  const latencies = [];
  const statuses = {};
  let errors = 0;
  let sent = 0;
  let inFlight = 0;
  const send = (due) => {
    let req = { ...requests[sent % slots], method: spec.method ?? "GET" };
    for (const hook of hooks) req = hook(req);
    sent += 1;
    inFlight += 1;
    const body = req.body === undefined ? undefined : Buffer.from(req.body);
    const headers = body ? { ...req.headers, "Content-Length": String(body.length) } : req.headers;
    const done = (status) => {
      inFlight -= 1;
      if (status) statuses[status] = (statuses[status] ?? 0) + 1;
      if (expected.has(status)) latencies.push(performance.now() - due);
      else if (status !== 429) errors += 1;
    };
    const r = http.request(req.path ? new URL(req.path, baseUrl) : url, { method: req.method, headers, agent }, (res) => {
      res.on("data", () => {});
      res.on("end", () => done(res.statusCode));
      res.on("error", () => done(0));
    });
    r.setTimeout(10_000, () => r.destroy(new Error("timeout")));
    r.on("error", () => done(0));
    r.end(body);
  };
  const start = performance.now();
  const total = Math.round(rate * duration);
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - start) / 1000) * rate) + 1);
      while (sent < due) send(start + (sent * 1000) / rate);
      if (sent < total) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  while (inFlight > 0) await new Promise((r) => setTimeout(r, 5));
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
  return { rate: sent / elapsed, p50: at(0.5), p99: at(0.99), errors, requests: sent, statuses };
}

/**
 * utime + stime in ms of a process and its descendants (from /proc): `descendantsOnly` leaves the
 * root out; `exclude` leaves out processes of that name (and theirs), e.g. "postgres".
 */
export function processCpuMs(rootPid, { descendantsOnly = false, exclude = null } = {}) {
  const stats = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
      const name = text.slice(text.indexOf("(") + 1, text.lastIndexOf(")"));
      stats.push({ pid: Number(entry), ppid: Number(fields[1]), name, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // the process ended meanwhile
    }
  }
  const chosen = new Set([rootPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of stats)
      if (!chosen.has(s.pid) && chosen.has(s.ppid) && s.name !== exclude) {
        chosen.add(s.pid);
        grew = true;
      }
  }
  if (descendantsOnly) chosen.delete(rootPid);
  const hz = 100; // USER_HZ on Linux
  return stats.filter((s) => chosen.has(s.pid)).reduce((ms, s) => ms + (s.ticks * 1000) / hz, 0);
}

/**
 * The common frame of a benchmark: build if needed, start the product (bench project lifted
 * to an unlimited plan), run `body`, always stop.
 */
export async function withProduct(extraEnv, body) {
  ensureBuild();
  const product = await startProduct({ API_KEY_CACHE_TTL_SECONDS: "1", ...extraEnv });
  try {
    await unlimitDemo(product);
    return await body(product);
  } finally {
    await product.stop();
  }
}

/** Key lookup + rate limit + a JSON 405, no database work. */
export function trivialRequest({ demo }) {
  return { path: "/api/v1/auth/anonymous", headers: { "X-API-Key": demo.apiKey }, expect: 405 };
}

/** Signs in to the dashboard as a browser does (CSRF token, credentials form); answers the Cookie header to send. */
export async function signIn(baseUrl, email, password) {
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`);
  const jar = new Map();
  const keep = (res) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const [name, ...value] = pair.split("=");
      jar.set(name, value.join("="));
    }
  };
  keep(csrf);
  const { csrfToken } = await csrf.json();
  const cookie = () => [...jar].map(([n, v]) => `${n}=${v}`).join("; ");
  const res = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie() },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
  });
  keep(res);
  if (![...jar.keys()].some((n) => n.includes("session-token"))) throw new Error(`sign-in failed: ${res.status}`);
  return cookie();
}
