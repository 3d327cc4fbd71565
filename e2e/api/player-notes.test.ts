import { beforeAll, describe, expect, it } from "vitest";
import { pool } from "@/server/db";
import type { SessionOperator } from "@/server/identity/operator";
import { createLeaderboard } from "@/server/services/leaderboards/definitions";
import { banPlayerAs, deletePlayerAs, unbanPlayerAs } from "@/server/services/players/commands";
import { api } from "../support/api";
import { anonymousPlayer, makeProject, type TestProject } from "../support/fixtures";
import { caller, ctx, newOperator, refusalCode, trpcRefusal } from "../support/operators";

/**
 * Support's notes and tags on a player through the tRPC router as the dashboard calls it: admins
 * write, viewers read, another project's player is not found, limits are refused with nothing
 * changed, each change is audited (a note by its id and length, never its text), the players
 * list filters by tag, and the player page reads the ban history from the audit log.
 */
type Team = { project: TestProject; owner: SessionOperator; admin: SessionOperator; viewer: SessionOperator };
let team: Team;
let other: TestProject;

async function newPlayer(project: TestProject = team.project): Promise<string> {
  return (await anonymousPlayer(project.clientKey)).playerId;
}

const auditOf = async (projectId: string, playerId: string) =>
  (
    await pool().query<{ action: string; before: unknown; after: unknown }>(
      "SELECT action, before, after FROM audit_log WHERE project_id = $1 AND target = $2 AND action LIKE 'player.%' ORDER BY id",
      [projectId, playerId],
    )
  ).rows;

beforeAll(async () => {
  const project = await makeProject();
  team = {
    project,
    owner: await newOperator("OWNER", project.projectId),
    admin: await newOperator("ADMIN", project.projectId),
    viewer: await newOperator("VIEWER", project.projectId),
  };
  other = await makeProject();
});

describe("player notes", () => {
  it("an admin adds a note; viewers read it with its author and time, newest first", async () => {
    const playerId = await newPlayer();
    const { projectId } = team.project;
    await caller(team.admin).support.addNote({ projectId, playerId, body: "Asked about a lost purchase." });
    const second = await caller(team.owner).support.addNote({ projectId, playerId, body: "  Refunded by hand.  " });
    expect(second.body).toBe("Refunded by hand.");
    const { notes } = await caller(team.viewer).support.player({ projectId, playerId });
    expect(notes.map((n) => [n.body, n.authorEmail])).toEqual([
      ["Refunded by hand.", team.owner.email],
      ["Asked about a lost purchase.", team.admin.email],
    ]);
    expect(notes[0]?.createdAt).toEqual(expect.any(String));
  });

  it("a note over 2,000 characters, or empty, is refused and nothing is stored", async () => {
    const playerId = await newPlayer();
    const { projectId } = team.project;
    const long = await trpcRefusal(caller(team.admin).support.addNote({ projectId, playerId, body: "x".repeat(2001) }));
    expect(long.appCode).toBe("VALIDATION_ERROR");
    expect((await trpcRefusal(caller(team.admin).support.addNote({ projectId, playerId, body: "   " }))).appCode).toBe("VALIDATION_ERROR");
    const exactly = await caller(team.admin).support.addNote({ projectId, playerId, body: "y".repeat(2000) });
    expect(exactly.body.length).toBe(2000);
    expect((await caller(team.viewer).support.player({ projectId, playerId })).notes).toHaveLength(1);
  });

  it("a viewer may not add or delete a note (FORBIDDEN)", async () => {
    const playerId = await newPlayer();
    const { projectId } = team.project;
    const note = await caller(team.admin).support.addNote({ projectId, playerId, body: "Kept." });
    expect((await trpcRefusal(caller(team.viewer).support.addNote({ projectId, playerId, body: "No." }))).code).toBe("FORBIDDEN");
    expect((await trpcRefusal(caller(team.viewer).support.deleteNote({ projectId, playerId, noteId: note.id }))).code).toBe("FORBIDDEN");
    expect((await caller(team.viewer).support.player({ projectId, playerId })).notes.map((n) => n.body)).toEqual(["Kept."]);
  });

  it("its author deletes their own note; another admin may not (FORBIDDEN); an owner deletes anyone's", async () => {
    const playerId = await newPlayer();
    const { projectId } = team.project;
    const otherAdmin = await newOperator("ADMIN", projectId);
    const mine = await caller(team.admin).support.addNote({ projectId, playerId, body: "Mine." });
    const theirs = await caller(otherAdmin).support.addNote({ projectId, playerId, body: "Theirs." });
    expect(await refusalCode(caller(team.admin).support.deleteNote({ projectId, playerId, noteId: theirs.id }))).toBe("FORBIDDEN");
    await caller(team.admin).support.deleteNote({ projectId, playerId, noteId: mine.id });
    await caller(team.owner).support.deleteNote({ projectId, playerId, noteId: theirs.id });
    expect((await caller(team.viewer).support.player({ projectId, playerId })).notes).toEqual([]);
  });

  it("another project's player, or a note of another player, is not found and nothing changes", async () => {
    const foreign = await newPlayer(other);
    const playerId = await newPlayer();
    const { projectId } = team.project;
    expect(await refusalCode(caller(team.admin).support.addNote({ projectId, playerId: foreign, body: "x" }))).toBe("PLAYER_NOT_FOUND");
    expect(await refusalCode(caller(team.viewer).support.player({ projectId, playerId: foreign }))).toBe("PLAYER_NOT_FOUND");
    expect(await refusalCode(caller(team.admin).support.setTags({ projectId, playerId: foreign, tags: ["vip"] }))).toBe("PLAYER_NOT_FOUND");
    const note = await caller(team.admin).support.addNote({ projectId, playerId, body: "Here." });
    const elsewhere = await newPlayer();
    expect(await refusalCode(caller(team.owner).support.deleteNote({ projectId, playerId: elsewhere, noteId: note.id }))).toBe("NOT_FOUND");
    const { rows } = await pool().query(
      "SELECT 1 FROM player_notes WHERE player_id = $1 UNION ALL SELECT 1 FROM player_tags WHERE player_id = $1",
      [foreign],
    );
    expect(rows).toEqual([]);
    expect((await caller(team.viewer).support.player({ projectId, playerId })).notes).toHaveLength(1);
  });

  it("adding and deleting are audited by the note's id and length, never its text", async () => {
    const playerId = await newPlayer();
    const { projectId } = team.project;
    const note = await caller(team.admin).support.addNote({ projectId, playerId, body: "Private: phone 555-0100." });
    await caller(team.admin).support.deleteNote({ projectId, playerId, noteId: note.id });
    const rows = await auditOf(projectId, playerId);
    expect(rows.map((r) => r.action)).toEqual(["player.note.add", "player.note.delete"]);
    expect(rows[0]?.after).toEqual({ noteId: note.id, chars: 24 });
    expect(rows[1]?.before).toMatchObject({ noteId: note.id, chars: 24 });
    expect(JSON.stringify(rows)).not.toContain("555-0100");
  });
});

