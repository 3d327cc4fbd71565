import "server-only";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { env } from "./env";
import { Prisma, PrismaClient } from "./generated/prisma/client";

type Db = { pool: pg.Pool; prisma: PrismaClient };

// One pool per process, kept on globalThis so dev hot reload and separately bundled
// entry points (instrumentation, route handlers) share it.
const holder = globalThis as typeof globalThis & { __gameBackendDb?: Db };

function create(): Db {
  const { DATABASE_URL, DATABASE_POOL_SIZE } = env();
  const pool = new pg.Pool({
    connectionString: DATABASE_URL,
    max: DATABASE_POOL_SIZE,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    application_name: "game-backend",
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on("error", (error) => console.error("[db] idle client error:", error.message));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return { pool, prisma };
}

function db(): Db {
  holder.__gameBackendDb ??= create();
  return holder.__gameBackendDb;
}

/** The Prisma client. Every query a service makes is scoped by projectId. */
export function prisma(): PrismaClient {
  return db().prisma;
}

/** The raw pg pool, for the migration runner and hot-path statements Prisma cannot express. */
export function pool(): pg.Pool {
  return db().pool;
}

export type { PrismaClient } from "./generated/prisma/client";
/**
 * Runs `work` in one transaction on one pooled connection (for locking transactions written
 * in SQL). Any throw rolls back.
 */
export async function transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool().connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** A unique constraint refused the write (Prisma's P2002): the caller maps it to a domain conflict. */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}

export { Prisma } from "./generated/prisma/client";
