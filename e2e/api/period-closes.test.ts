import { randomBytes, randomUUID } from "node:crypto";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pool, prisma } from "@/server/db";
import type { SessionOperator } from "@/server/identity/operator";
import { enqueue, QUEUES, stopQueue } from "@/server/queue";
import { createCurrency, createItem } from "@/server/services/economy/definitions";
import { closeEndedPeriods } from "@/server/services/leaderboards/closes";
import { createLeaderboard, resetLeaderboard } from "@/server/services/leaderboards/definitions";
import type { CreateLeaderboard } from "@/server/services/leaderboards/schemas";
import { upsertOperator } from "@/server/services/operators";
import { banPlayer } from "@/server/services/players/bans";
import { endpointsChanged } from "@/server/services/webhooks/events";
import { appRouter } from "@/server/trpc/router";
import { api } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";
import { documented } from "../support/webhooks";

/**
 * Period closes and their rewards. Periods are filled with SQL (10,000 entries) under a key a few
 * days ahead of the real clock, so the app's own every-minute job leaves them alone (a period
 * that has not started yet is never closed), and the close is run here with an injected `now`.
 */
let project: TestProject;
let top: TestPlayer;
const DAY = 86_400_000;
const startOfDay = (ms: number) => new Date(Math.floor(ms / DAY) * DAY);
const futureDay = (days: number) => startOfDay(Date.now() + days * DAY);

const REWARDS: NonNullable<CreateLeaderboard["rewards"]> = [
  { rank: 1, currencies: [{ id: "gems", amount: 1000 }], items: [{ id: "trophy", quantity: 1 }] },
  { fromRank: 2, toRank: 3, currencies: [{ id: "gems", amount: 500 }] },
  { fromRank: 4, toRank: 10, currencies: [{ id: "gems", amount: 100 }] },
  {
    topPercent: 10,
    currencies: [
      { id: "gems", amount: 10 },
      { id: "coins", amount: 5 },
    ],
  },
];

beforeAll(async () => {
  project = await makeProject();
  top = await anonymousPlayer(project.clientKey);
  await createCurrency({ projectId: project.projectId, input: { id: "gems", name: "Gems" } });
  await createCurrency({ projectId: project.projectId, input: { id: "coins", name: "Coins", maxBalance: 50 } });
  await createItem({ projectId: project.projectId, input: { id: "trophy", name: "Trophy" } });
});

afterAll(async () => {
  await stopQueue();
});

const boardId = () => `pc-${randomBytes(4).toString("hex")}`;
async function board(extra: Partial<CreateLeaderboard> = {}): Promise<string> {
  const id = boardId();
  await createLeaderboard({
    projectId: project.projectId,
    input: { id, name: id, sortOrder: "desc", operator: "best", resetSchedule: "daily", rewards: REWARDS, ...extra },
  });
  return id;
}

/**
 * A period with `scores[i]` for `players[i]`, written in order (so equal scores rank by position:
 * the earlier seq first), with its entry count.
 */
async function fill(id: string, period: string, players: string[], scores: number[]): Promise<void> {
  await pool().query(
    `INSERT INTO players (id, project_id, updated_at)
     SELECT p, $1, now() FROM unnest($2::uuid[]) AS p ON CONFLICT (id) DO NOTHING`,
    [project.projectId, players],
  );
  await pool().query("INSERT INTO leaderboard_periods (project_id, leaderboard_id, period, entries) VALUES ($1, $2, $3, $4)", [
    project.projectId,
    id,
    period,
    players.length,
  ]);
  await pool().query(
    `INSERT INTO leaderboard_entries (project_id, leaderboard_id, period, player_id, score, sort_key, seq)
     SELECT $1, $2, $3, v.p, v.s, -v.s, nextval('leaderboard_entries_seq_seq')
       FROM unnest($4::uuid[], $5::float8[]) WITH ORDINALITY AS v(p, s, n) ORDER BY v.n`,
    [project.projectId, id, period, players, scores],
  );
}

type Reward = { player_id: string; n: number; currencies: Array<{ id: string; delta: number; balance: number }>; items: unknown[] };
async function rewardsOf(id: string, period: string): Promise<Map<string, Reward>> {
  const { rows } = await pool().query<Reward>(
    `SELECT player_id, count(*) OVER (PARTITION BY player_id)::int AS n, currencies, items FROM economy_transactions
      WHERE project_id = $1 AND kind = 'REWARD' AND leaderboard_id = $2 AND period = $3`,
    [project.projectId, id, period],
  );
  return new Map(rows.map((r) => [r.player_id, r]));
}

