// The dashboard suite's web server: the product through the launcher, on a fresh embedded
// Postgres in a data directory of its own (removed first), with short caches so plan changes
// show within seconds. Playwright starts it and stops it (SIGTERM: the launcher stops Postgres).
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, rmSync } from "node:fs";
import { freePort, root } from "../support/launch.mjs";

const dataDir = process.env.E2E_DATA_DIR;
rmSync(dataDir, { recursive: true, force: true });
mkdirSync(dataDir, { recursive: true });
chmodSync(dataDir, 0o755);
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  PORT: process.env.E2E_PORT,
  HOST: "127.0.0.1",
  EMBEDDED_POSTGRES_PORT: String(await freePort()),
  API_KEY_CACHE_TTL_SECONDS: "2",
  // As in the API suite: operator sign-in fails closed when the limiter's store is slower than
  // this, and a busy 2-core machine running Chromium beside the app can stall 100 ms (CI once
  // refused a sign-in with "rate-limit store slower than 100 ms").
  RATE_LIMIT_STORE_TIMEOUT_MS: "1000",
  // The health view's counts are written every 0.5 s (5 s in production), so specs see them at once.
  USAGE_FLUSH_MS: "500",
  // Not the defaults (5 days, 30 days), so the failing-endpoint banner is seen to read the instance's settings.
  WEBHOOK_DISABLE_AFTER_MS: String(3 * 86_400_000),
  WEBHOOK_RETENTION_DAYS: "14",
  // One process, like the API suite: the workers have their own test (e2e/api/cluster.test.ts).
  WEB_CONCURRENCY: process.env.WEB_CONCURRENCY ?? "1",
};
for (const name of ["DATABASE_URL", "JWT_SECRET", "PUBLIC_URL", "NODE_ENV"]) delete env[name];
const child = spawn(process.execPath, ["server/cli/start.mjs"], { cwd: root, env, stdio: "inherit" });
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
