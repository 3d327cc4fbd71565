import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { env } from "./env";
import { Prisma, PrismaClient } from "./generated/prisma/client";
import { logger } from "./log";
import { watchPool } from "./metrics";

type Db = { pool: pg.Pool; prisma: PrismaClient };

type TransactionState = { client: pg.PoolClient; savepoints: number; after?: Array<() => void> };
type TransactionStore = AsyncLocalStorage<TransactionState>;

// One pool per process, kept on globalThis so dev hot reload and separately bundled
// entry points (instrumentation, route handlers) share it.
const holder = globalThis as typeof globalThis & { __gameBackendDb?: Db; __gameBackendTransaction?: TransactionStore };

/**
 * The connection of the `transaction()` the current async call chain runs in, if any. On
 * globalThis like the pool: the production build bundles this module into several chunks, and
 * the shared pool (created by whichever copy ran first, usually instrumentation's) must see the
 * transaction a route's copy opened — with one store per copy, queries inside a route's
 * transaction took other connections (outside it, and starving the pool under load).
 */
holder.__gameBackendTransaction ??= new AsyncLocalStorage();
const currentTransaction: TransactionStore = holder.__gameBackendTransaction;

/**
 * A pool that, inside `transaction()`, runs every query on that transaction's connection — so a
 * Prisma call (whose adapter queries this pool) and a raw query made anywhere in the call chain
 * join the transaction instead of taking another connection. A transaction Prisma opens inside
 * (nested writes, `$transaction`) and a nested `transaction()` become savepoints of it.
 */
class TransactionAwarePool extends pg.Pool {
  // biome-ignore lint/suspicious/noExplicitAny: pg's overloads (text, config, callback forms) pass through unchanged
  override query(...args: any[]): any {
    const tx = currentTransaction.getStore();
    // biome-ignore lint/suspicious/noExplicitAny: as above
    return tx ? (tx.client.query as (...a: any[]) => any)(...args) : (super.query as (...a: any[]) => any)(...args);
  }

  // biome-ignore lint/suspicious/noExplicitAny: as above
  override connect(...args: any[]): any {
    const tx = currentTransaction.getStore();
    if (!tx || args.length > 0) return (super.connect as (...a: unknown[]) => unknown)(...args);
    return Promise.resolve(savepointClient(tx));
  }
}

