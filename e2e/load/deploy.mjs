// A multi-instance deployment on this machine, for tests and benchmarks: several app instances
// (separate processes, own ports) behind HAProxy, on one Postgres database reached through
// PgBouncer in transaction-pooling mode, and one Redis. Every part is a private child process
// with a generated config in a temporary directory, on free loopback ports; the machine's own
// haproxy/pgbouncer services are not used. The README's "Deployment" section describes the same
// topology and starts from these configs.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { freePort, launchApp } from "../support/launch.mjs";
import { sqlOn } from "./lib.mjs";

/** The machine's Postgres as a superuser, where the deployment's database is created and dropped. */
export const ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

/** The binaries this needs; missing ones are named (Debian: `apt-get install -y haproxy pgbouncer redis-server`). */
export function missingBinaries() {
  return ["haproxy", "pgbouncer", "redis-server"].filter((bin) => !findBinary(bin));
}

function findBinary(bin) {
  for (const dir of [...(process.env.PATH ?? "").split(":"), "/usr/sbin", "/usr/local/sbin", "/sbin"]) {
    if (!dir) continue;
    const candidate = path.join(dir, bin);
    if (spawnSync("test", ["-x", candidate]).status === 0) return candidate;
  }
  return null;
}

/** HAProxy: round robin, HTTP mode, health checks on /api/health, X-Forwarded-For added, the serving instance named in X-Served-By. */
export function haproxyConfig({ port, servers }) {
  return `global
  maxconn 4096

defaults
  mode http
  timeout connect 5s
  timeout client 60s
  timeout server 60s
  timeout http-keep-alive 60s
  option forwardfor

frontend api
  bind 127.0.0.1:${port}
  default_backend app

backend app
  balance roundrobin
  option httpchk GET /api/health
  http-check expect status 200
  http-response set-header X-Served-By %s
${servers.map((s) => `  server ${s.name} 127.0.0.1:${s.port} check inter 1s fall 2 rise 1`).join("\n")}
`;
}

/**
 * PgBouncer in transaction mode. Loopback trust for the test (production: auth_type =
 * scram-sha-256 with an auth_file or auth_query, and TLS off the host).
 */
export function pgbouncerConfig({ port, dir, database, defaultPoolSize, maxClientConn }) {
  return `[databases]
${database} = host=127.0.0.1 port=5432 dbname=${database} user=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${path.join(dir, "userlist.txt")}
pool_mode = transaction
default_pool_size = ${defaultPoolSize}
max_client_conn = ${maxClientConn}
ignore_startup_parameters = extra_float_digits
pidfile = ${path.join(dir, "pgbouncer.pid")}
logfile = ${path.join(dir, "pgbouncer.log")}
log_connections = 0
log_disconnections = 0
`;
}