async function closeRows(id: string) {
  const { rows } = await pool().query(
    "SELECT period, ended_by, entries, rewards_granted, rewards_skipped, status FROM leaderboard_period_closes WHERE project_id = $1 AND leaderboard_id = $2",
    [project.projectId, id],
  );
  return rows;
}

describe("a period close with 10,000 entries and a rewards table (1, 2–3, 4–10, top 10 %)", () => {
  const day = futureDay(3);
  const period = `0:${day.toISOString()}`;
  const closeAt = new Date(day.getTime() + DAY + 60_000);
  let id: string;
  // players[r - 1] holds rank r: rank 1 is a real player (it reads its ledger over HTTP).
  const players: string[] = [];
  let endpointId: string;

  beforeAll(async () => {
    id = await board();
    players.push(top.playerId, ...Array.from({ length: 9_999 }, () => randomUUID()));
    // Scores best first, except ranks 2 and 3 tie: the one written first ranks first.
    const scores = players.map((_, i) => 20_000 - i);
    scores[2] = scores[1] as number;
    // Written worst first (seq ascending), with the tie written in rank order.
    const order = players.map((_, i) => i).reverse();
    const tied = order.indexOf(1);
    order.splice(tied, 1);
    order.splice(order.indexOf(2), 0, 1);
    await fill(
      id,
      period,
      order.map((i) => players[i] as string),
      order.map((i) => scores[i] as number),
    );
    // Rank 5 is banned: the ban hides the entry, so it holds no rank and everyone behind moves up one
    // (rank 6 is paid as rank 5, rank 1,001 enters the top 10 %); rank 500 is 2 coins short of the max of 50.
    await banPlayer({ projectId: project.projectId, playerId: players[4] as string, reason: "cheating" });
    await pool().query(
      "INSERT INTO wallets (project_id, player_id, currency_id, balance, initial_balance) VALUES ($1, $2, 'coins', 48, 0)",
      [project.projectId, players[499]],
    );
    endpointId = randomUUID();
    await pool().query(
      `INSERT INTO webhook_endpoints (id, project_id, url, event_types, secret)
       VALUES ($1, $2, 'https://receiver.example/hook', ARRAY['leaderboard.period_closed'], 'whsec_test')`,
      [endpointId, project.projectId],
    );
    // Written with SQL, so tell this process's outbox (the ban above found no endpoint and cached that).
    await endpointsChanged(project.projectId);
  });

  it("pays every rewarded rank once, by tier, with ranks as of the close; a banned player holds no rank, over-max players are skipped", async () => {
    const started = performance.now();
    const closed = await closeEndedPeriods({ projectId: project.projectId, now: closeAt });
    const ms = performance.now() - started;
    console.log(`closed a period of 10,000 entries with 1,000 rewarded ranks in ${ms.toFixed(0)} ms`);
    const mine = closed.filter((c) => c.leaderboardId === id);
    expect(mine).toEqual([
      {
        projectId: project.projectId,
        leaderboardId: id,
        period,
        startedAt: day.toISOString(),
        closedAt: closeAt.toISOString(),
        endedBy: "schedule",
        entries: 9_999,
        rewardsGranted: 999,
        rewardsSkipped: 1,
      },
    ]);
    const rewards = await rewardsOf(id, period);
    expect(rewards.size).toBe(999);
    for (const r of rewards.values()) expect(r.n).toBe(1);
    const gems = (rank: number) => rewards.get(players[rank - 1] as string)?.currencies.find((c) => c.id === "gems")?.delta;
    expect(gems(1)).toBe(1000);
    expect(rewards.get(top.playerId)?.items).toEqual([{ itemId: "trophy", delta: 1, quantity: 1 }]);
    expect([gems(2), gems(3)]).toEqual([500, 500]);
    expect([gems(4), gems(6), gems(10)]).toEqual([100, 100, 100]);
    expect(rewards.has(players[4] as string)).toBe(false);
    expect(gems(11)).toBe(100); // now rank 10
    expect([gems(12), gems(499), gems(1000), gems(1001)]).toEqual([10, 10, 10, 10]);
    expect(rewards.has(players[499] as string)).toBe(false);
    expect(rewards.has(players[1001] as string)).toBe(false);
    expect(rewards.get(players[11] as string)?.currencies).toEqual([
      { id: "coins", delta: 5, balance: 5 },
      { id: "gems", delta: 10, balance: 10 },
    ]);
    // The ledger invariant: the wallet is the initial balance plus the ledger's deltas.
    const { rows } = await pool().query<{ balance: string }>(
      "SELECT balance FROM wallets WHERE project_id = $1 AND player_id = $2 AND currency_id = 'coins'",
      [project.projectId, players[499]],
    );
    expect(rows[0]?.balance).toBe("48");
    expect(await closeRows(id)).toEqual([
      { period, ended_by: "schedule", entries: 9_999, rewards_granted: 999, rewards_skipped: 1, status: "REWARDED" },
    ]);
  });

  it("the player sees the reward in GET /economy/transactions with the board and period", async () => {
    const res = await api<{ transactions: Array<Record<string, unknown>> }>("GET", "/api/v1/economy/transactions", {
      key: project.clientKey,
      token: top.accessToken,
    });
    expect(res.status).toBe(200);
    expect(res.body.transactions[0]).toMatchObject({
      kind: "reward",
      purchaseId: null,
      source: { leaderboardId: id, period },
      currencies: [{ id: "gems", delta: 1000, balance: 1000 }],
      items: [{ itemId: "trophy", delta: 1, quantity: 1 }],
    });
  });

  it("running the close again grants nothing, keeps one close row and one period_closed event", async () => {
    // A score submitted after the close goes to the period of the real clock, not the closed one.
    const submitted = await api("POST", `/api/v1/leaderboards/${id}/scores`, {
      key: project.clientKey,
      token: top.accessToken,
      body: { score: 1e9 },
    });
    expect(submitted.status).toBe(200);
    expect((await closeEndedPeriods({ projectId: project.projectId, now: closeAt })).filter((c) => c.period === period)).toEqual([]);
    expect((await rewardsOf(id, period)).size).toBe(999);
    // (The injected clock is days ahead, so the real clock's period of that submit closed too.)
    expect((await closeRows(id)).filter((r) => r.period === period)).toHaveLength(1);
    const { rows } = await pool().query<{ data: Record<string, unknown>; deliveries: number }>(
      `SELECT e.data, (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id AND d.endpoint_id = $2) AS deliveries
         FROM webhook_events e WHERE e.project_id = $1 AND e.type = 'leaderboard.period_closed' AND e.data->>'leaderboardId' = $3 AND e.data->>'period' = $4`,
      [project.projectId, endpointId, id, period],
    );
    expect(rows).toEqual([
      {
        data: {
          leaderboardId: id,
          period,
          startedAt: day.toISOString(),
          closedAt: closeAt.toISOString(),
          entries: 9_999,
          rewardsGranted: 999,
        },
        deliveries: 1,
      },
    ]);
    expect(documented("leaderboard.period_closed", rows[0]?.data)).toBe(true);
  });

  it("GET /leaderboards/{id} carries the rewards table and the current period", async () => {
    const res = await api<{ period: string; rewards: unknown }>("GET", `/api/v1/leaderboards/${id}`, { key: project.clientKey });
    expect(res.status).toBe(200);
    expect(res.body.rewards).toEqual([
      { rank: 1, currencies: [{ id: "gems", amount: 1000 }], items: [{ id: "trophy", quantity: 1 }] },
      { fromRank: 2, toRank: 3, currencies: [{ id: "gems", amount: 500 }], items: [] },
      { fromRank: 4, toRank: 10, currencies: [{ id: "gems", amount: 100 }], items: [] },
      {
        topPercent: 10,
        currencies: [
          { id: "gems", amount: 10 },
          { id: "coins", amount: 5 },
        ],
        items: [],
      },
    ]);
    expect(res.body.period).toMatch(/^0:\d{4}-\d\d-\d\dT00:00:00\.000Z$/);
  });
});

