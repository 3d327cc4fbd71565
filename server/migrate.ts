import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type pg from "pg";

/**
 * Applies prisma/migrations/<name>/migration.sql in name order, keeping Prisma's own
 * `_prisma_migrations` bookkeeping (SHA-256 checksum of the file), so `prisma migrate deploy`
 * agrees with what ran here wherever the schema engine exists.
 * Prisma's advisory lock key is used, so two instances (or this and Prisma) never race. The lock
 * is transaction-scoped and taken again by every transaction that reads or writes the
 * bookkeeping, so the runner also works through a pooler in transaction mode (PgBouncer), where
 * consecutive statements outside one transaction may run on different server connections and a
 * session-level lock could be left held on one of them. (Prisma's session-level lock and this
 * transaction-level one share the key space, so they still exclude each other.)
 */
const PRISMA_ADVISORY_LOCK = 72707369;

const BOOKKEEPING = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export type Migration = { name: string; sql: string; checksum: string };

export const MIGRATIONS_DIR = path.join(/*turbopackIgnore: true*/ process.cwd(), "prisma", "migrations");

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

type AppliedRow = { migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null };

/** Returns the names of the migrations it applied. */
export async function migrate(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await readMigrations(dir);
  const client = await pool.connect();
  try {
    const applied = await locked(client, async () => {
      await client.query(BOOKKEEPING);
      return appliedMigrations(client);
    });
    const ran: string[] = [];
    for (const migration of migrations) {
      if (isDone(migration, applied.get(migration.name))) continue;
      // Another instance may have applied it meanwhile: decided again under the lock.
      const didRun = await locked(client, async () => {
        if (isDone(migration, (await appliedMigrations(client)).get(migration.name))) return false;
        await applyOne(client, migration);
        return true;
      });
      if (didRun) ran.push(migration.name);
    }
    return ran;
  } finally {
    client.release();
  }
}

/**
 * The database against this build's migrations, read without changing anything (no bookkeeping
 * table is created, no lock is taken: a migration still running elsewhere is invisible until it
 * commits, so it reads as pending). `unknown`: applied there, absent here — a newer version
 * migrated the database (its expand step) while this one still runs.
 */
export type MigrationStatus = { pending: string[]; failed: string[]; changed: string[]; unknown: string[] };

export async function migrationStatus(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<MigrationStatus> {
  const migrations = await readMigrations(dir);
  const { rows } = await pool.query<{ exists: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS exists`);
  const applied = rows[0]?.exists
    ? (
        await pool.query<AppliedRow>(
          `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
        )
      ).rows
    : [];
  const byName = new Map(applied.map((r) => [r.migration_name, r]));
  const known = new Set(migrations.map((m) => m.name));
  const status: MigrationStatus = { pending: [], failed: [], changed: [], unknown: [] };
  for (const migration of migrations) {
    const row = byName.get(migration.name);
    if (!row) status.pending.push(migration.name);
    else if (!row.finished_at) status.failed.push(migration.name);
    else if (row.checksum !== migration.checksum) status.changed.push(migration.name);
  }
  status.unknown = [...new Set(applied.map((r) => r.migration_name).filter((name) => !known.has(name)))].sort();
  return status;
}

/** Whether the migration already ran (false: it must run now); throws when its state forbids starting. */
function isDone(migration: Migration, row: AppliedRow | undefined): boolean {
  if (!row) return false;
  if (!row.finished_at) throw new Error(`Migration ${migration.name} failed earlier; resolve it before starting again.`);
  if (row.checksum !== migration.checksum) {
    throw new Error(`Migration ${migration.name} was changed after it was applied (checksum mismatch).`);
  }
  return true;
}

async function appliedMigrations(client: pg.PoolClient): Promise<Map<string, AppliedRow>> {
  const { rows } = await client.query<AppliedRow>(
    `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
  );
  return new Map(rows.map((r) => [r.migration_name, r]));
}

/**
 * Runs `work` in one transaction holding the migration lock. Postgres DDL is transactional: a
 * failing migration leaves no trace and no bookkeeping row.
 */
async function locked<T>(client: pg.PoolClient, work: () => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    await holdMigrationLock(client);
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/**
 * Takes the migration lock for the rest of `client`'s open transaction: work that must happen
 * once per database (the demo seed) runs under it, so two instances starting together take turns.
 */
export async function holdMigrationLock(client: pg.PoolClient): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock($1)", [PRISMA_ADVISORY_LOCK]);
}

async function applyOne(client: pg.PoolClient, migration: Migration): Promise<void> {
  try {
    await client.query(migration.sql);
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), now(), 1)`,
      [randomUUID(), migration.checksum, migration.name],
    );
  } catch (error) {
    throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
  }
}
