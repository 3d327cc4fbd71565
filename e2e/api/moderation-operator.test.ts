import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { pool } from "@/server/db";
import type { SessionOperator } from "@/server/identity/operator";
import { createLeaderboard } from "@/server/services/leaderboards/definitions";
import { reportPlayer } from "@/server/services/reports";
import { api } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";
import { caller, newOperator, trpcRefusal } from "../support/operators";

/**
 * The moderation queue as the dashboard calls it (tRPC): open reports grouped by reported player,
 * one player's file, and the actions that answer reports — each closing the player's open
 * reports with its resolution, audited. Reports are filed through the same service the game's
 * POST /players/{id}/report calls, with chosen times so the queue's order is known.
 */
let project: TestProject;
let admin: SessionOperator;
let viewer: SessionOperator;

beforeAll(async () => {
  project = await makeProject();
  admin = await newOperator("ADMIN", project.projectId);
  viewer = await newOperator("VIEWER", project.projectId);
});

const newPlayer = () => anonymousPlayer(project.clientKey);
const file = (by: TestPlayer, target: TestPlayer, reason: string, o: { note?: string; at?: Date; projectId?: string } = {}) =>
  reportPlayer({
    actor: { kind: "player", projectId: o.projectId ?? project.projectId, playerId: by.playerId, via: "token" },
    targetId: target.playerId,
    reason,
    ...(o.note ? { note: o.note } : {}),
    ...(o.at ? { now: o.at } : {}),
  });
const reportsOf = async (target: TestPlayer) =>
  (
    await pool().query<{ status: string; resolution: string | null }>(
      "SELECT status, resolution FROM player_reports WHERE target_id = $1 ORDER BY created_at",
      [target.playerId],
    )
  ).rows;
const auditOf = async (target: TestPlayer) =>
  (
    await pool().query<{ action: string; after: unknown }>(
      "SELECT action, after FROM audit_log WHERE project_id = $1 AND target = $2 ORDER BY id",
      [project.projectId, target.playerId],
    )
  ).rows;
/** A project of its own, so the queue holds only what the test filed. */
async function ownQueue() {
  const own = await makeProject();
  const owner = await newOperator("ADMIN", own.projectId);
  const players = await Promise.all(Array.from({ length: 5 }, () => anonymousPlayer(own.clientKey)));
  return { own, owner, players };
}

describe("the moderation queue", () => {
  it("groups open reports by reported player with the count, reasons, reporters and latest note, newest first", async () => {
    const { own, owner, players } = await ownQueue();
    const [a, b, c, cheater, spammer] = players as [TestPlayer, TestPlayer, TestPlayer, TestPlayer, TestPlayer];
    const t = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000);
    const at = { projectId: own.projectId };
    await file(a, cheater, "cheating", { ...at, note: "Impossible times", at: t(30) });
    await file(b, cheater, "cheating", { ...at, at: t(20) });
    await file(c, cheater, "abuse", { ...at, note: "Insults in chat", at: t(10) });
    await file(a, spammer, "spam", { ...at, at: t(5) });
    const { groups } = await caller(owner).moderation.queue({ projectId: own.projectId });
    expect(groups.map((g) => g.playerId)).toEqual([spammer.playerId, cheater.playerId]);
    expect(groups[1]).toMatchObject({
      reports: 3,
      reporters: 3,
      reasons: [
        { reason: "cheating", count: 2 },
        { reason: "abuse", count: 1 },
      ],
      latestNote: "Insults in chat",
      banned: false,
    });
  });

  it("puts the most-reported player first when asked, and filters by reason", async () => {
    const { own, owner, players } = await ownQueue();
    const [a, b, cheater, spammer] = players as [TestPlayer, TestPlayer, TestPlayer, TestPlayer];
    const at = { projectId: own.projectId };
    await file(a, cheater, "cheating", { ...at, at: new Date(Date.now() - 60_000) });
    await file(b, cheater, "cheating", { ...at, at: new Date(Date.now() - 50_000) });
    await file(a, spammer, "spam", at);
    const most = await caller(owner).moderation.queue({ projectId: own.projectId, sort: "most" });
    expect(most.groups.map((g) => g.playerId)).toEqual([cheater.playerId, spammer.playerId]);
    const spam = await caller(owner).moderation.queue({ projectId: own.projectId, reason: "spam" });
    expect(spam.groups.map((g) => g.playerId)).toEqual([spammer.playerId]);
  });

  it("shows a player's file: their reports, recent board entries, ban state and ban history", async () => {
    const [reporter, target] = [await newPlayer(), await newPlayer()];
    const board = `m-${randomBytes(3).toString("hex")}`;
    await createLeaderboard({ projectId: project.projectId, input: { id: board, name: "Speedrun", sortOrder: "asc", operator: "best" } });
    const sent = await api("POST", `/api/v1/leaderboards/${board}/scores`, {
      key: project.clientKey,
      token: target.accessToken,
      body: { score: 1.5 },
    });
    expect(sent.status, sent.text).toBe(200);
    await file(reporter, target, "cheating", { note: "1.5 s is not possible" });
    await caller(admin).players.ban({ projectId: project.projectId, playerId: target.playerId, reason: "earlier offence" });
    await caller(admin).players.unban({ projectId: project.projectId, playerId: target.playerId });
    const detail = await caller(viewer).moderation.player({ projectId: project.projectId, playerId: target.playerId });
    expect(detail.player).toMatchObject({ id: target.playerId, ban: null });
    expect(detail.reports).toEqual([
      expect.objectContaining({ reporterId: reporter.playerId, reason: "cheating", note: "1.5 s is not possible", status: "open" }),
    ]);
    expect(detail.entries).toEqual([
      expect.objectContaining({ leaderboardId: board, leaderboardName: "Speedrun", score: 1.5, current: true }),
    ]);
    expect(detail.banHistory.map((b) => [b.action, b.reason, b.by])).toEqual([
      ["unban", null, admin.email],
      ["ban", "earlier offence", admin.email],
    ]);
  });
});

