#!/usr/bin/env node
// Cold start of the embedded default: from `node server/cli/start.mjs` (what `npm start` runs,
// build already done) to the first served API request. Prints a table.
//   node e2e/load/cold-start.mjs [runs=3]
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureBuild, freePort, root } from "./lib.mjs";

const runs = Number(process.argv[2] ?? 3);
ensureBuild();

async function startOnce(dataDir, pgPort) {
  const port = await freePort();
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), EMBEDDED_POSTGRES_PORT: String(pgPort), HOST: "127.0.0.1" };
  for (const name of ["DATABASE_URL", "JWT_SECRET", "REDIS_URL", "PUBLIC_URL"]) delete env[name];
  const t0 = performance.now();
  const child = spawn(process.execPath, ["server/cli/start.mjs"], { cwd: root, env, stdio: "ignore" });
  let firstRequestMs;
  for (;;) {
    try {
      const demo = JSON.parse(readFileSync(path.join(dataDir, "demo.json"), "utf8"));
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/auth/anonymous`, { method: "POST", headers: { "X-API-Key": demo.apiKey } });
      if (res.status === 200) {
        firstRequestMs = performance.now() - t0;
        break;
      }
    } catch {}
    if (performance.now() - t0 > 120_000) throw new Error("did not start in 120 s");
    await new Promise((r) => setTimeout(r, 10));
  }
  const exited = new Promise((r) => child.on("exit", r));
  child.kill("SIGTERM");
  await exited;
  return firstRequestMs;
}

const fresh = [];
const warm = [];
for (let i = 0; i < runs; i++) {
  const dataDir = mkdtempSync(path.join(tmpdir(), "gb-cold-"));
  chmodSync(dataDir, 0o755);
  const pgPort = await freePort();
  fresh.push(await startOnce(dataDir, pgPort));
  warm.push(await startOnce(dataDir, pgPort));
  rmSync(dataDir, { recursive: true, force: true });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;
console.log(`\nCold start to first served POST /api/v1/auth/anonymous (${runs} runs, build already done)\n`);
console.log("| start | min | median | max |");
console.log("|---|---|---|---|");
console.log(`| first start (initdb + migrate + seed) | ${fmt(Math.min(...fresh))} | ${fmt(median(fresh))} | ${fmt(Math.max(...fresh))} |`);
console.log(`| later start (existing .data) | ${fmt(Math.min(...warm))} | ${fmt(median(warm))} | ${fmt(Math.max(...warm))} |`);
