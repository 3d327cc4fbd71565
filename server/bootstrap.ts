import { pool } from "./db";
import { seedDemo } from "./demo-seed";
import { env } from "./env";
import { startInvalidations } from "./invalidate";
import { logger } from "./log";
import { registerEmailDelivery } from "./mailer";
import { registerOperatorEmail } from "./mailer/operator";
import { registerHousekeeping } from "./maintenance";
import { startWorkers } from "./queue";
import { limiterKind, limiterReady } from "./ratelimit";
import { prepareSchema } from "./schema-at-start";
import { registerAccountEmailJobs } from "./services/auth/account-email";
import { registerPeriodCloses } from "./services/leaderboards/close-job";
import { registerBanExpiry } from "./services/players/ban-expiry";
import { startScheduler } from "./services/schedules/scheduler";
import { registerStoreRefundPolls } from "./services/store/refund-poll-job";
import { startDispatcher } from "./services/webhooks/delivery";
import { storeTrustWarnings } from "./stores/trust-warnings";

/**
 * Runs once per server process before the first request (instrumentation.ts). With the
 * launcher's workers, worker 0 runs it first and alone (the launcher starts the others once it
 * is healthy): it applies the migrations (or, with MIGRATIONS=check, checks them:
 * server/schema-at-start.ts) and seeds the demo. The others find the database migrated. Scheduled jobs (housekeeping, period closes) run on the queue, once per cluster.
 */
export async function bootstrap(): Promise<void> {
  const config = env();
  const log = logger("boot");
  const worker = config.GAME_BACKEND_WORKER_INDEX;
  const first = worker === undefined || worker === 0;
  await prepareSchema({ mode: config.MIGRATIONS, pool: pool(), log, first });
  // A test Apple root or a fake store's address: loud, once, so no production server trusts them unaware.
  if (first) for (const warning of storeTrustWarnings(config)) log.warn(warning);
  // The job queue's workers, in every process: each job runs once wherever it is taken.
  registerEmailDelivery();
  registerOperatorEmail();
  registerAccountEmailJobs();
  registerHousekeeping();
  registerPeriodCloses();
  registerBanExpiry();
  registerStoreRefundPolls();
  await startWorkers();
  // Webhook deliveries: every process sends them (server/services/webhooks/delivery.ts).
  startDispatcher();
  // Scheduled changes (sales): every process looks; each step runs once (services/schedules/scheduler.ts).
  startScheduler();
  const store = limiterKind();
  if (store === "memory") {
    if (first) {
      log.warn(
        worker === undefined
          ? "rate limits are kept in-process: correct for a single instance only (set REDIS_URL or UPSTASH_REDIS_REST_* for more)"
          : "rate limits are kept in the launcher's primary process, shared by its workers: correct for a single instance only (set REDIS_URL or UPSTASH_REDIS_REST_* for more)",
      );
    }
  } else if (await limiterReady()) {
    log.info(`rate limits on ${store === "redis" ? "Redis (REDIS_URL)" : "Upstash"}`);
  } else {
    log.warn("the rate-limit store is not reachable yet: gameplay requests pass unlimited, e-mail auth answers 503 until it is");
  }
  if (config.REDIS_URL) {
    if (await startInvalidations(5_000)) log.info("cache invalidations shared with the other instances over Redis (REDIS_URL)");
    else log.warn("cache invalidations: Redis is not reachable yet; sessions are cached for 2 s at most until it is");
  }
  if (!config.SEED_DEMO || !first) return;
  const seeded = await seedDemo();
  if (seeded.state === "elsewhere") {
    // This instance cannot know the password (only its hash is stored) and never resets it.
    const base = config.PUBLIC_URL ?? `http://localhost:${config.PORT}`;
    const lines = [
      `  Game backend ready: ${base}`,
      `  Demo already seeded in this database (operator ${seeded.operatorEmail}); its keys and`,
      "  password are in demo.json in the data directory of the instance that seeded it",
      `  (not in ${config.DATA_DIR}); this instance did not seed again or change that password.`,
    ];
    process.stdout.write(`${["", ...lines, ""].join("\n")}\n`);
    log.info({ operatorEmail: seeded.operatorEmail }, "demo already seeded in this database by another instance; not seeded again");
    return;
  }
  const { demo } = seeded;
  const created = seeded.state === "created";
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
  // The banner is for the person who ran `npm start`, not a log line: plain text, once. The
  // structured line beside it never carries the keys or the password.
  process.stdout.write(`${["", ...lines, ""].join("\n")}\n`);
  log.info(
    { baseUrl: demo.baseUrl, created, demoFile: `${config.DATA_DIR}/demo.json` },
    created ? "demo project seeded" : "demo project present",
  );
}
