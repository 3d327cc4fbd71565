#!/usr/bin/env node
// `npm run bench`: the request path under load, every scenario beside a bare Next route handler
// measured in the same run, with autocannon. Starts the production build through the launcher
// on a fresh embedded Postgres (or DATABASE_URL / REDIS_URL when set), lifts the bench project's
// budget, and for each scenario measures: the bare route, then the scenario at full load (closed
// loop), then the scenario at half its measured rate (open loop, evenly paced: the latency a
// client sees below saturation).
// Beside throughput it reports the CPU the server and its embedded Postgres spent per request
// (the bare route's too). Prints one table, writes it as JSON and draws it as an SVG chart.
//   npm run bench -- [--duration 8] [--connections 32] [--only name,name] [--out dir]
// Loopback only; every run is bounded in time.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { drawChart } from "./chart.mjs";
import { load, paced, processCpuMs, root, withProduct } from "./lib.mjs";
import { scenarios } from "./scenarios.mjs";

const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: process.env.BENCH_DURATION ?? "8" },
    connections: { type: "string", default: "32" },
    only: { type: "string" },
    out: { type: "string", default: path.join(root, "e2e/load/results") },
  },
});
const duration = Number(args.duration);
const connections = Number(args.connections);
const only = args.only?.split(",");
const chosen = scenarios.filter((s) => !only || only.includes(s.name));

/**
 * `load` plus the CPU the server and its embedded Postgres spent per request meanwhile (from
 * /proc): on shared cores, throughput moves with what other processes take, CPU per request
 * much less.
 */
async function loadWithCpu(product, spec, options) {
  const before = processCpuMs(product.pid);
  const result = await load(product.baseUrl, spec, options);
  return { ...result, cpuUs: ((processCpuMs(product.pid) - before) * 1000) / Math.max(1, result.requests) };
}

async function measureScenario(product, scenario) {
  const conns = scenario.connections ?? connections;
  const spec = await scenario.setup(product, { connections: conns });
  await load(product.baseUrl, spec, { duration: 2, connections: conns }); // warm-up: JIT, pools, caches
  const full = await loadWithCpu(product, spec, { duration, connections: conns });
  // Half the rate just measured, paced evenly and open loop: the latency a client sees when
  // the service runs below saturation (see `paced` in lib.mjs for why not autocannon's rates).
  const half = await paced(product.baseUrl, spec, { duration: Math.max(3, duration / 2), rate: Math.max(1, full.rps / 2), slots: conns });
  return {
    name: scenario.name,
    title: scenario.title,
    goal: scenario.goal ?? null,
    connections: conns,
    ...full,
    halfRate: half.rate,
    halfRateP50: half.p50,
    halfRateP99: half.p99,
    halfRateErrors: half.errors,
  };
}

const bareRoute = { path: "/api/internal/bare", expect: 200 };

const report = await withProduct(
  { BENCH_BARE_ROUTE: "1", ...(process.env.BENCH_ENV ? JSON.parse(process.env.BENCH_ENV) : {}) },
  async (product) => {
    const rows = [];
    await load(product.baseUrl, bareRoute, { duration: 2, connections });
    for (const scenario of chosen) {
      // The bare route right before and right after each scenario (the mean is its baseline):
      // the machine's ceiling at that moment, so drift on shared cores hits both sides alike.
      const before = await loadWithCpu(product, bareRoute, { duration: duration / 2, connections });
      const row = await measureScenario(product, scenario);
      const after = await loadWithCpu(product, bareRoute, { duration: duration / 2, connections });
      const bareRps = (before.rps + after.rps) / 2;
      const bareCpuUs = (before.cpuUs + after.cpuUs) / 2;
      Object.assign(row, {
        bareRps,
        ratio: row.rps / bareRps,
        bareP99: Math.max(before.p99, after.p99),
        bareCpuUs,
        cpuRatio: bareCpuUs / row.cpuUs,
      });
      rows.push(row);
      console.error(
        `[bench] ${scenario.name}: ${row.rps.toFixed(0)} req/s (${(row.ratio * 100).toFixed(0)} % of bare ${bareRps.toFixed(0)}), CPU ${row.cpuUs.toFixed(0)} µs/request (bare ${bareCpuUs.toFixed(0)}), statuses ${JSON.stringify(row.statuses)}`,
      );
    }
    return { rows, store: product.store, database: product.database };
  },
);

const when = new Date().toISOString();
const machine = `${(await import("node:os")).cpus().length} cores, Node ${process.version}`;
const header = `npm run bench — ${when}, ${machine}, ${connections} connections, ${duration} s per run, database: ${report.database}, limiter: ${report.store}`;
const lines = [
  header,
  "",
  "| scenario | connections | req/s | p50 ms | p99 ms | errors | bare route req/s (p99 ms) | share of bare | goal | CPU µs/request: scenario / bare (bare ÷ scenario) | half rate: req/s, p50 / p99 ms |",
  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ...report.rows.map(
    (r) =>
      `| ${r.title} | ${r.connections} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.errors} | ${r.bareRps.toFixed(0)} (${r.bareP99.toFixed(0)}) | ${(r.ratio * 100).toFixed(0)} % | ${
        r.goal ? `≥ ${r.goal * 100} % ${r.ratio >= r.goal ? "met" : "**not met**"}` : "—"
      } | ${r.cpuUs.toFixed(0)} / ${r.bareCpuUs.toFixed(0)} (${(r.cpuRatio * 100).toFixed(0)} %) | ${r.halfRate.toFixed(0)}: ${r.halfRateP50.toFixed(1)} / ${r.halfRateP99.toFixed(1)}${r.halfRateErrors ? ` (${r.halfRateErrors} errors)` : ""} |`,
  ),
];
console.log(lines.join("\n"));
mkdirSync(args.out, { recursive: true });
writeFileSync(path.join(args.out, "bench.json"), `${JSON.stringify({ when, machine, connections, duration, ...report }, null, 2)}\n`);
writeFileSync(path.join(args.out, "bench.md"), `${lines.join("\n")}\n`);
writeFileSync(path.join(args.out, "bench.svg"), drawChart(report.rows, header));
console.error(`[bench] wrote ${path.relative(process.cwd(), args.out)}/bench.{json,md,svg}`);
