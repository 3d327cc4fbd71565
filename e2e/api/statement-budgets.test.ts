import { beforeAll, describe, expect, it } from "vitest";
import { api } from "../support/api";
import { countingApp, countsOf, countWorld, type Measured, operations, type StatementCounts, warmCounts } from "../support/db-counts";

/**
 * Statement budgets: what one warm request of each hot route asks of Postgres and Redis, exactly
 * (server/statement-counts.ts defines the counts; an app with STATEMENT_COUNTS=1 sends them as
 * X-Debug-Db). Read from an app of this file's own whose caches outlive a slow machine
 * (countingApp), so "warm" is warm. A
 * change that adds a round trip — or saves one — fails here until the budget below is changed on
 * purpose. The table for every operation is docs/reports/performance.md's "Statements per request"
 * (e2e/api/db-counts.test.ts).
 *
 * Budgets hold with REDIS_URL set (CI) and without (see BUDGETS).
 */
const withRedis = Boolean(process.env.REDIS_URL);

/**
 * Statements, round trips, transactions and Redis commands with REDIS_URL set. Without Redis the
 * Postgres counts are the same (measured) and the Redis column is 0: rate limits and the
 * leaderboard index then run in process.
 */
type Budget = { route: string; budget: StatementCounts };
const c = (statements: number, roundTrips: number, transactions: number, redis: number): StatementCounts => ({
  statements,
  roundTrips,
  transactions,
  redis,
});

// biome-ignore format: one budget a line, read as a table
const BUDGETS: Budget[] = [
  { route: "GET /players/{id}/data/{key}",   budget: c(1, 1, 0, 1) },
  { route: "PUT /players/{id}/data/{key}",   budget: c(1, 1, 0, 1) },
  { route: "POST /leaderboards/{id}/scores", budget: c(1, 1, 0, 2) },
  { route: "GET /leaderboards/{id}/player",  budget: c(1, 1, 0, 2) },
  { route: "POST /economy/purchase",         budget: c(1, 1, 0, 1) },
  { route: "POST /auth/anonymous",           budget: c(1, 1, 0, 1) },
  { route: "POST /auth/refresh",             budget: c(1, 1, 0, 1) },
  { route: "PUT /saves/{key}",               budget: c(1, 1, 0, 1) },
  { route: "GET /config",                    budget: c(0, 0, 0, 1) },
];

const base = countingApp();
let measured: Map<string, Measured>;
beforeAll(async () => {
  measured = new Map(
    operations(await countWorld(base()))
      .filter((op): op is Measured => "call" in op)
      .map((op) => [`${op.method} ${op.path}`, op]),
  );
}, 60_000);

describe("statement budgets of the hot routes (warm caches, same project and player)", () => {
  it.each(BUDGETS)(
    "$route",
    async ({ route, budget: withRedisBudget }) => {
      const op = measured.get(route);
      if (!op) throw new Error(`${route}: no such measured operation in e2e/support/db-counts.ts`);
      const budget = withRedis ? withRedisBudget : { ...withRedisBudget, redis: 0 };
      const counts = await warmCounts(op, { accept: (seen) => JSON.stringify(seen) === JSON.stringify(budget) });
      expect(
        counts,
        `${route} (${withRedis ? "with" : "without"} Redis) left its statement budget: raise the budget on purpose in this file if the new round trip is wanted (or lower it if one was saved)`,
      ).toEqual(budget);
    },
    60_000,
  );
});

describe("X-Debug-Db", () => {
  it("counts what the request asked and nothing else: a refused request without a key touches no store", async () => {
    const res = await api("GET", "/api/v1/config", { base: base() });
    expect(res.status).toBe(401);
    // The IP's rate limit runs before the refusal: one Redis command with Redis, none without.
    expect(countsOf(res)).toEqual(c(0, 0, 0, withRedis ? 1 : 0));
  });
});