describe("a close that pays every one of 10,000 entries", () => {
  it("pays 10,000 players in one close, each once", async () => {
    const id = await board({
      rewards: [{ topPercent: 100, currencies: [{ id: "gems", amount: 1 }], items: [{ id: "trophy", quantity: 2 }] }],
    });
    const day = futureDay(9);
    const period = `0:${day.toISOString()}`;
    const players = Array.from({ length: 10_000 }, () => randomUUID());
    await fill(
      id,
      period,
      players,
      players.map((_, i) => i),
    );
    const started = performance.now();
    const closed = await closeEndedPeriods({ projectId: project.projectId, now: new Date(day.getTime() + DAY + 60_000) });
    console.log(`closed a period of 10,000 entries paying all 10,000 in ${(performance.now() - started).toFixed(0)} ms`);
    expect(closed.find((c) => c.period === period)).toMatchObject({ entries: 10_000, rewardsGranted: 10_000, rewardsSkipped: 0 });
    const { rows } = await pool().query<{ rows: number; players: number }>(
      `SELECT count(*)::int AS rows, count(DISTINCT player_id)::int AS players FROM economy_transactions
        WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3`,
      [project.projectId, id, period],
    );
    expect(rows[0]).toEqual({ rows: 10_000, players: 10_000 });
  });
});

