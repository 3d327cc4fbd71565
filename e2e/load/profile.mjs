#!/usr/bin/env node
// Where a request's CPU time goes: runs one bench scenario against the product started with
// `node --cpu-prof`, then prints the functions with the most self time and the time by package.
//   npm run profile -- <scenario name> [seconds=10]     (scenario names: e2e/load/scenarios.mjs)
// The raw .cpuprofile is kept (path printed) for Chrome DevTools or speedscope.
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureBuild, load, startProduct, unlimitDemo } from "./lib.mjs";
import { scenarios } from "./scenarios.mjs";

const [name = "key-limit-reply", secondsArg = "10"] = process.argv.slice(2);
const scenario = scenarios.find((s) => s.name === name);
if (!scenario) {
  console.error(`unknown scenario ${name}; one of: ${scenarios.map((s) => s.name).join(", ")}`);
  process.exit(2);
}
ensureBuild();
const profileDir = mkdtempSync(path.join(tmpdir(), "gb-profile-"));
const product = await startProduct({ API_KEY_CACHE_TTL_SECONDS: "1" }, ["--cpu-prof", `--cpu-prof-dir=${profileDir}`]);
let result;
try {
  await unlimitDemo(product);
  const spec = await scenario.setup(product, { connections: 32 });
  await load(product.baseUrl, spec, { duration: 2 });
  result = await load(product.baseUrl, spec, { duration: Number(secondsArg) });
} finally {
  await product.stop();
}

// The launcher is the biggest profile (the server process); Postgres is not a Node process.
const files = readdirSync(profileDir).filter((f) => f.endsWith(".cpuprofile"));
const largest = files.map((f) => ({ f, size: readFileSync(path.join(profileDir, f)).length })).sort((a, b) => b.size - a.size)[0];
if (!largest) throw new Error(`no profile written in ${profileDir}`);
const file = path.join(profileDir, largest.f);
const profile = JSON.parse(readFileSync(file, "utf8"));

const selfMs = new Map();
const deltas = profile.timeDeltas;
for (const [i, id] of profile.samples.entries()) selfMs.set(id, (selfMs.get(id) ?? 0) + (deltas[i] ?? 0) / 1000);
const byFunction = new Map();
const byPackage = new Map();
let total = 0;
for (const node of profile.nodes) {
  const ms = selfMs.get(node.id) ?? 0;
  if (!ms) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  if (functionName === "(idle)") continue;
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
const top = (map, n) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
console.log(
  `\nProfile of "${scenario.name}": ${requests} requests, ${result.rps.toFixed(0)} req/s, ${(total / requests).toFixed(3)} ms CPU per request (busy samples)\n`,
);
console.log("| package | share of busy CPU | µs per request |\n|---|---:|---:|");
for (const [pkg, ms] of top(byPackage, 15))
  console.log(`| ${pkg} | ${((ms / total) * 100).toFixed(1)} % | ${((ms * 1000) / requests).toFixed(0)} |`);
console.log("\n| function (self time) | share | µs per request |\n|---|---:|---:|");
for (const [fn, ms] of top(byFunction, 25))
  console.log(`| \`${fn.slice(0, 110)}\` | ${((ms / total) * 100).toFixed(1)} % | ${((ms * 1000) / requests).toFixed(0)} |`);
console.log(`\nraw profile: ${file}`);
