// `npm run bench:runtimes`: the same production build served by Node 20 and by Node 24 (the
// runtime `npm start` uses since issue 52), side by side. Rounds alternate the runtimes (ABAB…):
// each round starts the product on a fresh database of the local Postgres (startProxiedProduct:
// default WEB_CONCURRENCY, in-process limiter, demo unlimited) under one runtime, runs each
// scenario of e2e/load/scenarios.mjs named below closed-loop (autocannon, 32 connections), and
// reads the server's CPU (launcher and workers, from /proc) per request. The load generator runs
// in this process, on Node 24, for both sides.
//   BENCH_NODE20=/usr/bin/node  the older runtime's binary (started with ALLOW_UNSUPPORTED_NODE=1)
//   BENCH_NODE20_ROOT=…         a checkout built by that runtime to serve its side (default: this one;
//                               a build made by Node 24 crashed a Node 20 worker with SIGSEGV here)
//   RUNTIME_ROUNDS=2 RUNTIME_DURATION=5 RUNTIME_SCENARIOS=key-limit-reply,data-get,config,data-put,score-submit
// Loopback only; the whole run is cut off after 20 minutes.
import { execFileSync } from "node:child_process";
import { load, processCpuMs, runSides, startProxiedProduct } from "./lib.mjs";
import { scenarios } from "./scenarios.mjs";

const ROUNDS = Number(process.env.RUNTIME_ROUNDS ?? 2);
const DURATION = Number(process.env.RUNTIME_DURATION ?? 5);
const CONNECTIONS = 32;
const WARMUP = 2;
const NAMES = (process.env.RUNTIME_SCENARIOS ?? "key-limit-reply,data-get,config,data-put,score-submit").split(",");
const RUN_LIMIT_MS = 20 * 60_000;
const node20 = process.env.BENCH_NODE20 ?? "/usr/bin/node";
const versionOf = (bin) => execFileSync(bin, ["--version"], { encoding: "utf8" }).trim();
const RUNTIMES = [
  {
    label: `Node ${versionOf(node20).slice(1)}`,
    execPath: node20,
    cwd: process.env.BENCH_NODE20_ROOT,
    env: { ALLOW_UNSUPPORTED_NODE: "1" },
  },
  { label: `Node ${process.versions.node}`, execPath: process.execPath, env: {} },
];
const chosen = NAMES.map((name) => {
  const s = scenarios.find((x) => x.name === name);
  if (!s) throw new Error(`unknown scenario ${name}`);
  return s;
});
const log = (m) => process.stderr.write(`[bench-runtimes] ${m}\n`);

/** Round 1: each runtime in turn, then round 2 likewise (ABAB…). */
const sides = Array.from({ length: ROUNDS }, (_, r) => RUNTIMES.map((runtime, i) => ({ round: r + 1, runtime, i }))).flat();
/** results[scenario][runtime] = [{ rps, cpuUs }] per round */
const results = Object.fromEntries(chosen.map((s) => [s.name, RUNTIMES.map(() => [])]));
await runSides(
  "bench-runtimes",
  sides,
  async ({ round, runtime, i }) => {
    log(`round ${round}: ${runtime.label}`);
    const product = await startProxiedProduct("bench_runtimes", runtime.env, { execPath: runtime.execPath, cwd: runtime.cwd });
    try {
      for (const scenario of chosen) {
        const spec = await scenario.setup(product, { connections: CONNECTIONS });
        // Warm-up (JIT, connection pools), not counted.
        await load(product.baseUrl, spec, { duration: WARMUP, connections: CONNECTIONS });
        const before = processCpuMs(product.pid);
        const r = await load(product.baseUrl, spec, { duration: DURATION, connections: CONNECTIONS });
        const cpuMs = processCpuMs(product.pid) - before;
        if (r.errors > 0)
          throw new Error(`${scenario.name} on ${runtime.label}: ${r.errors} unexpected answers ${JSON.stringify(r.statuses)}`);
        results[scenario.name][i].push({ rps: r.rps, cpuUs: (cpuMs * 1000) / Math.max(1, r.requests) });
        log(`  ${scenario.name}: ${r.rps.toFixed(0)} req/s, ${((cpuMs * 1000) / r.requests).toFixed(0)} µs CPU/request`);
      }
    } finally {
      await product.stop();
    }
  },
  { limitMs: RUN_LIMIT_MS },
);

const fmt = (xs, key, digits = 0) => xs.map((x) => x[key].toFixed(digits)).join(" / ");
const mean = (xs, key) => xs.reduce((n, x) => n + x[key], 0) / xs.length;
const lines = [
  `${ROUNDS} rounds (${RUNTIMES.map((r) => r.label).join(", ")} alternately), ${DURATION} s per scenario after ${WARMUP} s of warm-up, ${CONNECTIONS} connections; per round.`,
  "",
  `| scenario | ${RUNTIMES.map((r) => `${r.label} req/s`).join(" | ")} | gain | ${RUNTIMES.map((r) => `${r.label} server CPU µs/req`).join(" | ")} |`,
  `|---|${RUNTIMES.map(() => "---:").join("|")}|---:|${RUNTIMES.map(() => "---:").join("|")}|`,
];
for (const s of chosen) {
  const [a, b] = results[s.name];
  const gain = (mean(b, "rps") / mean(a, "rps") - 1) * 100;
  lines.push(
    `| ${s.title} | ${fmt(a, "rps")} | ${fmt(b, "rps")} | ${gain >= 0 ? "+" : ""}${gain.toFixed(0)} % | ${fmt(a, "cpuUs")} | ${fmt(b, "cpuUs")} |`,
  );
}
console.log(lines.join("\n"));
process.exit(0);