describe("closes are exactly once", () => {
  it("two concurrent runs close a period once and pay each rewarded player once", async () => {
    const id = await board({ rewards: [{ fromRank: 1, toRank: 20, currencies: [{ id: "gems", amount: 7 }] }] });
    const day = futureDay(5);
    const period = `0:${day.toISOString()}`;
    const players = Array.from({ length: 300 }, () => randomUUID());
    await fill(
      id,
      period,
      players,
      players.map((_, i) => i),
    );
    const now = new Date(day.getTime() + DAY + 60_000);
    const runs = await Promise.all([1, 2, 3].map(() => closeEndedPeriods({ projectId: project.projectId, now })));
    expect(runs.flat().filter((c) => c.leaderboardId === id)).toHaveLength(1);
    const rewards = await rewardsOf(id, period);
    expect(rewards.size).toBe(20);
    for (const r of rewards.values()) expect([r.n, r.currencies[0]?.delta]).toEqual([1, 7]);
    expect(await closeRows(id)).toHaveLength(1);
  });

  it("a second reward for the same player and period is refused by the ledger's unique key", async () => {
    const id = await board();
    await expect(
      pool().query(
        `INSERT INTO economy_transactions (id, project_id, player_id, kind, currencies, items, actor_kind, leaderboard_id, period)
         VALUES ($1, $3, $4, 'REWARD', '[]', '[]', 'system', $5, '0:x'), ($2, $3, $4, 'REWARD', '[]', '[]', 'system', $5, '0:x')`,
        [randomUUID(), randomUUID(), project.projectId, top.playerId, id],
      ),
    ).rejects.toMatchObject({ code: "23505" });
  });

  it('"reset now" ends the period: it closes and pays its rewards', async () => {
    const id = await board({ resetSchedule: null, rewards: [{ rank: 1, currencies: [{ id: "gems", amount: 3 }] }] });
    const players = [randomUUID(), randomUUID()];
    await fill(id, "0:all", players, [5, 9]);
    await resetLeaderboard({ projectId: project.projectId, id });
    // The app's own job may close it first (it is due as soon as the grace has passed): either way, once.
    await closeEndedPeriods({ projectId: project.projectId, now: new Date(Date.now() + 60_000) });
    expect(await closeRows(id)).toEqual([
      { period: "0:all", ended_by: "reset", entries: 2, rewards_granted: 1, rewards_skipped: 0, status: "REWARDED" },
    ]);
    expect([...(await rewardsOf(id, "0:all")).keys()]).toEqual([players[1]]);
  });

  it("a period that has not ended (or ended less than the grace ago) is left open", async () => {
    const id = await board();
    const day = futureDay(7);
    await fill(id, `0:${day.toISOString()}`, [randomUUID()], [1]);
    await closeEndedPeriods({ projectId: project.projectId, now: new Date(day.getTime() + DAY - 1) });
    await closeEndedPeriods({ projectId: project.projectId, now: new Date(day.getTime() + DAY + 1_000) });
    expect(await closeRows(id)).toEqual([]);
  });
});

