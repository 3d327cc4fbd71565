import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ADMIN_DATABASE_URL } from "../e2e/support/global-setup";

type DbModule = typeof import("./db");
const holder = globalThis as { __gameBackendDb?: { pool: { end: () => Promise<void> } } };

// Every test here reaches the machine's Postgres, whichever runs first or alone (`-t`).
beforeAll(() => {
  process.env.DATABASE_URL = ADMIN_DATABASE_URL;
});

afterAll(async () => {
  await holder.__gameBackendDb?.pool.end();
  delete holder.__gameBackendDb;
});

// `next build` bundles server/db.ts into several chunks (instrumentation, each route group): the
// pool is created by one copy and shared through globalThis, and a route's `transaction()` runs
// in another copy. Queries made through the shared pool inside that transaction must run on the
// transaction's connection (else they escape it, and a busy pool starves).
it("a transaction opened by one module copy is joined by queries through the pool another copy created", async () => {
  vi.resetModules();
  const first: DbModule = await import("./db");
  first.pool();
  vi.resetModules();
  const second: DbModule = await import("./db");
  expect(second.transaction).not.toBe(first.transaction);
  await second.transaction(async (client) => {
    const own = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    const viaPool = await first.pool().query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    expect(viaPool.rows[0]?.pid).toBe(own.rows[0]?.pid);
  });
});

// A Prisma call starts on its first then(): returned from `work` as it is, it must still start
// inside the transaction (it ran on another connection, outside it, before transaction() awaited
// work inside the store).
it("a Prisma call `work` returns without awaiting runs inside the transaction", async () => {
  const db: DbModule = await import("./db");
  const sql = "SELECT now() <> statement_timestamp() AS in_transaction";
  const rows = await db.transaction(() => db.prisma().$queryRawUnsafe<Array<{ in_transaction: boolean }>>(sql));
  expect(rows).toEqual([{ in_transaction: true }]);
  await expect(db.prisma().$queryRawUnsafe(sql)).resolves.toEqual([{ in_transaction: false }]);
});

it("afterTransaction work runs once the outermost transaction has committed, outside it", async () => {
  const db: DbModule = await import("./db");
  const seen: string[] = [];
  await db.transaction(async () => {
    await db.transaction(async () => {
      db.afterTransaction(() => seen.push("after"));
    });
    seen.push("inner committed");
  });
  expect(seen).toEqual(["inner committed", "after"]);
  db.afterTransaction(() => seen.push("outside"));
  expect(seen).toEqual(["inner committed", "after", "outside"]);
});

