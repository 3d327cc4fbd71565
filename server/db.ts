import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { env } from "./env";
import { Prisma, PrismaClient } from "./generated/prisma/client";
import { shared } from "./launcher-contract.mjs";
import { logger } from "./log";
import { watchPool } from "./metrics";
import { countingOn, noteQuery, uncounted } from "./statement-counts";

type Db = { pool: pg.Pool; prisma: PrismaClient };

/** The statements running on a transaction's connection: `count` of them, all issued by `owner`. */
type Running = { count: number; owner: object | null; sql: string };
type TransactionState = { client: pg.PoolClient; savepoints: number; after?: Array<() => void> };
type TransactionStore = AsyncLocalStorage<TransactionState>;

// One pool per process, kept on globalThis so dev hot reload and separately bundled
// entry points (instrumentation, route handlers) share it.
// The launcher closes the pool on stop (server/launcher-contract.mjs names it).
const holder = shared as typeof shared & {
  __gameBackendDb?: Db;
  __gameBackendTransaction?: TransactionStore;
  __gameBackendOperation?: AsyncLocalStorage<object>;
};

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
 * The Prisma call (one `prisma().x.y()`) the current async call chain is inside, when it runs in a
 * transaction: Prisma may send one call's queries at once (an include's relations are loaded
 * with Promise.all), which is Prisma's business; two calls at once, or a call beside a raw query,
 * is the caller's bug. On globalThis like the transaction store.
 */
holder.__gameBackendOperation ??= new AsyncLocalStorage();
const currentOperation: AsyncLocalStorage<object> = holder.__gameBackendOperation;

export const CONCURRENT_QUERY_RULE = "two queries at once in one transaction: await each before the next";

/** The first words of a statement, for messages. */
function firstWords(sql: string): string {
  const words = sql.replace(/\s+/g, " ").trim().split(" ").slice(0, 6).join(" ");
  return words.length > 80 ? `${words.slice(0, 80)}…` : words;
}

function statementText(query: unknown): string {
  return typeof query === "string" ? query : (((query as { text?: unknown } | null)?.text as string | undefined) ?? "");
}

const warnedSites = new Set<string>();
/** The file this module runs from (a chunk of the production build): its frames lead every stack below. */
const ownFile = /\(?([^()\s]+):\d+:\d+\)?$/.exec(new Error().stack?.split("\n")[1]?.trim() ?? "")?.[1];

/**
 * The rule every transaction's connection keeps: one statement at a time. A connection runs one
 * statement anyway — pg queues a second one, deprecated since pg 8.19 and refused by pg 9 — and
 * two statements sent at once in a transaction interleave with each other's savepoints and
 * errors (one failing aborts the other's transaction under it). Broken in tests (throws, see
 * TRANSACTION_CONCURRENCY_CHECK); with `warn` the statement goes ahead, as pg queues it, with
 * one warning per call site.
 */
function refuseConcurrent(sql: string, running: Running): Error | null {
  const message = `${CONCURRENT_QUERY_RULE} ("${firstWords(sql)}" sent while "${firstWords(running.sql)}" runs)`;
  if (env().TRANSACTION_CONCURRENCY_CHECK === "throw") return new Error(message);
  // The call site: the stack without pg's, Prisma's and this module's frames (async frames
  // included: a Prisma call's stack reaches its caller only through them). Best effort: a Prisma
  // call handed to Promise.all leaves only the line that opened the transaction.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 60; // Prisma's frames alone pass the default 10
  const stack = new Error().stack;
  Error.stackTraceLimit = limit;
  const frames = (stack?.split("\n").slice(1) ?? [])
    .map((line) => line.trim())
    .filter((line) => /:\d+:\d+\)?$/.test(line) && !/node_modules|node:internal/.test(line) && !(ownFile && line.includes(ownFile)));
  // The first of them (the statement's line, or the line awaiting the Prisma call) is the site.
  const site = frames.slice(0, 6);
  const key = site[0] ?? firstWords(sql);
  if (!warnedSites.has(key) && warnedSites.size < 1_000) {
    warnedSites.add(key);
    logger("db").warn({ site, sql: firstWords(sql), running: firstWords(running.sql) }, CONCURRENT_QUERY_RULE);
  }
  return null;
}