describe("acting on reports", () => {
  it("dismiss closes the player's open reports as dismissed, audited, and the queue no longer lists them", async () => {
    const [a, b, target] = [await newPlayer(), await newPlayer(), await newPlayer()];
    await file(a, target, "spam");
    await file(b, target, "other");
    const { closed } = await caller(admin).moderation.dismiss({
      projectId: project.projectId,
      playerId: target.playerId,
      note: "Not spam",
    });
    expect(closed).toBe(2);
    expect(await reportsOf(target)).toEqual([
      { status: "resolved", resolution: "dismissed" },
      { status: "resolved", resolution: "dismissed" },
    ]);
    expect(await auditOf(target)).toEqual([
      { action: "moderation.dismiss", after: { resolution: "dismissed", closed: 2, note: "Not spam" } },
    ]);
    const { groups } = await caller(admin).moderation.queue({ projectId: project.projectId, limit: 100 });
    expect(groups.map((g) => g.playerId)).not.toContain(target.playerId);
  });

  it("warn writes the private data key moderation.warning the player reads with their token, and closes the reports as warned", async () => {
    const [a, target] = [await newPlayer(), await newPlayer()];
    await file(a, target, "offensive_name");
    await caller(admin).moderation.warn({ projectId: project.projectId, playerId: target.playerId, reason: "Change your name" });
    const res = await api<{ value: { reason: string; at: string }; visibility: string }>(
      "GET",
      "/api/v1/players/me/data/moderation.warning",
      { key: project.clientKey, token: target.accessToken },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ value: { reason: "Change your name", at: expect.any(String) }, visibility: "private" });
    expect(await reportsOf(target)).toEqual([{ status: "resolved", resolution: "warned" }]);
    expect((await auditOf(target)).map((r) => r.action)).toEqual(["moderation.warn"]);
    const detail = await caller(viewer).moderation.player({ projectId: project.projectId, playerId: target.playerId });
    expect(detail.warning).toMatchObject({ reason: "Change your name" });
  });

  it("ban bans the player through the players' ban (audited as player.ban) and closes the reports as banned", async () => {
    const [a, target] = [await newPlayer(), await newPlayer()];
    await file(a, target, "cheating");
    const { ban, closed } = await caller(admin).moderation.ban({
      projectId: project.projectId,
      playerId: target.playerId,
      reason: "Speed hack",
    });
    expect(closed).toBe(1);
    expect(ban).toMatchObject({ playerId: target.playerId, banReason: "Speed hack" });
    expect(await reportsOf(target)).toEqual([{ status: "resolved", resolution: "banned" }]);
    expect((await auditOf(target)).map((r) => r.action)).toEqual(["player.ban", "moderation.ban"]);
    const detail = await caller(viewer).moderation.player({ projectId: project.projectId, playerId: target.playerId });
    expect(detail.player.ban).toMatchObject({ reason: "Speed hack", until: null });
  });

  it("remove entries takes the player off the current period of every board (one audited removal each) and closes the reports", async () => {
    const [a, target] = [await newPlayer(), await newPlayer()];
    const boards = [`r-${randomBytes(3).toString("hex")}`, `r-${randomBytes(3).toString("hex")}`];
    for (const id of boards) {
      await createLeaderboard({ projectId: project.projectId, input: { id, name: id, sortOrder: "desc", operator: "best" } });
      const sent = await api("POST", `/api/v1/leaderboards/${id}/scores`, {
        key: project.clientKey,
        token: target.accessToken,
        body: { score: 9e6 },
      });
      expect(sent.status, sent.text).toBe(200);
    }
    await file(a, target, "cheating");
    const result = await caller(admin).moderation.removeEntries({ projectId: project.projectId, playerId: target.playerId });
    expect(result).toEqual({ removed: 2, closed: 1 });
    const left = await pool().query("SELECT 1 FROM leaderboard_entries WHERE player_id = $1", [target.playerId]);
    expect(left.rowCount).toBe(0);
    expect(await reportsOf(target)).toEqual([{ status: "resolved", resolution: "entries_removed" }]);
    const removals = await pool().query(
      "SELECT target FROM audit_log WHERE project_id = $1 AND action = 'leaderboard.entry.remove' AND target LIKE $2",
      [project.projectId, `%/${target.playerId}`],
    );
    expect(removals.rowCount).toBe(2);
  });

  it("a viewer reads the queue but every action is FORBIDDEN and changes nothing", async () => {
    const [a, target] = [await newPlayer(), await newPlayer()];
    await file(a, target, "abuse");
    const ref = { projectId: project.projectId, playerId: target.playerId };
    await caller(viewer).moderation.queue({ projectId: project.projectId });
    const refusals = [
      await trpcRefusal(caller(viewer).moderation.dismiss(ref)),
      await trpcRefusal(caller(viewer).moderation.warn({ ...ref, reason: "x" })),
      await trpcRefusal(caller(viewer).moderation.ban({ ...ref, reason: "x" })),
      await trpcRefusal(caller(viewer).moderation.removeEntries(ref)),
      await trpcRefusal(caller(viewer).moderation.setReasons({ projectId: project.projectId, reasons: ["x"] })),
    ];
    expect(refusals.map((r) => r.code)).toEqual(["FORBIDDEN", "FORBIDDEN", "FORBIDDEN", "FORBIDDEN", "FORBIDDEN"]);
    expect(await reportsOf(target)).toEqual([{ status: "open", resolution: null }]);
    expect(await auditOf(target)).toEqual([]);
  });

  it("another project's player is NOT_FOUND (PLAYER_NOT_FOUND) to read or act on, and their reports stay open", async () => {
    const other = await makeProject();
    const [a, target] = [await anonymousPlayer(other.clientKey), await anonymousPlayer(other.clientKey)];
    await file(a, target, "cheating", { projectId: other.projectId });
    const ref = { projectId: project.projectId, playerId: target.playerId };
    const read = await trpcRefusal(caller(admin).moderation.player(ref));
    const dismissed = await trpcRefusal(caller(admin).moderation.dismiss(ref));
    expect([read.appCode, dismissed.appCode]).toEqual(["PLAYER_NOT_FOUND", "PLAYER_NOT_FOUND"]);
    expect(await reportsOf(target)).toEqual([{ status: "open", resolution: null }]);
  });
});

