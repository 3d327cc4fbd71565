#!/usr/bin/env node
// Where a request's CPU time goes, in the measured window only: starts the product with the
// inspector on a loopback port, warms up (JIT, pools, caches) without profiling, then starts
// V8's sampling profiler over the inspector protocol, runs the scenario, stops the profiler,
// and prints self time by package and by function — startup, build and warm-up are not in it.
// Beside the profile it reports the CPU every process spent in that window per request: the
// server (all its threads: GC, libuv pool), its Postgres processes (embedded, children of the
// launcher; not counted with DATABASE_URL) and the load generator (this process), which all
// share the machine's cores.
//   npm run profile -- <scenario name> [seconds=10]     (scenario names: e2e/load/scenarios.mjs, or bare)
// The volume scenarios (those of `npm run bench`) seed the volume first (e2e/load/seed-volume.mjs, ~30 s);
// the older ones of the same name are reached with a `classic:` prefix (classic:purchase-many).
// The raw .cpuprofile is kept (path printed) for Chrome DevTools or speedscope.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureBuild, freePort, load, processCpuMs, startProduct, unlimitDemo } from "./lib.mjs";
import { scenarios as classicScenarios, volumeScenarios } from "./scenarios.mjs";
import { seedVolume } from "./seed-volume.mjs";

// Node 20 has WebSocket behind a flag (22 has it by default).
if (typeof WebSocket === "undefined") {
  const r = spawnSync(process.execPath, ["--experimental-websocket", ...process.argv.slice(1)], { stdio: "inherit" });
  process.exit(r.status ?? 1);
}

const [name = "key-limit-reply", secondsArg = "10"] = process.argv.slice(2);
// "bare": the route that does nothing (as in `npm run bench`), the floor to compare with.
const bare = { name: "bare", setup: async () => ({ path: "/api/internal/bare", expect: 200 }) };
const classic = classicScenarios.map((s) => ({ ...s, name: `classic:${s.name}` }));
const scenario = [bare, ...volumeScenarios, ...classic, ...classicScenarios].find((s) => s.name === name);
const volume = volumeScenarios.includes(scenario);
if (!scenario) {
  console.error(`unknown scenario ${name}; one of: ${[...volumeScenarios, ...classic].map((s) => s.name).join(", ")}`);
  process.exit(2);
}
const SAMPLING_INTERVAL_US = 250;

/** A minimal Chrome DevTools Protocol client over the inspector's WebSocket. */
async function inspector(port) {
  const [target] = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let nextId = 1;
  const pending = new Map();
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(`${message.error.message}`));
    else waiter.resolve(message.result);
  };
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => ws.close() };
}

ensureBuild();
const inspectPort = await freePort();
// One process: the inspector is the launcher's, and with workers the launcher serves no request.
const product = await startProduct({ API_KEY_CACHE_TTL_SECONDS: "1", BENCH_BARE_ROUTE: "1", WEB_CONCURRENCY: "1" }, [
  `--inspect=127.0.0.1:${inspectPort}`,
]);
let result;
let profile;
const cpu = {};
try {
  await unlimitDemo(product);
  // With REDIS_URL, waits for the rank index as the bench does: a rebuild in the window would be profiled too.
  if (volume) product.volume = { projectId: (await seedVolume(product, { redisUrl: product.redisUrl })).projectId };
  const spec = await scenario.setup(product, { connections: 32 });
  await load(product.baseUrl, spec, { duration: 3 }); // warm-up, not profiled
  const session = await inspector(inspectPort);
  await session.send("Profiler.enable");
  await session.send("Profiler.setSamplingInterval", { interval: SAMPLING_INTERVAL_US });
  const serverPid = product.pid;
  const before = { server: await serverCpuMs(session), pg: processCpuMs(serverPid, { descendantsOnly: true }), gen: process.cpuUsage() };
  await session.send("Profiler.start");
  result = await load(product.baseUrl, spec, { duration: Number(secondsArg) });
  ({ profile } = await session.send("Profiler.stop"));
  cpu.server = (await serverCpuMs(session)) - before.server;
  cpu.pg = processCpuMs(serverPid, { descendantsOnly: true }) - before.pg;
  const gen = process.cpuUsage(before.gen);
  cpu.generator = (gen.user + gen.system) / 1000;
  session.close();
} finally {
  await product.stop();
}

async function serverCpuMs(session) {
  const { result: r } = await session.send("Runtime.evaluate", {
    expression: "(() => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; })()",
    returnByValue: true,
  });
  return r.value;
}

const file = path.join(mkdtempSync(path.join(tmpdir(), "gb-profile-")), `${scenario.name}.cpuprofile`);
writeFileSync(file, JSON.stringify(profile));

const selfMs = new Map();
const deltas = profile.timeDeltas;
for (const [i, id] of profile.samples.entries()) selfMs.set(id, (selfMs.get(id) ?? 0) + (deltas[i] ?? 0) / 1000);
const byFunction = new Map();
const byPackage = new Map();
let total = 0;
let idle = 0;
for (const node of profile.nodes) {
  const ms = selfMs.get(node.id) ?? 0;
  if (!ms) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  if (functionName === "(idle)") {
    idle += ms;
    continue;
  }
  total += ms;
  const where = url.replace(/^file:\/\//, "").replace(`${process.cwd()}/`, "");
  const fnKey = `${functionName || "(anonymous)"} ${where ? `${where}:${lineNumber + 1}` : ""}`;
  byFunction.set(fnKey, (byFunction.get(fnKey) ?? 0) + ms);
  const pkg =
    /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(where)?.[1] ??
    (where.includes(".next/server")
      ? "app (compiled .next/server)"
      : where.startsWith("node:")
        ? "node internals"
        : where
          ? where
          : functionName);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
}
const requests = result.requests;
const perRequest = (ms) => ((ms * 1000) / requests).toFixed(0);
const top = (map, n) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
console.log(
  `\nProfile of "${scenario.name}" over the measured ${secondsArg} s only: ${requests} requests, ${result.rps.toFixed(0)} req/s, p99 ${result.p99} ms, statuses ${JSON.stringify(result.statuses)}`,
);
console.log(
  `CPU per request in the window: server ${perRequest(cpu.server)} µs (main thread busy in the profile ${perRequest(total)} µs, idle ${((idle / (idle + total)) * 100).toFixed(0)} %), ` +
    `Postgres ${perRequest(cpu.pg)} µs, load generator ${perRequest(cpu.generator)} µs\n`,
);
console.log("| package | share of busy CPU | µs per request |\n|---|---:|---:|");
for (const [pkg, ms] of top(byPackage, 15)) console.log(`| ${pkg} | ${((ms / total) * 100).toFixed(1)} % | ${perRequest(ms)} |`);
console.log("\n| function (self time) | share | µs per request |\n|---|---:|---:|");
for (const [fn, ms] of top(byFunction, 25))
  console.log(`| \`${fn.slice(0, 110)}\` | ${((ms / total) * 100).toFixed(1)} % | ${perRequest(ms)} |`);
console.log(`\nraw profile: ${file}`);