/**
 * The transaction's connection with every statement checked against the rule above. The queries
 * of one Prisma call share an owner (currentOperation); every other statement is its own. A
 * ROLLBACK is never refused: it cleans up after an error already on its way.
 */
function checkedClient(client: pg.PoolClient, running: Running): pg.PoolClient {
  // biome-ignore lint/suspicious/noExplicitAny: pg's overloads (text, config, callback forms) pass through unchanged
  const query = (...args: any[]): any => {
    const sql = statementText(args[0]);
    const owner = currentOperation.getStore() ?? {};
    if (running.count > 0 && running.owner !== owner && !/^\s*ROLLBACK\b/i.test(sql)) {
      const refused = refuseConcurrent(sql, running);
      if (refused) {
        const callback = args.at(-1);
        if (typeof callback !== "function") return Promise.reject(refused);
        process.nextTick(() => callback(refused));
        return undefined;
      }
    }
    if (running.count === 0) {
      running.owner = owner;
      running.sql = sql;
    }
    running.count += 1;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      running.count -= 1;
      if (running.count === 0) running.owner = null;
    };
    const callback = args.at(-1);
    if (typeof callback === "function") {
      args[args.length - 1] = (error: unknown, result: unknown) => {
        end();
        callback(error, result);
      };
    }
    let result: unknown;
    try {
      result = (client.query as (...a: unknown[]) => unknown)(...args);
    } catch (error) {
      end();
      throw error;
    }
    if (result instanceof Promise) result.then(end, end);
    else if (typeof callback !== "function" && typeof (result as { once?: unknown } | null)?.once === "function") {
      // A submittable (cursor, stream): running until it ends or fails.
      (result as pg.Query).once("end", end);
      (result as pg.Query).once("error", end);
    }
    return result;
  };
  return new Proxy(client, {
    get(target, property, receiver) {
      return property === "query" ? query : Reflect.get(target, property, receiver);
    },
  });
}

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
function savepointClient(tx: TransactionState): pg.PoolClient {
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
    // Every query the app's pool sends passes here once: the test-time count (server/statement-counts.ts).
    if (countingOn) noteQuery(statementText(args[0]));
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
  const plain = new PrismaClient({ adapter: new PrismaPg(pool) });
  // With the check on (tests, or an operator's TRANSACTION_CONCURRENCY_CHECK), each Prisma call made
  // inside a transaction() runs as one owner of the connection (see checkedClient). Off (production's
  // default), Prisma calls pay for no extension.
  const prisma =
    env().TRANSACTION_CONCURRENCY_CHECK === "off"
      ? plain
      : (plain.$extends({
          query: {
            // Awaited inside run(): query(args) is lazy, it starts on its first then().
            $allOperations: ({ args, query }) => (inTransaction() ? currentOperation.run({}, async () => await query(args)) : query(args)),
          },
        }) as unknown as PrismaClient);
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
  // The outermost transaction checks every statement on its connection (a nested one's client
  // already goes through that check).
  const checked =
    outer || env().TRANSACTION_CONCURRENCY_CHECK === "off" ? client : checkedClient(client, { count: 0, owner: null, sql: "" });
  const state: TransactionState = outer ?? { client: checked, savepoints: 0 };
  try {
    await client.query("BEGIN");
    // Awaited inside the store: a lazy promise `work` returns (a Prisma call's, which starts on
    // its first then()) must start in the transaction, not after run() has left it.
    const result = await currentTransaction.run(state, async () => await work(checked));
    // Checked too: a statement still running here was sent and not awaited.
    await checked.query("COMMIT");
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
  // Fire and forget: not part of the request's statement count (server/statement-counts.ts).
  if (!tx) {
    uncounted(work);
    return;
  }
  tx.after ??= [];
  tx.after.push(() => uncounted(work));
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
