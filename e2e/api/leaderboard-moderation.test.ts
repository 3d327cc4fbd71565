import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { pool, prisma } from "@/server/db";
import type { SessionOperator } from "@/server/identity/operator";
import { setScoreAs } from "@/server/services/leaderboards/commands";
import { createLeaderboard, loadLeaderboard } from "@/server/services/leaderboards/definitions";
import { currentPeriod, getLeaderboardPage, getPlayerEntry } from "@/server/services/leaderboards/entries";
import { indexKeys } from "@/server/services/leaderboards/rank-index";
import type { CreateLeaderboard, Entry } from "@/server/services/leaderboards/schemas";
import { appRouter } from "@/server/trpc/router";
import { api } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";
import { ctx, newOperator, refusalCode } from "../support/operators";

/**
 * An operator sets or corrects a player's score (leaderboards.setScore / setScoreAs): through the
 * statement a submit uses, within the board's bounds, audited with the reason and the score before
 * and after, refused below admin, and consistent with a player submitting at the same moment.
 */
let project: TestProject;
let admin: SessionOperator;
let viewer: SessionOperator;

beforeAll(async () => {
  project = await makeProject();
  admin = await newOperator("ADMIN", project.projectId);
  viewer = await newOperator("VIEWER", project.projectId);
});

async function board(input: Omit<CreateLeaderboard, "id" | "name">): Promise<string> {
  const id = `m-${randomBytes(4).toString("hex")}`;
  await createLeaderboard({ projectId: project.projectId, input: { id, name: id, ...input } });
  return id;
}
const players = (n: number) => Promise.all(Array.from({ length: n }, () => anonymousPlayer(project.clientKey)));
const submit = (id: string, p: TestPlayer, score: number) =>
  api<Entry>("POST", `/api/v1/leaderboards/${id}/scores`, { key: project.clientKey, token: p.accessToken, body: { score } });
const set = (id: string, playerId: string, score: number, reason = "support ticket 1042") =>
  setScoreAs(ctx(admin), { projectId: project.projectId, id, playerId, score, reason });

/** The order Postgres holds, with ranks. */
async function truth(id: string): Promise<Array<{ playerId: string; score: number; rank: number }>> {
  const { period } = currentPeriod(await loadLeaderboard(project.projectId, id));
  const { rows } = await pool().query<{ player_id: string; score: number }>(
    "SELECT player_id, score FROM leaderboard_entries WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3 ORDER BY sort_key, seq",
    [project.projectId, id, period],
  );
  return rows.map((r, i) => ({ playerId: r.player_id, score: r.score, rank: i + 1 }));
}

/** The counters a write keeps beside the entries: the period's total and the rank buckets' counts. */
async function counters(id: string): Promise<{ total: number; buckets: number }> {
  const { period } = currentPeriod(await loadLeaderboard(project.projectId, id));
  const { rows } = await pool().query<{ total: number; buckets: number }>(
    `SELECT (SELECT entries FROM leaderboard_periods WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3) AS total,
            (SELECT coalesce(sum(entries), 0)::int FROM leaderboard_rank_buckets WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3) AS buckets`,
    [project.projectId, id, period],
  );
  return rows[0] ?? { total: -1, buckets: -1 };
}

const shown = async (id: string) =>
  (await getLeaderboardPage({ projectId: project.projectId, leaderboardId: id, offset: 0, limit: 100 })).entries.map((e) => ({
    playerId: e.playerId,
    score: e.score,
    rank: e.rank,
  }));

