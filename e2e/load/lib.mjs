// Shared pieces of the benchmark scripts: start the product the way `npm start` does, drive
// load with a bounded closed loop, print Markdown tables. Loopback only, bounded in time.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";

export const root = path.resolve(import.meta.dirname, "../..");

export function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export function ensureBuild() {
  const r = spawnSync(process.execPath, ["server/cli/start.mjs", "--build-only"], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/**
 * Starts `node server/cli/start.mjs` (what `npm start` runs) on the embedded Postgres in a
 * temporary data directory, waits until it is ready, and returns its demo.json.
 */
export async function startProduct(extraEnv = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), "gb-bench-"));
  chmodSync(dataDir, 0o755);
  const port = await freePort();
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
  };
  for (const name of ["DATABASE_URL", "JWT_SECRET", "REDIS_URL", "PUBLIC_URL"]) delete env[name];
  Object.assign(env, extraEnv);
  const child = spawn(process.execPath, ["server/cli/start.mjs"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  await new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes("[start] ready on")) {
        clearInterval(timer);
        resolve();
      }
      if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(output));
      }
    }, 50);
  });
  const demo = JSON.parse(readFileSync(path.join(dataDir, "demo.json"), "utf8"));
  const secrets = JSON.parse(readFileSync(path.join(dataDir, "secrets.json"), "utf8"));
  const databaseUrl = `postgresql://postgres:${encodeURIComponent(secrets.postgresPassword)}@127.0.0.1:${env.EMBEDDED_POSTGRES_PORT}/game`;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    demo,
    /** Runs SQL against the product's database (to lift the demo plan's budget for load). */
    sql: async (text, values = []) => {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        return await client.query(text, values);
      } finally {
        await client.end();
      }
    },
    stop: async () => {
      const exited = new Promise((r) => child.on("exit", r));
      child.kill("SIGTERM");
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Lifts the demo project's budget so load is not cut off by its own plan. */
export async function unlimitDemo(product) {
  await product.sql(`UPDATE projects SET plan = 'ENTERPRISE', custom_rate_limit = 100000000 WHERE name = 'Demo Game'`);
  await new Promise((r) => setTimeout(r, 1_500)); // API_KEY_CACHE_TTL_SECONDS=1 in the bench instances
}

/**
 * A closed-loop load generator: `connections` loops each send one request, wait for the answer,
 * send the next, for `seconds`. Latency per request with sub-millisecond resolution.
 * `request(i)` returns [url, init]; `expect` is the status every answer must have.
 */
export async function measure({ request, connections = 8, seconds = 10, expect = 200, warmupSeconds = 2 }) {
  const run = async (durationMs, record) => {
    const latencies = [];
    let errors = 0;
    let i = 0;
    const end = performance.now() + durationMs;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < end) {
          const [url, init] = request(i++);
          const t0 = performance.now();
          const res = await fetch(url, init);
          await res.arrayBuffer();
          const dt = performance.now() - t0;
          if (res.status !== expect) errors++;
          if (record) latencies.push(dt);
        }
      }),
    );
    return { latencies, errors };
  };
  await run(warmupSeconds * 1000, false);
  const started = performance.now();
  const { latencies, errors } = await run(seconds * 1000, true);
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  return { requests: latencies.length, rps: latencies.length / elapsed, p50: pct(50), p99: pct(99), errors };
}

export function table(title, rows) {
  console.log(`\n${title}\n`);
  console.log("| what | connections | requests | req/s | p50 ms | p99 ms | unexpected status |");
  console.log("|---|---|---|---|---|---|---|");
  for (const r of rows) {
    console.log(
      `| ${r.name} | ${r.connections} | ${r.requests} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.errors} |`,
    );
  }
}

/**
 * The common frame of a benchmark: build if needed, start the product (demo lifted to an
 * unlimited plan), run `body`, always stop.
 */
export async function withProduct(extraEnv, body) {
  ensureBuild();
  const product = await startProduct({ API_KEY_CACHE_TTL_SECONDS: "1", ...extraEnv });
  try {
    await unlimitDemo(product);
    return await body(product);
  } finally {
    await product.stop();
  }
}

/** The baseline every table carries: key lookup + rate limit + a JSON 405, no database work. */
export function trivialRequest({ baseUrl, demo }) {
  return () => [`${baseUrl}/api/v1/auth/anonymous`, { headers: { "X-API-Key": demo.apiKey } }];
}
