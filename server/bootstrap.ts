import { pool } from "./db";
import { seedDemo } from "./demo-seed";
import { env } from "./env";
import { scheduleMaintenance } from "./maintenance";
import { migrate } from "./migrate";
import { limiterKind, limiterReady } from "./ratelimit";

/**
 * Runs once per server process before the first request (instrumentation.ts). With the
 * launcher's workers, worker 0 runs it first and alone (the launcher starts the others once it
 * is healthy): it applies the migrations and seeds the demo, and it alone schedules the hourly
 * maintenance (a replacement of worker 0 keeps index 0). The others find the database migrated.
 */
export async function bootstrap(): Promise<void> {
  const config = env();
  const worker = config.GAME_BACKEND_WORKER_INDEX;
  const first = worker === undefined || worker === 0;
  const applied = await migrate(pool());
  if (first || applied.length > 0) {
    console.log(`[boot] database migrated (${applied.length ? `applied ${applied.join(", ")}` : "up to date"})`);
  }
  if (first) scheduleMaintenance();
  const store = limiterKind();
  if (store === "memory") {
    if (first) {
      console.warn(
        worker === undefined
          ? "[boot] rate limits are kept in-process: correct for a single instance only (set REDIS_URL or UPSTASH_REDIS_REST_* for more)"
          : "[boot] rate limits are kept in the launcher's primary process, shared by its workers: correct for a single instance only (set REDIS_URL or UPSTASH_REDIS_REST_* for more)",
      );
    }
  } else if (await limiterReady()) {
    console.log(`[boot] rate limits on ${store === "redis" ? "Redis (REDIS_URL)" : "Upstash"}`);
  } else {
    console.warn("[boot] the rate-limit store is not reachable yet: gameplay requests pass unlimited, e-mail auth answers 503 until it is");
  }
  if (!config.SEED_DEMO || !first) return;
  const { demo, created } = await seedDemo();
  // Secrets are printed once, when they are made; later starts point to the file instead.
  const lines = created
    ? [
        `  Game backend ready, demo seeded: ${demo.baseUrl}`,
        `  Dashboard login:  ${demo.operatorEmail} / ${demo.operatorPassword}`,
        `  Client API key:   ${demo.apiKey}   (Demo Game, Pro)`,
        `  Server API key:   ${demo.serverApiKey}`,
        `  Free API key:     ${demo.freeApiKey}   (Free Demo, Free)`,
        `  API docs:         ${demo.baseUrl}/docs`,
        `  Sample game:      ${demo.baseUrl}/play`,
        `  (saved to ${config.DATA_DIR}/demo.json; they are not printed again)`,
      ]
    : [
        `  Game backend ready: ${demo.baseUrl}`,
        `  API docs:         ${demo.baseUrl}/docs`,
        `  Sample game:      ${demo.baseUrl}/play`,
        `  Demo keys and the dashboard login: ${config.DATA_DIR}/demo.json`,
      ];
  console.log(["", ...lines, ""].join("\n"));
}
