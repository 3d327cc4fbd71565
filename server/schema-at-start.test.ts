import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDatabase } from "../e2e/support/global-setup";
import { MIGRATIONS_DIR, migrate, migrationStatus, readMigrations } from "./migrate";
import { prepareSchema, SchemaNotReadyError } from "./schema-at-start";
import { schemaVerdict } from "./schema-verdict.mjs";

let db: Awaited<ReturnType<typeof createDatabase>>;
let pool: pg.Pool;
const scratchDirs: string[] = [];
const quiet = { info: () => {} };

/** A copy of this build's migrations with `edit` applied: an older build's, a newer one's, a changed file. */
function migrationsDir(edit: (dir: string) => void): string {
  const dir = mkdtempSync(path.join(tmpdir(), "gb-schema-"));
  scratchDirs.push(dir);
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  edit(dir);
  return dir;
}

const verdict = async (dir = MIGRATIONS_DIR) => schemaVerdict(await migrationStatus(pool, dir));

beforeEach(async () => {
  db = await createDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
});
afterEach(async () => {
  await pool.end();
  await db.drop();
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("MIGRATIONS=check: the verdict on the database's migrations", () => {
  it("refuses an empty database, naming the first and last pending migration and the migrate command", async () => {
    const all = (await readMigrations()).map((m) => m.name);
    expect(await verdict()).toEqual({
      refuse:
        `MIGRATIONS=check: the database schema is not this version's (not applied: ${all.length} migrations, ${all[0]} … ${all.at(-1)}): ` +
        "run this version's migrate first (npm run migrate; the image: docker run <image> migrate)",
    });
  });

  it("refuses a database an older version migrated, naming each migration it lacks", async () => {
    const all = (await readMigrations()).map((m) => m.name);
    const lacking = all.slice(-2);
    await migrate(
      pool,
      migrationsDir((dir) => {
        for (const name of lacking) rmSync(path.join(dir, name), { recursive: true });
      }),
    );
    expect(await verdict()).toEqual({
      refuse: expect.stringContaining(`(not applied: ${lacking.join(", ")}): run this version's migrate first`),
    });
  });

  it("refuses a migration that was applied from a different file", async () => {
    await migrate(pool);
    const first = (await readMigrations())[0];
    if (!first) throw new Error("no migrations");
    const edited = migrationsDir((dir) => writeFileSync(path.join(dir, first.name, "migration.sql"), `${first.sql}\n-- edited\n`));
    expect(await verdict(edited)).toEqual({
      refuse: expect.stringContaining(
        `(applied from a different file (checksum mismatch): ${first.name}): resolve them in the database first`,
      ),
    });
  });

  it("refuses a migration recorded as failed (started, never finished)", async () => {
    await migrate(pool);
    const last = (await readMigrations()).at(-1)?.name ?? "";
    await pool.query(`UPDATE "_prisma_migrations" SET finished_at = NULL WHERE migration_name = $1`, [last]);
    expect(await verdict()).toEqual({ refuse: expect.stringContaining(`(failed and not resolved: ${last})`) });
  });

  it("accepts a database this version migrated", async () => {
    await migrate(pool);
    expect(await verdict()).toEqual({ ok: "MIGRATIONS=check: every migration of this version is applied" });
  });

  it("accepts, with a warning naming them, migrations a newer version applied", async () => {
    await migrate(
      pool,
      migrationsDir((dir) => {
        mkdirSync(path.join(dir, "99990101000000_newer_column"));
        writeFileSync(path.join(dir, "99990101000000_newer_column", "migration.sql"), `ALTER TABLE "projects" ADD COLUMN "newer" text;`);
      }),
    );
    expect(await verdict()).toEqual({
      warn: expect.stringContaining(
        "the database has migrations this version does not know (99990101000000_newer_column): a newer version migrated it",
      ),
    });
  });
});

describe("the schema at an app process's start", () => {
  it("MIGRATIONS=check applies nothing and throws the refusal on a database lacking migrations", async () => {
    const refused = prepareSchema({ mode: "check", pool, log: quiet, first: true });
    await expect(refused).rejects.toBeInstanceOf(SchemaNotReadyError);
    await expect(refused).rejects.toThrow(/^MIGRATIONS=check: the database schema is not this version's/);
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`);
    expect(rows[0].n).toBe(0);
  });

  it("MIGRATIONS=apply (the default) applies the pending migrations and says which", async () => {
    const messages: string[] = [];
    await prepareSchema({ mode: "apply", pool, log: { info: (_o, m) => messages.push(m) }, first: true });
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "_prisma_migrations" WHERE finished_at IS NOT NULL`);
    expect(rows[0].n).toBe((await readMigrations()).length);
    expect(messages).toEqual([expect.stringMatching(/^database migrated \(applied 20\d+_init, /)]);
  });
});