// The rule the pool enforces: one statement at a time on a transaction's connection. Under
// vitest a second statement sent while one runs is refused with the rule and the statement.
describe("two queries at once in one transaction", { timeout: 30_000 }, () => {
  const RULE = /two queries at once in one transaction: await each before the next/;
  const slow = "SELECT pg_sleep(0.05)::text AS slept";
  // Beside a Prisma call, which takes a while to reach the connection (more on a busy machine).
  const slower = "SELECT pg_sleep(0.5)::text AS slept";

  it("refuses a second pool() query while one runs, naming the rule and the statement's first words", async () => {
    const db: DbModule = await import("./db");
    const attempt = db.transaction(() => Promise.all([db.pool().query(slow), db.pool().query("SELECT 2 AS second_query")]));
    await expect(attempt).rejects.toThrow(RULE);
    await expect(attempt).rejects.toThrow(/"SELECT 2 AS second_query" sent while "SELECT pg_sleep\(0\.05\)::text AS slept" runs/);
  });

  it("refuses it on the transaction's own client, on a nested transaction's, and for a nested transaction's SAVEPOINT", async () => {
    const db: DbModule = await import("./db");
    await expect(db.transaction((client) => Promise.all([client.query(slow), client.query("SELECT 2")]))).rejects.toThrow(RULE);
    await expect(
      db.transaction(() => db.transaction((inner) => Promise.all([inner.query(slow), db.pool().query("SELECT 2")]))),
    ).rejects.toThrow(RULE);
    await expect(
      db.transaction(() => Promise.all([db.pool().query(slow), db.transaction((inner) => inner.query("SELECT 2"))])),
    ).rejects.toThrow(/"SAVEPOINT nested_1" sent while/);
  });

  it("refuses two Prisma calls at once, and a Prisma call beside a raw query", async () => {
    const db: DbModule = await import("./db");
    await expect(
      db.transaction(() => Promise.all([db.prisma().$queryRawUnsafe(slower), db.prisma().$queryRawUnsafe("SELECT 2")])),
    ).rejects.toThrow(RULE);
    await expect(db.transaction(() => Promise.all([db.pool().query(slower), db.prisma().$queryRawUnsafe("SELECT 2")]))).rejects.toThrow(
      RULE,
    );
  });

  it("refuses COMMIT while a statement sent and not awaited still runs", async () => {
    const db: DbModule = await import("./db");
    await expect(
      db.transaction(async () => {
        void db
          .pool()
          .query(slow)
          .catch(() => undefined);
      }),
    ).rejects.toThrow(/"COMMIT" sent while "SELECT pg_sleep/);
  });

  it("lets sequential statements run, in a transaction and its savepoints, and concurrent ones outside any transaction", async () => {
    const db: DbModule = await import("./db");
    const pids = await db.transaction(async (client) => {
      const seen: number[] = [];
      for (let i = 0; i < 3; i++) {
        seen.push((await db.pool().query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid as number);
        seen.push((await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid as number);
        await db.prisma().$queryRawUnsafe("SELECT 1");
        await db.transaction((inner) => inner.query("SELECT 1"));
      }
      return new Set(seen);
    });
    expect(pids.size).toBe(1);
    const outside = await Promise.all([db.pool().query(slow), db.pool().query(slow), db.prisma().$queryRawUnsafe(slow)]);
    expect(outside).toHaveLength(3);
    // A refused statement leaves the connection's bookkeeping clean: the next transaction runs.
    await db.transaction(() => Promise.all([db.pool().query(slow), db.pool().query("SELECT 2")])).catch(() => undefined);
    await expect(db.transaction(async () => (await db.pool().query("SELECT 3 AS n")).rows[0])).resolves.toEqual({ n: 3 });
  });

  it("in warn mode (production's default) lets the statement run and warns once per call site", async () => {
    const logs = globalThis as { __gameBackendLogger?: unknown };
    const saved = logs.__gameBackendLogger;
    const warnings: Array<{ fields: { site: string[]; sql: string }; message: string }> = [];
    logs.__gameBackendLogger = { child: () => ({ warn: (fields: never, message: string) => warnings.push({ fields, message }) }) };
    process.env.TRANSACTION_CONCURRENCY_CHECK = "warn";
    vi.resetModules();
    try {
      const db: DbModule = await import("./db");
      const twice = () => db.transaction(() => Promise.all([db.pool().query(slow), db.pool().query("SELECT 2 AS n")]));
      const [, second] = await twice();
      expect(second.rows).toEqual([{ n: 2 }]);
      await twice();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toMatch(RULE);
      expect(warnings[0]?.fields.sql).toBe("SELECT 2 AS n");
      expect(warnings[0]?.fields.site[0]).toMatch(/db\.test\.ts/);
      // Another call site: another warning.
      await db.transaction(() => Promise.all([db.pool().query(slow), db.pool().query("SELECT 3 AS n")]));
      // A Prisma call's site: the line awaiting it, here (handed to Promise.all) the transaction's.
      await db.prisma().$queryRawUnsafe("SELECT 1"); // this module copy's client, started
      await db.transaction(() => Promise.all([db.pool().query(slower), db.prisma().$queryRawUnsafe("SELECT 4 AS n")]));
      expect(warnings.map((w) => w.fields.sql)).toEqual(["SELECT 2 AS n", "SELECT 3 AS n", "SELECT 4 AS n"]);
      expect(warnings[2]?.fields.site[0]).toMatch(/db\.test\.ts/);
    } finally {
      delete process.env.TRANSACTION_CONCURRENCY_CHECK;
      logs.__gameBackendLogger = saved;
      vi.resetModules();
    }
  });
});