async function admin(projectId: string): Promise<SessionOperator> {
  const email = `op-${randomBytes(4).toString("hex")}@studio.test`;
  const created = await upsertOperator({ email, name: email, password: "a long operator passphrase 9" });
  await prisma().projectMember.create({ data: { projectId, operatorId: created.id, role: "ADMIN" } });
  return { ...created, isInstanceAdmin: false };
}

describe("a reward's ledger line names the board and the period in words", () => {
  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const dayWords = (d: Date) => `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;

  it("a weekly board's reward reads \"Reward: Weekly Race, week of <Monday> (rank #N)\" in the operator's ledger of the player", async () => {
    const id = await board({ name: "Weekly Race", resetSchedule: "weekly" });
    const day = futureDay(10);
    const monday = new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY);
    const period = `0:${monday.toISOString()}`;
    const players = [randomUUID(), randomUUID()];
    await fill(id, period, players, [90, 80]);
    await closeEndedPeriods({ projectId: project.projectId, now: new Date(monday.getTime() + 7 * DAY + 60_000) });
    const week = `week of ${dayWords(monday)}`;
    const caller = appRouter.createCaller({ operator: await admin(project.projectId), requestId: "req-ledger-words" });
    const reasons: Array<Array<string | null | undefined>> = [];
    for (const playerId of players) {
      const ledger = await caller.economy.ledger({ projectId: project.projectId, playerId });
      reasons.push(ledger.transactions.map((t) => t.reason));
    }
    expect(reasons).toEqual([[`Reward: Weekly Race, ${week} (rank #1)`], [`Reward: Weekly Race, ${week} (rank #2)`]]);
  });

  it("a daily board's reward names the day", async () => {
    const id = await board({ name: "Daily Dash" });
    const day = futureDay(9);
    const period = `0:${day.toISOString()}`;
    const player = randomUUID();
    await fill(id, period, [player], [7]);
    await closeEndedPeriods({ projectId: project.projectId, now: new Date(day.getTime() + DAY + 60_000) });
    const { rows } = await pool().query<{ reason: string }>(
      "SELECT reason FROM economy_transactions WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3",
      [project.projectId, id, period],
    );
    expect(rows).toEqual([{ reason: `Reward: Daily Dash, ${dayWords(day)} (rank #1)` }]);
  });
});

