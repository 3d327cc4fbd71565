import { AsyncLocalStorage } from "node:async_hooks";
import { Redis } from "ioredis";
import { shared } from "./launcher-contract.mjs";

/**
 * A test-time count of what one HTTP request asks of its stores, for the statement budgets
 * (e2e/api/statement-budgets.test.ts) and the table in docs/reports/performance.md. Off unless
 * STATEMENT_COUNTS=1 (the integration suite sets it): then every /api/v1 answer carries
 * `X-Debug-Db: statements=3; round-trips=4; transactions=1; redis=1`. Off, nothing is counted,
 * no scope is opened and no header is sent.
 *
 * - round-trips: every query sent to Postgres on the app's pool (BEGIN, COMMIT, ROLLBACK,
 *   SAVEPOINT and SET LOCAL included).
 * - statements: the same minus transaction control (BEGIN, COMMIT, ROLLBACK, SAVEPOINT,
 *   RELEASE, SET LOCAL).
 * - transactions: BEGINs sent (a nested transaction() is a savepoint, not counted).
 * - redis: ioredis commands sent (a pipeline's commands one each; an EVALSHA one).
 *
 * Counted: what runs on the request's async path between its arrival and its answer. Not
 * counted: work started elsewhere (the outbox's delivery loop, the usage stats' flush, timers
 * and caches another request started), work the request hands to afterTransaction() (see
 * `uncounted`), and anything its other fire-and-forget work does after the answer is made (the
 * scope closes when the header is written).
 */
export type StatementCounts = { statements: number; roundTrips: number; transactions: number; redis: number };

type Scope = StatementCounts & { open: boolean };

const holder = shared as typeof shared & { __gameBackendCounts?: AsyncLocalStorage<Scope> };

/** Read once: the flag is a test-time switch, not a setting changed at run time. */
export const countingOn = process.env.STATEMENT_COUNTS === "1";

// On globalThis like db.ts's stores: the production build bundles this module into several chunks.
holder.__gameBackendCounts ??= new AsyncLocalStorage();
const scopes = holder.__gameBackendCounts;

const CONTROL = /^\s*(BEGIN|START\s+TRANSACTION|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE|SET\s+LOCAL)\b/i;
const BEGIN = /^\s*(BEGIN|START\s+TRANSACTION)\b/i;

/** One query sent to Postgres (server/db.ts calls this for each). */
export function noteQuery(sql: string): void {
  if (!countingOn) return;
  const scope = scopes.getStore();
  if (!scope?.open) return;
  scope.roundTrips += 1;
  if (!CONTROL.test(sql)) scope.statements += 1;
  else if (BEGIN.test(sql)) scope.transactions += 1;
}

/** One Redis command sent. */
function noteRedis(): void {
  const scope = scopes.getStore();
  if (scope?.open) scope.redis += 1;
}

// ioredis is an external package (next.config.ts): one prototype for every client the app makes
// (rate limits, leaderboard index, caches). Patched once, and only with the flag on.
const PATCHED = Symbol.for("gameBackend.statementCounts.redis");
if (countingOn) {
  const proto = Redis.prototype as unknown as Record<string | symbol, unknown>;
  if (!proto[PATCHED]) {
    proto[PATCHED] = true;
    const send = proto.sendCommand as (...args: unknown[]) => unknown;
    proto.sendCommand = function sendCommand(this: unknown, ...args: unknown[]) {
      noteRedis();
      return send.apply(this, args);
    };
  }
}

/**
 * Runs `work` outside any request's count: for fire-and-forget work a request starts (db.ts's
 * afterTransaction: index rebuilds, cache drops broadcast to siblings, webhook dispatcher wakes),
 * whose queries would land in the request's count or not depending on timing. Timers it sets
 * inherit no count either.
 */
export function uncounted<T>(work: () => T): T {
  return countingOn ? scopes.exit(work) : work();
}

/**
 * Runs `work` (one request) with its own counts, and writes them on the response it returns as
 * X-Debug-Db. With the flag off, `work` runs as it is.
 */
export async function withStatementCounts(work: () => Promise<Response>): Promise<Response> {
  if (!countingOn) return work();
  const scope: Scope = { statements: 0, roundTrips: 0, transactions: 0, redis: 0, open: true };
  const response = await scopes.run(scope, work);
  scope.open = false;
  try {
    response.headers.set("X-Debug-Db", formatCounts(scope));
  } catch {
    // An immutable response (none of defineRoute's): left without the header.
  }
  return response;
}

export function formatCounts(c: StatementCounts): string {
  return `statements=${c.statements}; round-trips=${c.roundTrips}; transactions=${c.transactions}; redis=${c.redis}`;
}

/** The header's value read back (the tests' side). */
export function parseCounts(header: string | null): StatementCounts | null {
  if (!header) return null;
  const field = (name: string) => Number(new RegExp(`(?:^|;\\s*)${name}=(\\d+)`).exec(header)?.[1] ?? Number.NaN);
  return { statements: field("statements"), roundTrips: field("round-trips"), transactions: field("transactions"), redis: field("redis") };
}