async function adminQuery(text) {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

/** Spawns a long-running child and returns a stopper that waits for its exit. */
function child(command, args, { output, ...options } = {}) {
  const proc = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
  let text = "";
  proc.stdout?.on("data", (d) => {
    text += d;
  });
  proc.stderr?.on("data", (d) => {
    text += d;
  });
  const exited = new Promise((resolve) => proc.on("exit", (code, signal) => resolve(code ?? signal)));
  return {
    proc,
    pid: proc.pid,
    output: () => text + (output ? safeRead(output) : ""),
    exited,
    stop: async (signal = "SIGTERM") => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const timer = setTimeout(() => proc.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function safeRead(file) {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** Resolves once `probe` resolves truthy; rejects after `timeoutMs` with `describe()` in the message. */
async function until(probe, { timeoutMs = 15_000, what, details = () => "" }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await probe()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${what} did not come up in ${timeoutMs} ms\n${details()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function pgReady(connectionString) {
  const client = new pg.Client({ connectionString });
  await client.connect();
  await client.query("SELECT 1");
  await client.end();
  return true;
}

/**
 * Starts a deployment and returns a handle shaped like e2e/load/lib.mjs's product:
 * - `baseUrl`: HAProxy's; `instances: [{ name, baseUrl, pid, output }]`: each instance directly;
 * - `demo`: demo.json of the first instance (the only one that seeds; its PUBLIC_URL is HAProxy's);
 * - `sql(text, values)`: against the database directly (not through PgBouncer);
 * - `pids`: the app instances' launcher pids (CPU accounting: processCpuMs of each);
 *   `supportPids`: { haproxy, pgbouncer, redis };
 * - `databaseUrl` (direct), `pooledUrl` (through PgBouncer, as the instances use it), `redisUrl`;
 * - `stop()`: stops every process it started, drops the database, removes its files.
 *
 * Options: `instances` (2), `env` (added to every instance's environment), `instanceEnv(i)`
 * (per instance), `redisUrl` (use this Redis instead of a private one), `databasePoolSize` (per
 * instance, 10), `defaultPoolSize` (PgBouncer's server connections for the database, 20),
 * `maxClientConn` (PgBouncer, 200), `jwtSecret`, `poolerFlag` (false: DATABASE_URL without
 * `?pgbouncer=true`, i.e. named prepared statements through the pooler — only to show why the
 * flag exists).
 */
export async function startDeployment(options = {}) {
  const {
    instances: count = 2,
    env = {},
    instanceEnv = () => ({}),
    databasePoolSize = 10,
    defaultPoolSize = 20,
    maxClientConn = 200,
    jwtSecret = randomBytes(32).toString("base64url"),
    poolerFlag = true,
  } = options;
  const missing = missingBinaries().filter((bin) => !(bin === "redis-server" && options.redisUrl));
  if (missing.length) throw new Error(`missing binaries: ${missing.join(", ")} (apt-get install -y ${missing.join(" ")})`);

  const dir = mkdtempSync(path.join(tmpdir(), "gb-deploy-"));
  // PgBouncer refuses to run as root and switches to the postgres user, which must read its config.
  chmodSync(dir, 0o755);
  const database = `gb_deploy_${Date.now()}_${randomBytes(3).toString("hex")}`;
  const started = [];
  let databaseCreated = false;
  const stop = async () => {
    for (const part of started.reverse()) await part.stop().catch(() => undefined);
    started.length = 0;
    if (databaseCreated && process.env.KEEP_TEST_DB !== "1") {
      await adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch(() => undefined);
      databaseCreated = false;
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await adminQuery(`CREATE DATABASE "${database}"`);
    databaseCreated = true;
    const directUrl = new URL(ADMIN_DATABASE_URL);
    directUrl.pathname = `/${database}`;
    const databaseUrl = directUrl.toString();

    // Redis
    let redisUrl = options.redisUrl;
    let redisPid;
    if (!redisUrl) {
      const port = await freePort();
      const redis = child(findBinary("redis-server") ?? "redis-server", [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
      ]);
      started.push(redis);
      redisPid = redis.pid;
      redisUrl = `redis://127.0.0.1:${port}`;
      await until(() => redis.output().includes("Ready to accept connections"), { what: "redis-server", details: redis.output });
    }

    // PgBouncer
    const bouncerDir = path.join(dir, "pgbouncer");
    mkdirSync(bouncerDir, { mode: 0o777 });
    chmodSync(bouncerDir, 0o777);
    const bouncerPort = await freePort();
    const bouncerIni = path.join(bouncerDir, "pgbouncer.ini");
    writeFileSync(path.join(bouncerDir, "userlist.txt"), '"postgres" ""\n');
    writeFileSync(bouncerIni, pgbouncerConfig({ port: bouncerPort, dir: bouncerDir, database, defaultPoolSize, maxClientConn }));
    const asRoot = process.getuid?.() === 0;
    const bouncer = child(findBinary("pgbouncer") ?? "pgbouncer", [...(asRoot ? ["-u", "postgres"] : []), bouncerIni], {
      output: path.join(bouncerDir, "pgbouncer.log"),
    });
    started.push(bouncer);
    const pooledUrl = `postgresql://postgres@127.0.0.1:${bouncerPort}/${database}${poolerFlag ? "?pgbouncer=true" : ""}`;
    await until(() => pgReady(pooledUrl), { what: "pgbouncer", details: bouncer.output });

    // App instances: the first migrates and seeds the demo; the others start after it is ready.
    const haproxyPort = await freePort();
    const publicUrl = `http://127.0.0.1:${haproxyPort}`;
    const apps = [];
    for (let i = 0; i < count; i++) {
      const dataDir = path.join(dir, `instance-${i + 1}`);
      mkdirSync(dataDir);
      const app = await launchApp({
        env: {
          NODE_ENV: "production",
          DATA_DIR: dataDir,
          DATABASE_URL: pooledUrl,
          DATABASE_POOL_SIZE: String(databasePoolSize),
          JWT_SECRET: jwtSecret,
          REDIS_URL: redisUrl,
          UPSTASH_REDIS_REST_URL: undefined,
          UPSTASH_REDIS_REST_TOKEN: undefined,
          PUBLIC_URL: publicUrl,
          TRUST_PROXY: "true",
          WEB_CONCURRENCY: "1",
          SEED_DEMO: i === 0 ? "true" : "false",
          ...env,
          ...instanceEnv(i),
        },
      });
      started.push(app);
      apps.push({ name: `app${i + 1}`, baseUrl: app.baseUrl, port: app.port, pid: app.child.pid, output: app.output, dataDir });
    }

    // HAProxy
    const haproxyCfg = path.join(dir, "haproxy.cfg");
    writeFileSync(haproxyCfg, haproxyConfig({ port: haproxyPort, servers: apps }));
    const haproxy = child(findBinary("haproxy") ?? "haproxy", ["-db", "-f", haproxyCfg]);
    started.push(haproxy);
    // Ready when every instance has answered through it (its health checks marked them up).
    const seen = new Set();
    await until(
      async () => {
        const res = await fetch(`${publicUrl}/api/health`);
        await res.arrayBuffer();
        if (res.status === 200) seen.add(res.headers.get("x-served-by"));
        return apps.every((a) => seen.has(a.name));
      },
      { what: "haproxy", details: haproxy.output },
    );

    const demo = JSON.parse(readFileSync(path.join(apps[0]?.dataDir ?? "", "demo.json"), "utf8"));
    return {
      baseUrl: publicUrl,
      instances: apps.map(({ name, baseUrl, port, pid, output }) => ({ name, baseUrl, port, pid, output })),
      pid: apps[0]?.pid,
      pids: apps.map((a) => a.pid),
      supportPids: { haproxy: haproxy.pid, pgbouncer: bouncer.pid, redis: redisPid },
      demo,
      jwtSecret,
      database: "PgBouncer (transaction pooling) → Postgres",
      store: "Redis (REDIS_URL)",
      databaseUrl,
      pooledUrl,
      redisUrl,
      output: () => apps.map((a) => `--- ${a.name}\n${a.output()}`).join("\n"),
      sql: sqlOn(databaseUrl),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Starts a deployment, runs `body` with it, always stops it. */
export async function withDeployment(options, body) {
  const deployment = await startDeployment(options);
  try {
    return await body(deployment);
  } finally {
    await deployment.stop();
  }
}

/**
 * Mixed reads and writes at once against `baseUrl` for `duration` seconds (or `amount` requests of each kind): five autocannon runs in
 * parallel, each connection acting as one of `sessions` (players of the project of `key`, each
 * with a `profile` data key and an entry on `board`): data GET, data PUT, score POST (a random
 * score), leaderboard page GET, anonymous sign-in POST. Returns every status counted, plus
 * socket errors and time-outs, in total and per run.
 */
export async function mixedLoad(baseUrl, { key, sessions, board, duration = 6, amount, connectionsPerRun = 3 }) {
  const json = { "Content-Type": "application/json" };
  const perPlayer = (extra = {}) => {
    let next = 0;
    return (client) => {
      const s = sessions[next++ % sessions.length];
      client.setHeaders({ "X-API-Key": key, Authorization: `Bearer ${s.accessToken}`, ...extra });
    };
  };
  const runs = {
    "GET data": { url: `${baseUrl}/api/v1/players/me/data/profile`, setupClient: perPlayer() },
    "PUT data": {
      url: `${baseUrl}/api/v1/players/me/data/profile`,
      method: "PUT",
      body: JSON.stringify({ value: { level: 7, blob: "x".repeat(200) } }),
      setupClient: perPlayer(json),
    },
    "POST score": {
      url: `${baseUrl}/api/v1/leaderboards/${board}/scores`,
      method: "POST",
      setupClient: perPlayer(json),
      requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ score: Math.floor(Math.random() * 1e6) }) }) }],
    },
    "GET leaderboard": { url: `${baseUrl}/api/v1/leaderboards/${board}?limit=10`, headers: { "X-API-Key": key } },
    "POST sign-in": { url: `${baseUrl}/api/v1/auth/anonymous`, method: "POST", headers: { "X-API-Key": key } },
  };
  const results = await Promise.all(
    Object.entries(runs).map(async ([name, spec]) => {
      // `amount`: this many requests per run, however long they take (a test on a busy machine); else `duration` seconds.
      const r = await autocannon({ connections: connectionsPerRun, ...(amount ? { amount } : { duration }), ...spec });
      const statuses = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, st]) => [code, Number(st.count)]));
      return { name, requests: r.requests.total, statuses, errors: r.errors, timeouts: r.timeouts };
    }),
  );
  const statuses = {};
  for (const r of results) for (const [code, n] of Object.entries(r.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  return {
    requests: results.reduce((n, r) => n + r.requests, 0),
    statuses,
    errors: results.reduce((n, r) => n + r.errors, 0),
    timeouts: results.reduce((n, r) => n + r.timeouts, 0),
    runs: results,
  };
}