describe("report reasons", () => {
  it("start as the defaults; an admin's new list is audited with before and after", async () => {
    const { own, owner } = await ownQueue();
    expect((await caller(owner).moderation.reasons({ projectId: own.projectId })).reasons).toEqual([
      "cheating",
      "abuse",
      "offensive_name",
      "spam",
      "other",
    ]);
    await caller(owner).moderation.setReasons({ projectId: own.projectId, reasons: ["cheating", "griefing"] });
    expect((await caller(owner).moderation.reasons({ projectId: own.projectId })).reasons).toEqual(["cheating", "griefing"]);
    const { rows } = await pool().query("SELECT before, after FROM audit_log WHERE project_id = $1 AND action = 'moderation.reasons'", [
      own.projectId,
    ]);
    expect(rows).toEqual([
      { before: { reasons: ["cheating", "abuse", "offensive_name", "spam", "other"] }, after: { reasons: ["cheating", "griefing"] } },
    ]);
  });

  it("refuse a list with a reason twice or a malformed reason, changing nothing", async () => {
    const { own, owner } = await ownQueue();
    const twice = await trpcRefusal(caller(owner).moderation.setReasons({ projectId: own.projectId, reasons: ["spam", "spam"] }));
    const malformed = await trpcRefusal(caller(owner).moderation.setReasons({ projectId: own.projectId, reasons: ["Bad Reason"] }));
    expect([twice.appCode, malformed.appCode]).toEqual(["VALIDATION_ERROR", "VALIDATION_ERROR"]);
    expect((await caller(owner).moderation.reasons({ projectId: own.projectId })).reasons).toContain("spam");
  });
});
