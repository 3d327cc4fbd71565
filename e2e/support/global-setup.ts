import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { makeApplePki } from "./apple-test-pki";
import { freePort, launchApp, type StartedApp } from "./launch.mjs";

export { freePort, type StartedApp };

/**
 * Starts the real product for the suite: a fresh database on the machine's Postgres, the app
 * through the same launcher `npm start` uses (production build, rebuilt only when sources
 * changed), and Redis when REDIS_URL is set.
 */
declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
    dataDir: string;
    redisUrl: string;
    jwtSecret: string;
    rateLimitWindowSeconds: number;
    definitionCacheTtlMs: number;
    sessionCacheTtlMs: number;
    /** The suite's stand-in for Apple's signing PKI (e2e/support/stores.ts reads it): the app trusts its root. */
    applePkiFile: string;
  }
}

export const ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export async function createDatabase(): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `gb_test_${Date.now()}_${randomBytes(3).toString("hex")}`;
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * Runs `node server/cli/start.mjs` in production mode with the given environment and waits until
 * it says ready. One process unless the test sets WEB_CONCURRENCY (e2e/api/cluster.test.ts): the
 * suite runs beside its app on two cores, and its files test behaviour, not the workers.
 */
export function startApp(env: Record<string, string | undefined>, timeoutMs = 600_000): Promise<StartedApp> {
  // A statement sent while another of its transaction runs fails the request (server/db.ts).
  return launchApp({ env: { NODE_ENV: "production", WEB_CONCURRENCY: "1", TRANSACTION_CONCURRENCY_CHECK: "throw", ...env }, timeoutMs });
}

export default async function setup(project: TestProject) {
  const database = await createDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), "gb-test-"));
  const jwtSecret = randomBytes(32).toString("base64url");
  const redisUrl = process.env.REDIS_URL ?? "";
  const rateLimitWindowSeconds = 60;
  // Definition changes made by the tests reach the app within this (2 s in production).
  const definitionCacheTtlMs = 200;
  // A ban or revocation made by the test process (another instance) reaches the app within this:
  // at once with REDIS_URL (published; the test process publishes too), else when the entry expires.
  const sessionCacheTtlMs = 250;
  // Apple's signed transactions verify offline: the app trusts this suite's own root instead of Apple's.
  const applePki = makeApplePki();
  const appleRoot = path.join(dataDir, "apple-test-root.der");
  const applePkiFile = path.join(dataDir, "apple-test-pki.json");
  writeFileSync(appleRoot, applePki.rootDer);
  writeFileSync(applePkiFile, JSON.stringify(applePki.material));
  const app = await startApp({
    STORE_APPLE_ROOT_CERTIFICATES: appleRoot,
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    JWT_SECRET: jwtSecret,
    REDIS_URL: redisUrl || undefined,
    RATE_LIMIT_WINDOW_SECONDS: String(rateLimitWindowSeconds),
    TRUST_PROXY: "true",
    // Exact budget counts in the tests need the store's answers, not fail-opens of a busy machine.
    RATE_LIMIT_STORE_TIMEOUT_MS: "1000",
    DEFINITION_CACHE_TTL_MS: String(definitionCacheTtlMs),
    SESSION_CACHE_TTL_SECONDS: String(sessionCacheTtlMs / 1000),
    // The health view's counts reach the database within this (5 s in production): tests poll, not sleep.
    USAGE_FLUSH_MS: "100",
    // Webhook receivers and the identity provider's key server in the tests listen on 127.0.0.1.
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    IDP_ALLOW_PRIVATE_NETWORKS: "true",
    // Every /api/v1 answer says what it asked of Postgres and Redis (X-Debug-Db, server/statement-counts.ts):
    // e2e/api/statement-budgets.test.ts holds the hot routes to their counts.
    STATEMENT_COUNTS: "1",
  });
  project.provide("baseUrl", app.baseUrl);
  project.provide("databaseUrl", database.url);
  project.provide("dataDir", dataDir);
  project.provide("redisUrl", redisUrl);
  project.provide("jwtSecret", jwtSecret);
  project.provide("rateLimitWindowSeconds", rateLimitWindowSeconds);
  project.provide("definitionCacheTtlMs", definitionCacheTtlMs);
  project.provide("sessionCacheTtlMs", sessionCacheTtlMs);
  project.provide("applePkiFile", applePkiFile);
  return async () => {
    await app.stop();
    if (process.env.KEEP_TEST_DB !== "1") await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