describe("rewards are validated when a board is saved", () => {
  const bad: Array<[string, unknown]> = [
    [
      "overlapping ranges",
      [
        { fromRank: 1, toRank: 5, currencies: [{ id: "gems", amount: 1 }] },
        { fromRank: 5, toRank: 9, currencies: [{ id: "gems", amount: 1 }] },
      ],
    ],
    ["an unknown currency", [{ rank: 1, currencies: [{ id: "nope", amount: 1 }] }]],
    ["an unknown item", [{ rank: 1, items: [{ id: "nope", quantity: 1 }] }]],
    ["a negative amount", [{ rank: 1, currencies: [{ id: "gems", amount: -5 }] }]],
    ["over 100 %", [{ topPercent: 120, currencies: [{ id: "gems", amount: 1 }] }]],
    ["two range forms in one tier", [{ rank: 1, topPercent: 5, currencies: [{ id: "gems", amount: 1 }] }]],
    ["a tier granting nothing", [{ rank: 1 }]],
    ["more than 20 tiers", Array.from({ length: 21 }, (_, i) => ({ rank: i + 1, currencies: [{ id: "gems", amount: 1 }] }))],
  ];
  for (const [what, rewards] of bad) {
    it(`${what}: VALIDATION_ERROR, nothing changed`, async () => {
      const id = await board({ rewards: [{ rank: 1, currencies: [{ id: "gems", amount: 2 }] }] });
      const caller = appRouter.createCaller({ operator: await admin(project.projectId), requestId: "req-rewards" });
      const error = await caller.leaderboards
        .update({ projectId: project.projectId, id, patch: { rewards: rewards as CreateLeaderboard["rewards"] } })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(TRPCError);
      expect(((error as TRPCError).cause as { code?: string } | undefined)?.code).toBe("VALIDATION_ERROR");
      const res = await api<{ rewards: unknown }>("GET", `/api/v1/leaderboards/${id}`, { key: project.clientKey });
      expect(res.body.rewards).toEqual([{ rank: 1, currencies: [{ id: "gems", amount: 2 }], items: [] }]);
    });
  }

  it("a currency a board's rewards name cannot be deleted (IN_USE)", async () => {
    await createCurrency({ projectId: project.projectId, input: { id: "stars", name: "Stars" } });
    await board({ rewards: [{ rank: 1, currencies: [{ id: "stars", amount: 1 }] }] });
    const caller = appRouter.createCaller({ operator: await admin(project.projectId), requestId: "req-rewards" });
    const error = await caller.economy.deleteCurrency({ projectId: project.projectId, id: "stars" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(((error as TRPCError).cause as { code?: string } | undefined)?.code).toBe("IN_USE");
  });
});

describe("scheduled jobs", () => {
  it("the three schedules are registered with pg-boss's cron (UTC)", async () => {
    const { rows } = await pool().query<{ name: string; cron: string; timezone: string }>(
      "SELECT name, cron, timezone FROM pgboss.schedule WHERE name = ANY($1::text[]) ORDER BY name",
      [[QUEUES.housekeeping, QUEUES.periodClose, QUEUES.banExpiry]],
    );
    expect(rows).toEqual([
      { name: "housekeeping", cron: "7 * * * *", timezone: "UTC" },
      { name: "leaderboard-period-close", cron: "* * * * *", timezone: "UTC" },
      { name: "player-ban-expiry", cron: "* * * * *", timezone: "UTC" },
    ]);
  });

  it("a housekeeping job run by the app prunes ended sessions", async () => {
    const expired = await anonymousPlayer(project.clientKey);
    await prisma().session.updateMany({ where: { playerId: expired.playerId }, data: { expiresAt: new Date(Date.now() - 8 * DAY) } });
    await enqueue(QUEUES.housekeeping, {});
    const deadline = Date.now() + 25_000;
    while (Date.now() < deadline && (await prisma().session.count({ where: { playerId: expired.playerId } })) > 0) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(await prisma().session.count({ where: { playerId: expired.playerId } })).toBe(0);
  });
});

describe("a close's rewards reach webhooks", () => {
  it("each paid player gets currency.changed (and item.granted for items) of kind reward, with the board and period, as documented", async () => {
    const id = await board();
    const day = futureDay(13);
    const period = `0:${day.toISOString()}`;
    const players = [randomUUID(), randomUUID(), randomUUID()];
    await fill(id, period, players, [30, 20, 10]);
    const endpoint = randomUUID();
    await pool().query(
      `INSERT INTO webhook_endpoints (id, project_id, url, event_types, secret)
       VALUES ($1, $2, 'https://receiver.example/rewards', ARRAY['currency.changed', 'item.granted'], 'whsec_test')`,
      [endpoint, project.projectId],
    );
    await endpointsChanged(project.projectId);
    await closeEndedPeriods({ projectId: project.projectId, now: new Date(day.getTime() + DAY + 60_000) });
    const { rows } = await pool().query<{ type: string; player_id: string; data: Record<string, unknown>; deliveries: number }>(
      `SELECT e.type, e.player_id, e.data, (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id AND d.endpoint_id = $2) AS deliveries
         FROM webhook_events e WHERE e.project_id = $1 AND e.data->'source'->>'leaderboardId' = $3 ORDER BY e.type, e.data->>'reason'`,
      [project.projectId, endpoint, id],
    );
    const source = { leaderboardId: id, period };
    const gems = (rows.filter((r) => r.type === "currency.changed") as typeof rows).map((r) => [r.player_id, r.data.currencies]);
    expect(gems).toEqual([
      [players[0], [{ currencyId: "gems", delta: 1000, balance: 1000 }]],
      [players[1], [{ currencyId: "gems", delta: 500, balance: 500 }]],
      [players[2], [{ currencyId: "gems", delta: 500, balance: 500 }]],
    ]);
    const items = rows.filter((r) => r.type === "item.granted");
    expect(items.map((r) => [r.player_id, r.data.items])).toEqual([[players[0], [{ itemId: "trophy", quantity: 1, total: 1 }]]]);
    for (const r of rows) {
      expect(r.data).toMatchObject({ playerId: r.player_id, kind: "reward", purchaseId: null, source });
      expect(r.deliveries).toBe(1);
      expect(documented(r.type, r.data), r.type).toBe(true);
    }
  });
});
