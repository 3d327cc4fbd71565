import { seedDemo } from "../prisma/seed";
import { pool } from "./db";
import { env } from "./env";
import { scheduleMaintenance } from "./maintenance";
import { migrate } from "./migrate";
import { limiterKind, limiterReady } from "./ratelimit";

/** Runs once per server process before the first request (instrumentation.ts). */
export async function bootstrap(): Promise<void> {
  const config = env();
  const applied = await migrate(pool());
  console.log(`[boot] database migrated (${applied.length ? `applied ${applied.join(", ")}` : "up to date"})`);
  scheduleMaintenance();
  const store = limiterKind();
  if (store === "memory") {
    console.warn(
      "[boot] rate limits are kept in-process: correct for a single instance only (set REDIS_URL or UPSTASH_REDIS_REST_* for more)",
    );
  } else if (await limiterReady()) {
    console.log(`[boot] rate limits on ${store === "redis" ? "Redis (REDIS_URL)" : "Upstash"}`);
  } else {
    console.warn("[boot] the rate-limit store is not reachable yet: gameplay requests pass unlimited, e-mail auth answers 503 until it is");
  }
  if (!config.SEED_DEMO) return;
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
        `  (saved to ${config.DATA_DIR}/demo.json; they are not printed again)`,
      ]
    : [
        `  Game backend ready: ${demo.baseUrl}`,
        `  API docs:         ${demo.baseUrl}/docs`,
        `  Demo keys and the dashboard login: ${config.DATA_DIR}/demo.json`,
      ];
  console.log(["", ...lines, ""].join("\n"));
}
