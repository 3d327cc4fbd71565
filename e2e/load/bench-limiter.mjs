// CPU of one keyed request's rate-limit check (limitKeyed: a player's share, then the project),
// apart from the rest of a request, where `npm run bench` cannot tell a few tens of µs from its noise.
//   node e2e/load/bench-limiter.mjs redis [calls]     # this process + the redis-server at REDIS_URL
//   node e2e/load/bench-limiter.mjs launcher [calls]  # a launcher worker + its primary (no Redis: IPC)
// Calls come 16 at a time, for 1,000 players of one Enterprise project with budgets that never
// refuse. Prints µs of CPU per call on each side and calls per second. Run it against two trees
// (A/B) in turn: `node <tree>/e2e/load/bench-limiter.mjs …` loads that tree's limiter.
import { execSync } from "node:child_process";
import cluster from "node:cluster";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createJiti } from "jiti";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const [mode = "redis", calls = "20000"] = process.argv.slice(2);
const n = Number(calls);
const WARM_UP = 2_000;
const CONCURRENCY = 16;
process.env.JWT_SECRET ??= "bench-limiter-".padEnd(48, "x");
process.env.DATABASE_URL ??= "postgresql://unused@127.0.0.1/unused"; // required by the schema, never opened

const usOf = (/** @type {NodeJS.CpuUsage} */ c) => c.user + c.system;

/** The tree's limiter, outside Next: "server-only" (which only Next's server bundles may import) is stubbed. */
async function loadLimiter() {
  const empty = path.join(tmpdir(), "bench-limiter-empty.cjs");
  writeFileSync(empty, "");
  const jiti = createJiti(path.join(root, "package.json"), { alias: { "server-only": empty } });
  return /** @type {typeof import("../../server/ratelimit/index.ts")} */ (await jiti.import(path.join(root, "server/ratelimit/index.ts")));
}

/** Warms up, calls `onStart`, runs the calls; answers this process's CPU µs per call and calls per second. */
async function run(onStart = () => {}) {
  const { limitKeyed, limiterReady } = await loadLimiter();
  if (!(await limiterReady(3_000))) throw new Error("the limiter's store is not reachable");
  const project = {
    projectId: `bench-${process.pid}`,
    plan: /** @type {const} */ ("ENTERPRISE"),
    customRateLimit: 1e9,
    playerRateLimit: 1e9,
    ipRateLimit: null,
  };
  let i = 0;
  const one = async () => {
    const results = await limitKeyed(project, { scope: "player", identifier: `p${i++ % 1000}` });
    if (!results?.every((r) => r.allowed && !r.degraded)) throw new Error(`refused or degraded: ${JSON.stringify(results)}`);
  };
  for (let w = 0; w < WARM_UP; w++) await one();
  i = 0;
  onStart();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (i < n) await one();
    }),
  );
  return { usPerCall: Math.round(usOf(process.cpuUsage(cpu)) / n), callsPerSecond: Math.round(n / ((performance.now() - started) / 1000)) };
}

if (mode === "redis") {
  if (!process.env.REDIS_URL) throw new Error("REDIS_URL is not set");
  const port = new URL(process.env.REDIS_URL).port || "6379";
  const pid = execSync(`pgrep -f 'redis-server.*:${port}' | head -1`).toString().trim();
  // utime + stime in clock ticks (100 a second), fields 14 and 15 of /proc/<pid>/stat.
  const redisUs = () => {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  };
  let redisBefore = 0;
  const { usPerCall, callsPerSecond } = await run(() => {
    redisBefore = redisUs();
  });
  const redisUsPerCall = Math.round((redisUs() - redisBefore) / n);
  console.log(JSON.stringify({ tree: root, store: "redis", calls: n, appUsPerCall: usPerCall, redisUsPerCall, callsPerSecond }));
  process.exit(0);
} else if (mode === "launcher") {
  delete process.env.REDIS_URL;
  if (cluster.isPrimary) {
    // What the launcher's primary does for a worker's rate-limit request (server/cli/start.mjs, answer()).
    const { FixedWindowCounters } = await import("../../server/fixed-window.mjs");
    const counters = new FixedWindowCounters();
    const worker = cluster.fork({ GAME_BACKEND_WORKER_INDEX: "0" });
    let cpu = process.cpuUsage();
    worker.on("message", (m) => {
      if (m.gb === "request" && m.op === "ratelimit") {
        const value = m.kind === "get" ? counters.current(String(m.keys[0])) || null : counters.run(m.kind, m.keys, m.args);
        worker.send({ gb: "reply", id: m.id, value }, undefined, {}, () => {});
      } else if (m.bench === "start") cpu = process.cpuUsage();
      else if (m.bench === "done") {
        const primaryUsPerCall = Math.round(usOf(process.cpuUsage(cpu)) / n);
        console.log(
          JSON.stringify({
            tree: root,
            store: "launcher",
            calls: n,
            workerUsPerCall: m.usPerCall,
            primaryUsPerCall,
            callsPerSecond: m.callsPerSecond,
          }),
        );
        process.exit(0);
      }
    });
    worker.on("exit", (code) => {
      if (code) process.exit(code);
    });
  } else {
    const result = await run(() => process.send?.({ bench: "start" }));
    process.send?.({ bench: "done", ...result });
  }
} else {
  throw new Error(`unknown mode ${mode}: redis or launcher`);
}