/** The transaction's connection seen as a fresh pooled client whose BEGIN/COMMIT/ROLLBACK are a savepoint's. */
function savepointClient(tx: { client: pg.PoolClient; savepoints: number }): pg.PoolClient {
  tx.savepoints += 1;
  const name = `nested_${tx.savepoints}`;
  const translate: Record<string, string> = {
    BEGIN: `SAVEPOINT ${name}`,
    COMMIT: `RELEASE SAVEPOINT ${name}`,
    ROLLBACK: `ROLLBACK TO SAVEPOINT ${name}`,
  };
  const statementOf = (q: unknown) => (typeof q === "string" ? q : ((q as { text?: string } | null)?.text ?? "")).trim().toUpperCase();
  return new Proxy(tx.client, {
    get(target, property, receiver) {
      if (property === "release") return () => undefined;
      if (property === "on" || property === "removeListener") return () => receiver;
      if (property === "query") {
        return (q: unknown, ...rest: unknown[]) => {
          const statement = statementOf(q);
          const replacement = Object.hasOwn(translate, statement) ? translate[statement] : undefined;
          return (target.query as (...a: unknown[]) => unknown)(replacement ?? q, ...rest);
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

/**
 * Whether queries go out as unnamed statements (parsed again on each call) instead of named
 * prepared ones. Needed behind a pooler in transaction mode: pg remembers a named statement as
 * prepared on its own connection, but PgBouncer (before 1.21's max_prepared_statements) hands
 * each transaction a possibly different server connection — where the statement is missing
 * ("prepared statement does not exist", 26000) or was prepared by another client ("already
 * exists", 42P05). Set by `?pgbouncer=true` on DATABASE_URL (Prisma's flag for the same thing);
 * otherwise the first such error switches this process over (that request fails, later ones
 * do not) with a warning to set the flag. Neither error can happen on a direct connection.
 */
const statements = { unnamed: false };
const POOLER_ERRORS = new Set(["26000", "42P05"]);

class PoolerAwareClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: pg's overloads (text, config, callback forms) pass through unchanged
  override query(...args: any[]): any {
    const [first, ...rest] = args;
    const named = typeof first === "object" && first !== null && typeof first.submit !== "function" && Boolean(first.name);
    if (!named) return (super.query as (...a: unknown[]) => unknown)(...args);
    if (statements.unnamed) {
      const { name: _unnamed, ...config } = first;
      return (super.query as (...a: unknown[]) => unknown)(config, ...rest);
    }
    // pg-pool's own query() passes a callback; Prisma's adapter and transactions use the promise.
    const callback = rest.at(-1);
    if (typeof callback === "function") {
      const watched = (error: unknown, result: unknown) => {
        noticePoolerError(error);
        callback(error, result);
      };
      return (super.query as (...a: unknown[]) => unknown)(first, ...rest.slice(0, -1), watched);
    }
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (!(result instanceof Promise)) return result;
    return result.catch((error: unknown) => {
      noticePoolerError(error);
      throw error;
    });
  }
}

function noticePoolerError(error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !POOLER_ERRORS.has(code) || statements.unnamed) return;
  statements.unnamed = true;
  logger("db").warn(
    "named prepared statements fail on this connection: a pooler in transaction mode (PgBouncer)? Switched to unnamed statements; add ?pgbouncer=true to DATABASE_URL to start that way.",
  );
}

/**
 * `?pgbouncer=true` on DATABASE_URL says the database is reached through a pooler in
 * transaction mode: no named prepared statements. Every statement the app sends is otherwise
 * pooler-safe: no SET, LISTEN, temporary table, cursor or session-level advisory lock; locks are
 * transaction-scoped (pg_advisory_xact_lock).
 */
export function behindTransactionPooler(databaseUrl: string): boolean {
  try {
    return new URL(databaseUrl).searchParams.get("pgbouncer") === "true";
  } catch {
    return false;
  }
}

function create(): Db {
  const { DATABASE_URL, DATABASE_POOL_SIZE } = env();
  statements.unnamed = behindTransactionPooler(DATABASE_URL);
  const pool = new TransactionAwarePool({
    connectionString: DATABASE_URL,
    Client: PoolerAwareClient,
    max: DATABASE_POOL_SIZE,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    application_name: "game-backend",
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on("error", (error) => logger("db").error({ reason: error.message }, "idle client error"));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  watchPool(() => holder.__gameBackendDb?.pool ?? null);
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
 * The one way to run a transaction: `work` runs on one pooled connection between BEGIN and
 * COMMIT, and any throw rolls back. Raw SQL goes through the `client` it receives; Prisma calls
 * and `pool()` queries anywhere inside `work`'s call chain join the same transaction (see
 * TransactionAwarePool), so a locking SQL statement, a Prisma write and an audit row commit or
 * roll back together. Called inside another transaction it runs as a savepoint of it.
 */
export async function transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool().connect();
  const outer = currentTransaction.getStore();
  const state: TransactionState = outer ?? { client, savepoints: 0 };
  try {
    await client.query("BEGIN");
    const result = await currentTransaction.run(state, () => work(client));
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
    if (!outer) for (const later of state.after ?? []) outsideTransaction(later);
  }
}

/**
 * Runs `work` (fire and forget) once the outermost transaction the caller is in has ended,
 * committed or not, outside it; at once outside a transaction. For work that must read what the
 * transaction wrote from another connection (a rank-index rebuild).
 */
export function afterTransaction(work: () => void): void {
  const tx = currentTransaction.getStore();
  if (!tx) {
    work();
    return;
  }
  tx.after ??= [];
  tx.after.push(work);
}

/** True inside a `transaction()` (its work has not committed yet). */
export function inTransaction(): boolean {
  return currentTransaction.getStore() !== undefined;
}

/**
 * Runs `work` detached from any open `transaction()` (its queries use the pool): for background
 * work started inside a transaction that must not run on — or outlive — its connection.
 */
export function outsideTransaction<T>(work: () => T): T {
  return currentTransaction.exit(work);
}

/** A unique constraint refused the write (Prisma's P2002): the caller maps it to a domain conflict. */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}

export { Prisma } from "./generated/prisma/client";