describe("an operator sets or corrects a score", () => {
  it("is audited with the reason, the period and the score before and after", async () => {
    const id = await board({ sortOrder: "desc", operator: "best" });
    const [p] = await players(1);
    if (!p) throw new Error("no player");
    await submit(id, p, 900);
    const asAdmin = appRouter.createCaller({ operator: admin, requestId: "lbmod-audit" });
    const input = { projectId: project.projectId, id, playerId: p.playerId, score: 120, reason: "  cheated run, see ticket 77 " };
    const result = await asAdmin.leaderboards.setScore(input);
    expect(result).toMatchObject({ playerId: p.playerId, score: 120, rank: 1, previous: 900 });
    const row = await prisma().auditEntry.findFirstOrThrow({ where: { projectId: project.projectId, action: "leaderboard.entry.set" } });
    const { period } = currentPeriod(await loadLeaderboard(project.projectId, id));
    expect(row).toMatchObject({ target: `${id}/${p.playerId}`, operatorId: admin.id, requestId: "lbmod-audit" });
    expect(row.before).toMatchObject({ period, score: 900 });
    expect(row.after).toEqual({ period, score: 120, reason: "cheated run, see ticket 77" });
  });

  it("a player without an entry gets one (audited with no 'before'); the period's total counts it", async () => {
    const id = await board({ sortOrder: "asc", operator: "latest" });
    const [a, b] = await players(2);
    if (!a || !b) throw new Error("no players");
    await submit(id, a, 50);
    const result = await set(id, b.playerId, 10);
    expect(result).toMatchObject({ rank: 1, previous: null });
    expect(await counters(id)).toEqual({ total: 2, buckets: 2 });
    const row = await prisma().auditEntry.findFirstOrThrow({ where: { projectId: project.projectId, target: `${id}/${b.playerId}` } });
    expect(row.before).toBeNull();
  });

  it("a score outside minScore/maxScore is refused (SCORE_OUT_OF_RANGE): nothing written, nothing audited", async () => {
    const id = await board({ sortOrder: "desc", operator: "increment", minScore: 0, maxScore: 1000 });
    const [p] = await players(1);
    if (!p) throw new Error("no player");
    await submit(id, p, 40);
    expect(await refusalCode(set(id, p.playerId, 1001))).toBe("SCORE_OUT_OF_RANGE");
    expect(await refusalCode(set(id, p.playerId, -1))).toBe("SCORE_OUT_OF_RANGE");
    expect((await truth(id)).map((e) => e.score)).toEqual([40]);
    expect(await prisma().auditEntry.count({ where: { projectId: project.projectId, target: `${id}/${p.playerId}` } })).toBe(0);
    // The bounds themselves are allowed, whatever the board's operator (an increment board is set, not added to).
    expect((await set(id, p.playerId, 1000)).score).toBe(1000);
  });

  it("is refused for viewers (FORBIDDEN, through tRPC and the service), for a player of another project and an unknown board", async () => {
    const id = await board({ sortOrder: "desc", operator: "best" });
    const [p] = await players(1);
    if (!p) throw new Error("no player");
    await submit(id, p, 5);
    const input = { projectId: project.projectId, id, playerId: p.playerId, score: 6, reason: "test" };
    const asViewer = appRouter.createCaller({ operator: viewer, requestId: "lbmod-viewer" });
    expect(await refusalCode(asViewer.leaderboards.setScore(input))).toBe("FORBIDDEN");
    expect(await refusalCode(setScoreAs(ctx(viewer), input))).toBe("FORBIDDEN");
    const other = await makeProject();
    const stranger = await anonymousPlayer(other.clientKey);
    expect(await refusalCode(set(id, stranger.playerId, 6))).toBe("PLAYER_NOT_FOUND");
    expect(await refusalCode(set("no-such-board", p.playerId, 6))).toBe("LEADERBOARD_NOT_FOUND");
    const asAdmin = appRouter.createCaller({ operator: admin, requestId: "lbmod-admin" });
    expect(await refusalCode(asAdmin.leaderboards.setScore({ ...input, reason: "   " }))).toBe("VALIDATION_ERROR");
    expect((await truth(id)).map((e) => e.score)).toEqual([5]);
  });

  it("ranks close correctly: the corrected entry moves, the others shift by one, pages and neighbours agree with Postgres", async () => {
    const id = await board({ sortOrder: "desc", operator: "best" });
    const ps = await players(6);
    for (const [i, p] of ps.entries()) await submit(id, p, (i + 1) * 100); // 600 … 100
    const top = ps[5];
    const bottom = ps[0];
    if (!top || !bottom) throw new Error("no players");
    // A best board keeps the better score on a submit; the correction lowers it all the same.
    expect(await set(id, top.playerId, 250)).toMatchObject({ rank: 4, score: 250 });
    expect(await shown(id)).toEqual(await truth(id));
    expect((await shown(id)).map((e) => e.score)).toEqual([500, 400, 300, 250, 200, 100]);
    // A tie with an existing score ranks after it (reached later), like a submit.
    expect(await set(id, bottom.playerId, 400)).toMatchObject({ rank: 3 });
    expect(await shown(id)).toEqual(await truth(id));
    const mine = await getPlayerEntry({ projectId: project.projectId, leaderboardId: id, playerId: bottom.playerId, range: 1 });
    expect(mine).toMatchObject({ rank: 3, above: [{ rank: 2, score: 400 }], below: [{ rank: 4, score: 300 }] });
    expect(await counters(id)).toEqual({ total: 6, buckets: 6 });
  });
});

describe("a player's submit and an operator's correction at the same moment", () => {
  let redis: Redis | null = null;
  afterAll(() => redis?.disconnect());

  it("end consistent: the stored score is one of the two, and Postgres, the counters, the index and the audit log agree", async () => {
    const id = await board({ sortOrder: "desc", operator: "increment" });
    const ps = await players(8);
    for (const [i, p] of ps.entries()) await submit(id, p, i * 10);
    const racer = ps[3];
    if (!racer) throw new Error("no player");
    if (inject("redisUrl")) {
      // A complete index first, so the race is also between the two writes to it.
      redis = new Redis(inject("redisUrl"));
      const { period } = currentPeriod(await loadLeaderboard(project.projectId, id));
      const ready = indexKeys(project.projectId, id, period).ready;
      await getLeaderboardPage({ projectId: project.projectId, leaderboardId: id, offset: 0, limit: 1 });
      const deadline = Date.now() + 10_000;
      while ((await redis.exists(ready)) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await redis.exists(ready)).toBe(1);
    }
    let previous = 30;
    for (let round = 0; round < 15; round++) {
      const target = 1000 + round * 100;
      const [submitted, corrected] = await Promise.all([submit(id, racer, 7), set(id, racer.playerId, target, `round ${round}`)]);
      expect(submitted.status).toBe(200);
      const stored = (await truth(id)).find((e) => e.playerId === racer.playerId)?.score;
      // Either the submit came first (then the correction wins) or second (it adds 7 to the correction).
      expect([target, target + 7]).toContain(stored);
      expect(corrected.score).toBe(target);
      expect(await shown(id)).toEqual(await truth(id));
      expect(await counters(id)).toEqual({ total: 8, buckets: 8 });
      const mine = await getPlayerEntry({ projectId: project.projectId, leaderboardId: id, playerId: racer.playerId });
      expect(mine).toMatchObject({ rank: 1, score: stored });
      // The audit's "before" is exactly what the correction replaced: the submit's result when it came first.
      const audit = await prisma().auditEntry.findFirstOrThrow({
        where: { projectId: project.projectId, action: "leaderboard.entry.set", after: { path: ["reason"], equals: `round ${round}` } },
      });
      expect(audit.before).toMatchObject({ score: stored === target ? previous + 7 : previous });
      previous = stored ?? 0;
    }
    const audited = await prisma().auditEntry.count({
      where: { projectId: project.projectId, action: "leaderboard.entry.set", target: `${id}/${racer.playerId}` },
    });
    expect(audited).toBe(15);
  });
});
