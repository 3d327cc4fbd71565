import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../../../e2e/support/global-setup";

// createLeaderboard's rewards check inside a transaction() (an audited dashboard command, a
// config import), on a scratch database: it sent two queries at once there, which the pool
// refuses under vitest (server/db.ts). And one Prisma call that loads two relations — Prisma
// sends those queries at once itself — runs inside a transaction without tripping the rule.
type Db = typeof import("../../db");
type Definitions = typeof import("./definitions");
const holder = globalThis as { __gameBackendDb?: { pool: { end: () => Promise<void> } } };

let scratch: Awaited<ReturnType<typeof createDatabase>>;
let db: Db;
let boards: Definitions;
const project = "00000000-0000-4000-8000-000000000034";
const rewards = [{ rank: 1, currencies: [{ id: "gold", amount: 100 }], items: [{ id: "sword", quantity: 1 }] }];

beforeAll(async () => {
  scratch = await createDatabase();
  process.env.DATABASE_URL = scratch.url;
  // After DATABASE_URL: the modules read the environment once.
  db = await import("../../db");
  boards = await import("./definitions");
  const { migrate } = await import("../../migrate");
  await migrate(db.pool());
  await db.pool().query("INSERT INTO projects (id, name, updated_at) VALUES ($1, 'p', now())", [project]);
  await db.pool().query("INSERT INTO items (project_id, id, name) VALUES ($1, 'sword', 'Sword')", [project]);
});
afterAll(async () => {
  await holder.__gameBackendDb?.pool.end();
  delete holder.__gameBackendDb;
  await scratch?.drop();
});

describe("createLeaderboard inside a transaction", () => {
  it("checks its rewards against the transaction's currencies and items and creates the board", async () => {
    const created = await db.transaction(async (client) => {
      // Created in the same transaction, as a config import does: the check must see it.
      await client.query("INSERT INTO currencies (project_id, id, name) VALUES ($1, 'gold', 'Gold')", [project]);
      return boards.createLeaderboard({
        projectId: project,
        input: { id: "weekly", name: "Weekly", sortOrder: "desc", operator: "best", rewards },
      });
    });
    expect(created.rewards).toEqual(rewards);
    const { rows } = await db.pool().query("SELECT rewards FROM leaderboards WHERE project_id = $1 AND id = 'weekly'", [project]);
    expect(rows[0]?.rewards).toEqual(rewards);
  });

  it("refuses rewards naming a currency or item the project lacks, and rolls back", async () => {
    const attempt = db.transaction(() =>
      boards.createLeaderboard({
        projectId: project,
        input: {
          id: "monthly",
          name: "Monthly",
          sortOrder: "desc",
          operator: "best",
          rewards: [{ rank: 1, currencies: [{ id: "gems", amount: 1 }], items: [{ id: "sword", quantity: 1 }] }],
        },
      }),
    );
    await expect(attempt).rejects.toMatchObject({ code: "VALIDATION_ERROR", message: 'No currency "gems" in this project.' });
    const { rowCount } = await db.pool().query("SELECT 1 FROM leaderboards WHERE project_id = $1 AND id = 'monthly'", [project]);
    expect(rowCount).toBe(0);
  });

  it("updateLeaderboard's rewards check runs inside a transaction too", async () => {
    const updated = await db.transaction(() =>
      boards.updateLeaderboard({
        projectId: project,
        id: "weekly",
        input: { rewards: [{ rank: 1, items: [{ id: "sword", quantity: 2 }] }] },
      }),
    );
    expect(updated.rewards).toEqual([{ rank: 1, currencies: [], items: [{ id: "sword", quantity: 2 }] }]);
  });
});

it("one Prisma call loading two relations (queries Prisma sends at once) runs inside a transaction", async () => {
  const [summary] = await db.transaction(() =>
    db.prisma().project.findMany({
      where: { id: project },
      select: { id: true, apiKeys: { select: { id: true } }, items: { select: { id: true } }, _count: { select: { players: true } } },
    }),
  );
  expect(summary).toEqual({ id: project, apiKeys: [], items: [{ id: "sword" }], _count: { players: 0 } });
});
