import { spawn } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../../e2e/support/global-setup";
import { readMigrations } from "../migrate";

const root = path.resolve(import.meta.dirname, "../..");

/** `npm run migrate` as a deployment runs it: its own process, from the checkout, with this environment. */
function runMigrate(env: NodeJS.ProcessEnv): Promise<{ code: number | null; lines: { level: string; msg: string }[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["server/cli/migrate.mjs"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      out += d;
    });
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({
        code,
        lines: out
          .split("\n")
          .filter((l) => l.startsWith("{"))
          .map((l) => JSON.parse(l)),
      }),
    );
  });
}

let db: Awaited<ReturnType<typeof createDatabase>>;
const { DATABASE_URL: _unused, ...baseEnv } = process.env;

beforeAll(async () => {
  db = await createDatabase();
});
afterAll(async () => {
  await db.drop();
});

async function bookkeeping(): Promise<{ migration_name: string; started_at: Date }[]> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query(`SELECT migration_name, started_at FROM "_prisma_migrations" ORDER BY migration_name`)).rows;
  } finally {
    await client.end();
  }
}

describe("npm run migrate", () => {
  it("applies every migration to a fresh database, says which, and exits 0", async () => {
    const names = (await readMigrations()).map((m) => m.name);
    const run = await runMigrate({ ...baseEnv, DATABASE_URL: db.url });
    expect(run.code).toBe(0);
    expect(run.lines.at(-1)?.msg).toMatch(new RegExp(`^applied ${names.length} migrations in \\d+ ms: ${names.join(", ")}$`));
    expect((await bookkeeping()).map((r) => r.migration_name)).toEqual(names);
  });

  it("run again, applies nothing, says the schema is up to date, and exits 0", async () => {
    const before = await bookkeeping();
    const run = await runMigrate({ ...baseEnv, DATABASE_URL: db.url });
    expect(run.code).toBe(0);
    expect(run.lines.at(-1)?.msg).toBe(`up to date: all ${before.length} migrations were already applied`);
    expect(await bookkeeping()).toEqual(before);
  });

  it("without DATABASE_URL exits 1 with one line saying so", async () => {
    const run = await runMigrate(baseEnv);
    expect(run.code).toBe(1);
    expect(run.lines).toEqual([expect.objectContaining({ level: "error", msg: expect.stringMatching(/^DATABASE_URL is not set/) })]);
  });

  it("a database that refuses the connection exits 1 naming the error", async () => {
    const run = await runMigrate({ ...baseEnv, DATABASE_URL: "postgresql://postgres@127.0.0.1:1/none" });
    expect(run.code).toBe(1);
    expect(run.lines.at(-1)).toMatchObject({ level: "error", msg: expect.stringMatching(/^migrate failed: .*ECONNREFUSED/) });
  });
});
