import { randomBytes, randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { pool, prisma } from "@/server/db";
import type { SessionOperator } from "@/server/identity/operator";
import { removeEntriesAs } from "@/server/services/leaderboards/commands";
import { createLeaderboard, loadLeaderboard, resetLeaderboard } from "@/server/services/leaderboards/definitions";
import { currentPeriod, getPeriodPage, submitScore } from "@/server/services/leaderboards/entries";
import { hiddenEntriesAs } from "@/server/services/leaderboards/operator";
import { indexRange, rebuildIndexNow } from "@/server/services/leaderboards/rank-index";
import type { CreateLeaderboard, Entry } from "@/server/services/leaderboards/schemas";
import { announceEndedBans } from "@/server/services/players/ban-expiry";
import { banPlayerAs, deletePlayerAs, exportPlayerAs, unbanPlayerAs } from "@/server/services/players/commands";
import { api, expectError } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";
import { caller, ctx, newOperator, refusalCode } from "../support/operators";

/**
 * A ban hides the player's entries from every board and period at once (pages, own ranks,
 * around-me, counts), an unban or the end of a timed ban puts them back where they were, a ban
 * can remove them for good, and operators remove selected entries in one audited command. Over
 * HTTP for what games read; operator services in-process as the dashboard calls them.
 */
type Page = { total: number; entries: Entry[] };
type Mine = Entry & { above?: Entry[]; below?: Entry[] };

let project: TestProject;
let admin: SessionOperator;
let viewer: SessionOperator;

beforeAll(async () => {
  project = await makeProject();
  admin = await newOperator("ADMIN", project.projectId);
  viewer = await newOperator("VIEWER", project.projectId);
});

async function board(input: Omit<CreateLeaderboard, "id" | "name"> = { sortOrder: "desc", operator: "best" }): Promise<string> {
  const id = `h-${randomBytes(4).toString("hex")}`;
  await createLeaderboard({ projectId: project.projectId, input: { id, name: id, ...input } });
  return id;
}
const players = async (n: number) => {
  const made: TestPlayer[] = [];
  for (let i = 0; i < n; i++) made.push(await anonymousPlayer(project.clientKey));
  return made;
};
/** A score through the server key as the player (works for a player whose sessions a ban ended). */
const submit = (id: string, playerId: string, score: number) =>
  api<Entry>("POST", `/api/v1/leaderboards/${id}/scores`, {
    key: project.serverKey,
    headers: { "X-Player-Id": playerId },
    body: { score },
  });
async function scores(id: string, ps: TestPlayer[], values: number[]) {
  for (const [i, value] of values.entries()) {
    const res = await submit(id, (ps[i] as TestPlayer).playerId, value);
    expect(res.status, res.text).toBe(200);
  }
}
const page = async (id: string) => {
  const res = await api<Page>("GET", `/api/v1/leaderboards/${id}?limit=100`, { key: project.clientKey });
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const mine = (id: string, playerId: string, range?: number) =>
  api<Mine>("GET", `/api/v1/leaderboards/${id}/player${range ? `?range=${range}` : ""}`, {
    key: project.serverKey,
    headers: { "X-Player-Id": playerId },
  });
const ranks = (p: Page) => p.entries.map((e) => [e.playerId, e.rank, e.score]);
const ban = (playerId: string, extra: { until?: string; removeEntries?: boolean } = {}) =>
  banPlayerAs(ctx(admin), { projectId: project.projectId, playerId, reason: "aimbot", ...extra });
const unban = (playerId: string) => unbanPlayerAs(ctx(admin), { projectId: project.projectId, playerId });
const hiddenRows = async (playerId: string) =>
  (await pool().query("SELECT leaderboard_id, period FROM leaderboard_hidden_entries WHERE player_id = $1", [playerId])).rowCount;
const periodCount = async (id: string) => {
  const { period } = currentPeriod(await loadLeaderboard(project.projectId, id));
  const { rows } = await pool().query<{ entries: number }>(
    "SELECT entries FROM leaderboard_periods WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3",
    [project.projectId, id, period],
  );
  return rows[0]?.entries ?? 0;
};

describe("a ban hides the player's entries", () => {
  it("the page, the total and the others' ranks skip the banned player on every board at once", async () => {
    const [a, b] = [await board(), await board({ sortOrder: "asc", operator: "best" })];
    const ps = await players(4);
    const cheater = ps[0] as TestPlayer;
    await scores(a, ps, [900, 300, 200, 100]);
    await scores(b, ps, [1, 5, 6, 7]);

    const banned = await ban(cheater.playerId);

    expect(banned.entries).toEqual({ hidden: 2, removed: 0 });
    for (const id of [a, b]) {
      const p = await page(id);
      expect(p.total).toBe(3);
      expect(p.entries.map((e) => e.playerId)).not.toContain(cheater.playerId);
      expect(p.entries.map((e) => e.rank)).toEqual([1, 2, 3]);
      expect(await periodCount(id)).toBe(3);
    }
    const second = await mine(a, (ps[1] as TestPlayer).playerId, 1);
    expect(second.status, second.text).toBe(200);
    expect(second.body.rank).toBe(1);
    expect(second.body.above).toEqual([]);
  });

  it("around-me of a neighbour skips the banned player", async () => {
    const id = await board();
    const ps = await players(3);
    await scores(id, ps, [300, 200, 100]);
    await ban((ps[1] as TestPlayer).playerId);

    const res = await mine(id, (ps[2] as TestPlayer).playerId, 1);

    expect(res.status, res.text).toBe(200);
    expect(res.body.rank).toBe(2);
    expect(res.body.above?.map((e) => [e.playerId, e.rank])).toEqual([[(ps[0] as TestPlayer).playerId, 1]]);
  });

  it("archived periods hide the entry too", async () => {
    const id = await board();
    const ps = await players(2);
    await scores(id, ps, [50, 40]);
    const archived = currentPeriod(await loadLeaderboard(project.projectId, id)).period;
    await resetLeaderboard({ projectId: project.projectId, id });

    await ban((ps[0] as TestPlayer).playerId);

    const p = await getPeriodPage({ projectId: project.projectId, leaderboardId: id, period: archived, offset: 0, limit: 10 });
    expect(p.entries.map((e) => [e.playerId, e.rank])).toEqual([[(ps[1] as TestPlayer).playerId, 1]]);
  });

  it("unban restores identical ranks, scores and tie-breaks", async () => {
    const id = await board();
    const ps = await players(4);
    // The cheater reached 500 first: ahead of the other 500 by the tie-break.
    await scores(id, ps, [500, 500, 300, 100]);
    const before = ranks(await page(id));

    await ban((ps[0] as TestPlayer).playerId);
    expect((await page(id)).entries[0]?.playerId).toBe((ps[1] as TestPlayer).playerId);
    const lifted = await unban((ps[0] as TestPlayer).playerId);

    expect(lifted.entries).toEqual({ restored: 1, keptNewer: 0 });
    expect(ranks(await page(id))).toEqual(before);
    expect(await periodCount(id)).toBe(4);
    expect(await hiddenRows((ps[0] as TestPlayer).playerId)).toBe(0);
    const own = await mine(id, (ps[0] as TestPlayer).playerId);
    expect(own.status, own.text).toBe(200);
    expect(own.body.rank).toBe(1);
  });

  it("the end of a timed ban (the expiry job, clock injected) puts the entries back", async () => {
    const id = await board();
    const ps = await players(3);
    await scores(id, ps, [30, 20, 10]);
    const before = ranks(await page(id));
    const until = new Date(Date.now() + 60 * 60_000);
    await ban((ps[0] as TestPlayer).playerId, { until: until.toISOString() });
    expect((await page(id)).total).toBe(2);

    await announceEndedBans({ now: new Date(until.getTime() + 1) });

    expect(ranks(await page(id))).toEqual(before);
    expect(await hiddenRows((ps[0] as TestPlayer).playerId)).toBe(0);
  });

  it("restoring keeps the better of a hidden entry and one made after the ban ran out, per board", async () => {
    const [kept, replaced] = [await board(), await board()];
    const [p, other] = (await players(2)) as [TestPlayer, TestPlayer];
    await scores(kept, [p, other], [100, 50]);
    await scores(replaced, [p, other], [100, 50]);
    await ban(p.playerId, { until: new Date(Date.now() + 60 * 60_000).toISOString() });
    // The ban runs out before the job has run: the game lets the player play, and submit.
    await pool().query("UPDATE players SET banned_until = now() - interval '1 second' WHERE id = $1", [p.playerId]);
    expect((await submit(kept, p.playerId, 150)).status).toBe(200);
    expect((await submit(replaced, p.playerId, 10)).status).toBe(200);

    await announceEndedBans();

    expect((await page(kept)).entries.map((e) => [e.playerId, e.score])).toEqual([
      [p.playerId, 150],
      [other.playerId, 50],
    ]);
    expect((await page(replaced)).entries.map((e) => [e.playerId, e.score])).toEqual([
      [p.playerId, 100],
      [other.playerId, 50],
    ]);
    expect(await periodCount(kept)).toBe(2);
    expect(await periodCount(replaced)).toBe(2);
  });
});

describe("a banned player's scores", () => {
  it("a server key's submit as the banned player is refused and creates no entry", async () => {
    const id = await board();
    const [p] = (await players(1)) as [TestPlayer];
    await ban(p.playerId);

    const res = await submit(id, p.playerId, 10);

    expectError(res, 403, "PLAYER_BANNED");
    expect((await page(id)).total).toBe(0);
  });

  it("a submit already past its checks when the ban commits is refused by Postgres (PLAYER_BANNED), not shown", async () => {
    const id = await board();
    const [p] = (await players(1)) as [TestPlayer];
    await ban(p.playerId);

    const refused = await refusalCode(
      submitScore({
        actor: { kind: "player", projectId: project.projectId, playerId: p.playerId, via: "server-key" },
        leaderboardId: id,
        score: 5,
      }),
    );

    expect(refused).toBe("PLAYER_BANNED");
    expect((await page(id)).total).toBe(0);
    expect(await periodCount(id)).toBe(0);
  });
});

describe("removing entries for good", () => {
  it("a ban with removeEntries deletes visible and already hidden entries, audited with the count; unban brings none back", async () => {
    const [a, b] = [await board(), await board()];
    const [p, other] = (await players(2)) as [TestPlayer, TestPlayer];
    await scores(a, [p, other], [10, 5]);
    await scores(b, [p, other], [10, 5]);
    await ban(p.playerId);

    const banned = await ban(p.playerId, { removeEntries: true });

    expect(banned.entries).toEqual({ hidden: 0, removed: 2 });
    expect(await hiddenRows(p.playerId)).toBe(0);
    const audit = await prisma().auditEntry.findFirst({
      where: { projectId: project.projectId, action: "player.ban", target: p.playerId },
      orderBy: { id: "desc" },
    });
    expect(audit?.after).toMatchObject({ reason: "aimbot", entries: { hidden: 0, removed: 2 } });
    expect((await unban(p.playerId)).entries).toEqual({ restored: 0, keptNewer: 0 });
    expect((await page(a)).entries.map((e) => e.playerId)).toEqual([other.playerId]);
  });

  it("a bulk ban with removeEntries deletes each selected player's entries for good and leaves the others'", async () => {
    const id = await board();
    const [p1, p2, other] = (await players(3)) as [TestPlayer, TestPlayer, TestPlayer];
    await scores(id, [p1, p2, other], [30, 20, 10]);
    const outcomes = await caller(admin).players.bulkBan({
      projectId: project.projectId,
      playerIds: [p1.playerId, p2.playerId],
      batch: randomUUID(),
      reason: "aimbot",
      removeEntries: true,
    });
    expect(outcomes.map((o) => o.outcome)).toEqual(["done", "done"]);
    expect((await page(id)).entries.map((e) => e.playerId)).toEqual([other.playerId]);
    expect([await hiddenRows(p1.playerId), await hiddenRows(p2.playerId)]).toEqual([0, 0]);
    expect((await unban(p1.playerId)).entries).toEqual({ restored: 0, keptNewer: 0 });
  });

  it("removeEntriesAs removes the selected entries, visible and hidden, in one audit row with the reason", async () => {
    const id = await board();
    const ps = await players(4);
    await scores(id, ps, [40, 30, 20, 10]);
    const [hidden, visible, kept] = [ps[0], ps[1], ps[2]] as TestPlayer[];
    await ban((hidden as TestPlayer).playerId);

    const done = await removeEntriesAs(ctx(admin), {
      projectId: project.projectId,
      id,
      playerIds: [(hidden as TestPlayer).playerId, (visible as TestPlayer).playerId],
      reason: "botting ring",
    });

    expect(done.removed).toBe(2);
    expect(done.hidden).toEqual([(hidden as TestPlayer).playerId]);
    expect(done.visible).toEqual([(visible as TestPlayer).playerId]);
    const p = await page(id);
    expect(p.entries.map((e) => [e.playerId, e.rank])).toEqual([
      [(kept as TestPlayer).playerId, 1],
      [(ps[3] as TestPlayer).playerId, 2],
    ]);
    const audit = await prisma().auditEntry.findFirst({
      where: { projectId: project.projectId, action: "leaderboard.entries.remove", target: id },
    });
    expect(audit?.after).toMatchObject({ reason: "botting ring", hidden: done.hidden, visible: done.visible });
    expect(await hiddenRows((hidden as TestPlayer).playerId)).toBe(0);
  });

  it("removeEntriesAs refuses more than 100 players and a viewer, changing nothing", async () => {
    const id = await board();
    const [p] = (await players(1)) as [TestPlayer];
    await scores(id, [p], [10]);
    const many = Array.from({ length: 101 }, (_, i) => `00000000-0000-7000-8000-${String(i).padStart(12, "0")}`);

    const tooMany = await refusalCode(removeEntriesAs(ctx(admin), { projectId: project.projectId, id, playerIds: many, reason: "x" }));
    const byViewer = await refusalCode(
      removeEntriesAs(ctx(viewer), { projectId: project.projectId, id, playerIds: [p.playerId], reason: "x" }),
    );

    expect(tooMany).toBe("VALIDATION_ERROR");
    expect(byViewer).toBe("FORBIDDEN");
    expect((await page(id)).total).toBe(1);
  });
});

describe("the operator's view and the player's data", () => {
  it("the board's hidden entries are listed with the ban's reason", async () => {
    const id = await board();
    const [p, other] = (await players(2)) as [TestPlayer, TestPlayer];
    await scores(id, [p, other], [99, 1]);
    await ban(p.playerId);

    const hidden = await hiddenEntriesAs(ctx(viewer), { projectId: project.projectId, id, limit: 100 });

    expect(hidden.total).toBe(1);
    expect(hidden.entries).toEqual([expect.objectContaining({ playerId: p.playerId, score: 99, reason: "aimbot", bannedUntil: null })]);
  });

  it("the player's export lists hidden entries as hidden; deleting the player deletes them", async () => {
    const id = await board();
    const [p] = (await players(1)) as [TestPlayer];
    await scores(id, [p], [77]);
    await ban(p.playerId);

    const exported = await exportPlayerAs(ctx(admin), { projectId: project.projectId, playerId: p.playerId });
    expect(exported.leaderboardEntries).toEqual([expect.objectContaining({ leaderboardId: id, score: 77, hidden: true })]);

    await deletePlayerAs(ctx(admin), { projectId: project.projectId, playerId: p.playerId });
    expect(await hiddenRows(p.playerId)).toBe(0);
  });

  it("a player of another project is PLAYER_NOT_FOUND and nothing is hidden", async () => {
    const elsewhere = await makeProject();
    const stranger = await anonymousPlayer(elsewhere.clientKey);
    const id = await board();
    const [p] = (await players(1)) as [TestPlayer];
    await scores(id, [p], [5]);

    expect(await refusalCode(ban(stranger.playerId))).toBe("PLAYER_NOT_FOUND");
    expect(await refusalCode(unban(stranger.playerId))).toBe("PLAYER_NOT_FOUND");
    expect((await prisma().player.findUniqueOrThrow({ where: { id: stranger.playerId } })).bannedAt).toBeNull();
    expect((await page(id)).total).toBe(1);
  });
});

describe("the rank index", () => {
  it("agrees with Postgres after a ban and after the unban", async () => {
    const id = await board();
    const ps = await players(5);
    await scores(id, ps, [50, 40, 40, 20, 10]);
    const { period } = currentPeriod(await loadLeaderboard(project.projectId, id));
    // The rebuild's own connection opens on this first use and is waited for; retried only while
    // another process's rebuild of the same index holds its lock.
    await expect.poll(() => rebuildIndexNow(project.projectId, id, period), { timeout: 20_000 }).toBe(true);
    const fromPostgres = async () =>
      (
        await pool().query<{ player_id: string }>(
          "SELECT player_id FROM leaderboard_entries WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3 ORDER BY sort_key, seq",
          [project.projectId, id, period],
        )
      ).rows.map((r) => r.player_id);
    const fromIndex = async () => (await indexRange(project.projectId, id, period, 0, 99))?.playerIds;

    await ban((ps[1] as TestPlayer).playerId);
    expect(await fromIndex()).toEqual(await fromPostgres());
    expect(await fromIndex()).toHaveLength(4);

    await unban((ps[1] as TestPlayer).playerId);
    expect(await fromIndex()).toEqual(await fromPostgres());
    expect(await fromIndex()).toEqual(ps.map((p) => p.playerId));
  });
});
