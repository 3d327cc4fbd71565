import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { MIGRATIONS_DIR, migrate } from "@/server/migrate";
import { createDatabase, freePort, type StartedApp, startApp } from "../support/global-setup";
import { logLines, root } from "../support/launch.mjs";

/**
 * The launcher with MIGRATIONS=check (the container image's setting): it never migrates, refuses a
 * database this version's migrate has not run on, and starts beside a newer version's migrations.
 */
describe("npm start with MIGRATIONS=check", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function scratch() {
    const db = await createDatabase();
    const dataDir = mkdtempSync(path.join(tmpdir(), "gb-check-"));
    cleanups.push(async () => {
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    return {
      db,
      env: { DATABASE_URL: db.url, DATA_DIR: dataDir, JWT_SECRET: inject("jwtSecret"), MIGRATIONS: "check", WEB_CONCURRENCY: "1" },
    };
  }

  it("on a database without this version's migrations exits 1 with one line naming them and the migrate command, having applied nothing", async () => {
    const { db, env } = await scratch();
    const child = spawn(process.execPath, ["server/cli/start.mjs"], {
      cwd: root,
      env: { ...process.env, ...env, PORT: String(await freePort()), HOST: "127.0.0.1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => {
      output += d;
    });
    child.stderr.on("data", (d) => {
      output += d;
    });
    const code = await new Promise((resolve) => child.on("exit", resolve));
    expect(code).toBe(1);
    const errors = logLines(output).filter((l) => l.level === "error");
    expect(errors.map((l) => l.msg)).toEqual([
      expect.stringMatching(/^MIGRATIONS=check: the database schema is not this version's \(not applied: \d+ migrations, 20\d+_init … /),
    ]);
    expect(errors[0]?.msg).toContain("run this version's migrate first (npm run migrate; the image: docker run <image> migrate)");
    // The refusal comes before Next starts: no stack traces, no second account of it.
    expect(output).not.toMatch(/^\s+at /m);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`);
    await client.end();
    expect(rows[0].n).toBe(0);
  });

  it("on a database a newer version migrated starts, warns which migrations it does not know, and is ready", async () => {
    const { db, env } = await scratch();
    const newer = mkdtempSync(path.join(tmpdir(), "gb-newer-"));
    cleanups.push(async () => rmSync(newer, { recursive: true, force: true }));
    cpSync(MIGRATIONS_DIR, newer, { recursive: true });
    mkdirSync(path.join(newer, "99990101000000_newer_table"));
    writeFileSync(path.join(newer, "99990101000000_newer_table", "migration.sql"), `CREATE TABLE "newer_feature" (id int);`);
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    await migrate(pool, newer);
    await pool.end();

    const app: StartedApp = await startApp(env);
    cleanups.push(async () => void (await app.stop()));
    const warning = logLines(app.output()).find((l) => l.level === "warn" && String(l.msg).startsWith("MIGRATIONS=check"));
    expect(warning?.msg).toContain("the database has migrations this version does not know (99990101000000_newer_table)");
    const ready = await fetch(`${app.baseUrl}/api/health/ready`);
    expect(ready.status).toBe(200);
  });
});
