import { afterAll, beforeAll, expect, it, vi } from "vitest";
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
