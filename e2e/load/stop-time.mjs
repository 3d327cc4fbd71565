#!/usr/bin/env node
// SIGTERM to exit of `npm start` (the embedded default, WEB_CONCURRENCY unset: one worker per
// core) on a busy machine: two CPU burners (`yes > /dev/null`) run from before the start until
// the launcher has exited, and `clients` loops send requests (kept-alive connections, as a game's
// clients would) until the server closes. Prints each run's time and the launcher's stop lines
// with their offsets from the signal, so a slow stop shows where its time went.
//   node e2e/load/stop-time.mjs [runs=3] [burners=2] [clients=4]
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, launchApp, logLines } from "../support/launch.mjs";

const runs = Number(process.argv[2] ?? 3);
const burnerCount = Number(process.argv[3] ?? 2);
const clientCount = Number(process.argv[4] ?? 4);

const burners = Array.from({ length: burnerCount }, () => spawn("yes", { stdio: ["ignore", "ignore", "ignore"] }));
const times = [];
try {
  for (let i = 0; i < runs; i++) {
    const dataDir = mkdtempSync(path.join(tmpdir(), "gb-stop-"));
    chmodSync(dataDir, 0o755);
    try {
      const app = await launchApp({
        env: {
          DATABASE_URL: undefined,
          JWT_SECRET: undefined,
          REDIS_URL: undefined,
          PUBLIC_URL: undefined,
          WEB_CONCURRENCY: undefined,
          DATA_DIR: dataDir,
          EMBEDDED_POSTGRES_PORT: String(await freePort()),
        },
      });
      const { apiKey } = JSON.parse(readFileSync(path.join(dataDir, "demo.json"), "utf8"));
      let serving = true;
      const clients = Array.from({ length: clientCount }, async () => {
        while (serving) {
          await fetch(`${app.baseUrl}/api/v1/auth/anonymous`, { method: "POST", headers: { "X-API-Key": apiKey } })
            .then((res) => res.arrayBuffer())
            .catch(() => (serving = false));
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const signalledAt = Date.now();
      app.child.kill("SIGTERM");
      const code = await app.exited;
      const ms = Date.now() - signalledAt;
      serving = false;
      await Promise.all(clients);
      times.push(ms);
      console.log(`run ${i + 1}: exit ${code} after ${(ms / 1000).toFixed(1)} s`);
      for (const line of logLines(app.output())) {
        const at = Date.parse(String(line.time)) - signalledAt;
        if (at >= -50)
          console.log(
            `  +${(at / 1000).toFixed(2)} s [${line.component}${line.worker === undefined ? "" : ` ${line.worker}`}] ${line.msg}`,
          );
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
} finally {
  for (const burner of burners) burner.kill();
}
const sorted = [...times].sort((a, b) => a - b);
console.log(
  `\nSIGTERM to exit, ${runs} runs, ${burnerCount} burners, ${clientCount} clients: min ${(sorted[0] / 1000).toFixed(1)} s, ` +
    `median ${(sorted[Math.floor(sorted.length / 2)] / 1000).toFixed(1)} s, max ${(sorted[sorted.length - 1] / 1000).toFixed(1)} s`,
);
