#!/usr/bin/env node
// `npm run migrate` (the image's `migrate` command): applies this version's pending migrations to
// DATABASE_URL and exits, 0 when the schema is this version's, 1 otherwise. For deployments that
// migrate as one step before the new version's instances start (with MIGRATIONS=check they refuse
// a schema that is not theirs); `npm start` without it migrates at start. The runner is the one
// the server runs (server/migrate.ts, loaded with Node's type stripping), with the same advisory
// lock, so a migrate beside starting instances or a second migrate waits its turn.
import "./node-version.mjs";
import path from "node:path";
import pg from "pg";
import { parseEnv, ZEnv } from "../env-schema.mjs";
import { logger } from "../log.mjs";

// Through a variable: the type checker then takes the runner's types from the cast below, not
// from a .ts path it would refuse.
const runner = "../migrate.ts";
const { migrate, readMigrations } = /** @type {typeof import("../migrate")} */ (await import(runner));

const log = logger("migrate");
const dir = path.join(import.meta.dirname, "..", "..", "prisma", "migrations");

/** @param {string} message */
function fail(message) {
  log.error(message);
  process.exitCode = 1;
}

async function main() {
  if (!process.env.DATABASE_URL) {
    return fail("DATABASE_URL is not set: migrate applies the migrations to your database (npm start's embedded one migrates itself)");
  }
  /** @type {string} */
  let url;
  try {
    url = parseEnv(ZEnv.pick({ DATABASE_URL: true }), process.env).DATABASE_URL;
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  // A database that does not answer fails the step (the orchestrator retries it) instead of hanging it.
  const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 10_000 });
  const started = performance.now();
  try {
    const applied = await migrate(pool, dir);
    const total = (await readMigrations(dir)).length;
    const ms = Math.round(performance.now() - started);
    log.info(
      { applied, migrations: total, ms },
      applied.length > 0
        ? `applied ${applied.length} migration${applied.length === 1 ? "" : "s"} in ${ms} ms: ${applied.join(", ")}`
        : `up to date: all ${total} migrations were already applied`,
    );
  } catch (error) {
    fail(`migrate failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await pool.end().catch(() => {});
  }
}

await main();