describe("player tags", () => {
  it("an admin sets the tags (deduplicated, sorted, lowercased); the change is audited before → after", async () => {
    const playerId = await newPlayer();
    const { projectId } = team.project;
    await caller(team.admin).support.setTags({ projectId, playerId, tags: ["vip", "refund-2026"] });
    const saved = await caller(team.admin).support.setTags({ projectId, playerId, tags: ["VIP", "whale", "vip"] });
    expect(saved.tags).toEqual(["vip", "whale"]);
    expect((await caller(team.viewer).support.player({ projectId, playerId })).tags).toEqual(["vip", "whale"]);
    const rows = (await auditOf(projectId, playerId)).filter((r) => r.action === "player.tags");
    expect(rows.map((r) => [r.before, r.after])).toEqual([
      [{ tags: [] }, { tags: ["refund-2026", "vip"] }],
      [{ tags: ["refund-2026", "vip"] }, { tags: ["vip", "whale"] }],
    ]);
  });

  it("a malformed tag or more than 20 tags is refused and the tags stay as they were", async () => {
    const playerId = await newPlayer();
    const { projectId } = team.project;
    await caller(team.admin).support.setTags({ projectId, playerId, tags: ["keep"] });
    for (const tags of [["has space"], ["a".repeat(33)], ["ünïcode"], Array.from({ length: 21 }, (_, i) => `t${i}`)])
      expect((await trpcRefusal(caller(team.admin).support.setTags({ projectId, playerId, tags }))).appCode).toBe("VALIDATION_ERROR");
    const twenty = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(2, "0")}`);
    expect((await caller(team.admin).support.setTags({ projectId, playerId, tags: twenty })).tags).toHaveLength(20);
    await caller(team.admin).support.setTags({ projectId, playerId, tags: ["keep"] });
    expect((await caller(team.viewer).support.player({ projectId, playerId })).tags).toEqual(["keep"]);
  });

  it("a viewer may not change tags (FORBIDDEN)", async () => {
    const playerId = await newPlayer();
    const { projectId } = team.project;
    expect((await trpcRefusal(caller(team.viewer).support.setTags({ projectId, playerId, tags: ["x"] }))).code).toBe("FORBIDDEN");
    expect((await caller(team.viewer).support.player({ projectId, playerId })).tags).toEqual([]);
  });

  it("the players list filters by a tag; the tag list counts players per tag in this project only", async () => {
    const project = await makeProject();
    const { projectId } = project;
    const owner = await newOperator("OWNER", projectId);
    const [a, b, c] = [await newPlayer(project), await newPlayer(project), await newPlayer(project)];
    await caller(owner).support.setTags({ projectId, playerId: a, tags: ["vip", "cheater-suspect"] });
    await caller(owner).support.setTags({ projectId, playerId: b, tags: ["vip"] });
    await caller(owner).support.setTags({ projectId, playerId: c, tags: [] });
    const foreign = await newPlayer(other);
    const otherOwner = await newOperator("OWNER", other.projectId);
    await caller(otherOwner).support.setTags({ projectId: other.projectId, playerId: foreign, tags: ["vip"] });
    expect(await caller(owner).support.tags({ projectId })).toEqual([
      { tag: "cheater-suspect", players: 1 },
      { tag: "vip", players: 2 },
    ]);
    const vip = await caller(owner).players.search({ projectId, tag: "vip" });
    expect(vip.players.map((p) => p.id).sort()).toEqual([a, b].sort());
    expect((await caller(owner).players.count({ projectId, tag: "vip" })).total).toBe(2);
    expect((await caller(owner).players.count({ projectId, tag: "cheater-suspect" })).total).toBe(1);
    expect((await caller(owner).players.count({ projectId, tag: "nobody" })).total).toBe(0);
  });

  it("notes and tags go with the player when it is deleted", async () => {
    const playerId = await newPlayer();
    const { projectId } = team.project;
    await caller(team.admin).support.addNote({ projectId, playerId, body: "Gone soon." });
    await caller(team.admin).support.setTags({ projectId, playerId, tags: ["gone"] });
    await deletePlayerAs(ctx(team.owner), { projectId, playerId });
    const { rows } = await pool().query(
      "SELECT 1 FROM player_notes WHERE player_id = $1 UNION ALL SELECT 1 FROM player_tags WHERE player_id = $1",
      [playerId],
    );
    expect(rows).toEqual([]);
  });
});

describe("the player page's support read", () => {
  it("lists the ban history from the audit log: who, when, reason and until, newest first", async () => {
    const playerId = await newPlayer();
    const { projectId } = team.project;
    const until = new Date(Date.now() + 86_400_000).toISOString();
    await banPlayerAs(ctx(team.admin), { projectId, playerId, reason: "speed hack", until });
    await unbanPlayerAs(ctx(team.owner), { projectId, playerId });
    await banPlayerAs(ctx(team.owner), { projectId, playerId, reason: "chargeback" });
    const { banHistory } = await caller(team.viewer).support.player({ projectId, playerId });
    expect(banHistory.map((b) => [b.action, b.operatorEmail, b.reason, b.until])).toEqual([
      ["player.ban", team.owner.email, "chargeback", null],
      ["player.unban", team.owner.email, null, null],
      ["player.ban", team.admin.email, "speed hack", until],
    ]);
  });

  it("shows the last sign-in as last seen when no activity was recorded, and the board entries with rank and period", async () => {
    const project = await makeProject();
    const owner = await newOperator("OWNER", project.projectId);
    const player = await anonymousPlayer(project.clientKey);
    await createLeaderboard({
      projectId: project.projectId,
      input: { id: "weekly", name: "Weekly", sortOrder: "desc", operator: "best", clientWritable: true },
    });
    for (const [p, score] of [
      [await anonymousPlayer(project.clientKey), 900],
      [player, 500],
    ] as const) {
      const res = await api("POST", "/api/v1/leaderboards/weekly/scores", {
        key: project.clientKey,
        token: p.accessToken,
        body: { score },
      });
      expect(res.status, res.text).toBe(200);
    }
    const support = await caller(owner).support.player({ projectId: project.projectId, playerId: player.playerId });
    expect(support.lastSeenAt).toEqual(expect.any(String));
    expect(support.boards).toEqual([
      expect.objectContaining({ leaderboardId: "weekly", name: "Weekly", score: 500, rank: 2, period: expect.any(String) }),
    ]);
  });
});
