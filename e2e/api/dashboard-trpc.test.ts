import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import type { SessionOperator } from "@/server/identity/operator";
import { appRouter } from "@/server/trpc/router";
import { api } from "../support/api";
import { anonymousPlayer, makeProject, type TestProject } from "../support/fixtures";
import { caller, newOperator, trpcRefusal } from "../support/operators";

/**
 * The dashboard's procedures called as the browser would reach them, through tRPC's caller:
 * every role check happens on the server, whatever the UI shows.
 */

let project: TestProject;
let playerId: string;
beforeAll(async () => {
  project = await makeProject();
  playerId = (await anonymousPlayer(project.clientKey)).playerId;
});

describe("dashboard procedures: roles are checked on the server", () => {
  it("signed out: UNAUTHORIZED", async () => {
    expect(await trpcRefusal(caller(null).projects.list())).toMatchObject({ code: "UNAUTHORIZED", appCode: "MISSING_TOKEN" });
  });

  it("a viewer reads; a ban, a new key and a plan change are refused (FORBIDDEN) and change nothing (every procedure: role-matrix.test.ts)", async () => {
    const viewer = caller(await newOperator("VIEWER", project.projectId));
    expect((await viewer.projects.get({ projectId: project.projectId })).role).toBe("VIEWER");
    expect((await viewer.players.get({ projectId: project.projectId, playerId })).id).toBe(playerId);
    expect(await trpcRefusal(viewer.players.ban({ projectId: project.projectId, playerId, reason: "forged" }))).toMatchObject({
      code: "FORBIDDEN",
      appCode: "FORBIDDEN",
    });
    expect(await trpcRefusal(viewer.projects.createKey({ projectId: project.projectId, kind: "SERVER", name: "forged" }))).toMatchObject({
      code: "FORBIDDEN",
    });
    expect(
      await trpcRefusal(viewer.projects.setPlan({ projectId: project.projectId, plan: "ENTERPRISE", customRateLimit: 99 })),
    ).toMatchObject({
      code: "FORBIDDEN",
    });
    expect((await prisma().player.findUniqueOrThrow({ where: { id: playerId } })).bannedAt).toBeNull();
    expect(await prisma().apiKey.count({ where: { projectId: project.projectId, name: "forged" } })).toBe(0);
  });

  it("a non-member cannot see the project: NOT_FOUND, not FORBIDDEN, and it is not listed", async () => {
    const stranger = caller(await newOperator(null, project.projectId));
    expect(await trpcRefusal(stranger.projects.get({ projectId: project.projectId }))).toMatchObject({
      code: "NOT_FOUND",
      appCode: "NOT_FOUND",
    });
    expect(await trpcRefusal(stranger.players.search({ projectId: project.projectId, query: "" }))).toMatchObject({ code: "NOT_FOUND" });
    expect((await stranger.projects.list()).map((p) => p.id)).not.toContain(project.projectId);
  });

  it("an admin bans and revokes keys but cannot delete the project (owner only); each change is audited with its request id", async () => {
    const adminOp = await newOperator("ADMIN", project.projectId);
    const admin = appRouter.createCaller({ operator: adminOp, requestId: "req-audited" });
    await admin.players.ban({ projectId: project.projectId, playerId, reason: "spam" });
    await admin.players.unban({ projectId: project.projectId, playerId });
    expect(await trpcRefusal(admin.projects.delete({ projectId: project.projectId, confirmName: "x" }))).toMatchObject({
      code: "FORBIDDEN",
    });
    const log = await admin.audit.list({ projectId: project.projectId, action: "player." });
    expect(log.entries.map((e) => [e.action, e.operatorEmail, e.requestId])).toEqual([
      ["player.unban", adminOp.email, "req-audited"],
      ["player.ban", adminOp.email, "req-audited"],
    ]);
  });

  it("only instance admins change plans", async () => {
    const owner = caller(await newOperator("OWNER", project.projectId));
    expect(await trpcRefusal(owner.projects.setPlan({ projectId: project.projectId, plan: "PRO" }))).toMatchObject({ code: "FORBIDDEN" });
    const admin = appRouter.createCaller({
      operator: { ...(await newOperator(null, project.projectId)), isInstanceAdmin: true },
      requestId: "r",
    });
    expect((await admin.projects.setPlan({ projectId: project.projectId, plan: "PRO" })).plan).toBe("PRO");
  });

  it("input follows the REST rules: unknown fields, NUL and __proto__ are BAD_REQUEST (VALIDATION_ERROR), nothing created", async () => {
    const owner = caller(await newOperator("OWNER", project.projectId));
    expect(await trpcRefusal(owner.projects.create({ name: "ok", extra: 1 } as never))).toMatchObject({
      code: "BAD_REQUEST",
      appCode: "VALIDATION_ERROR",
    });
    expect(await trpcRefusal(owner.projects.create({ name: "nul\u0000name" }))).toMatchObject({ appCode: "VALIDATION_ERROR" });
    expect(await trpcRefusal(owner.projects.create(JSON.parse('{"name":"x","__proto__":{"admin":true}}')))).toMatchObject({
      appCode: "VALIDATION_ERROR",
    });
    expect(await prisma().project.count({ where: { name: { in: ["ok", "x"] } } })).toBe(0);
  });

  it("creating projects: refused until an instance admin allows it; then allowed up to the per-operator cap, also in parallel", async () => {
    const opRow = await newOperator(null, project.projectId);
    const op = caller(opRow);
    const name = `mine-${randomBytes(3).toString("hex")}`;
    expect(await trpcRefusal(op.projects.create({ name }))).toMatchObject({ code: "FORBIDDEN" });
    expect(await prisma().project.count({ where: { name } })).toBe(0);
    const admin = caller({ ...(await newOperator(null, project.projectId)), isInstanceAdmin: true });
    await admin.operators.setCanCreateProjects({ operatorId: opRow.id, allowed: true });
    expect((await op.projects.create({ name })).name).toBe(name);
    // Owning cap − 1 projects, two parallel creations: exactly one passes the cap.
    const cap = 20; // MAX_PROJECTS_PER_OPERATOR's default
    for (let i = 1; i < cap - 1; i++) {
      const extra = await makeProject();
      await prisma().projectMember.create({ data: { projectId: extra.projectId, operatorId: opRow.id, role: "OWNER" } });
    }
    const outcomes = await Promise.allSettled([op.projects.create({ name: `${name}-a` }), op.projects.create({ name: `${name}-b` })]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(await trpcRefusal(op.projects.create({ name: `${name}-c` }))).toMatchObject({ appCode: "LIMIT_EXCEEDED" });
    expect(await prisma().projectMember.count({ where: { operatorId: opRow.id, role: "OWNER" } })).toBe(cap);
    expect(await prisma().auditEntry.count({ where: { target: opRow.id, action: "operator.allow-projects" } })).toBe(1);
  });

  it("players: an admin edits a player's private data key with the version check, as the operator (audited); a viewer only reads", async () => {
    const own = await makeProject();
    const player = await anonymousPlayer(own.clientKey);
    const put = await api("PUT", "/api/v1/players/me/data/inventory", {
      key: own.clientKey,
      token: player.accessToken,
      body: { value: { gold: 1 } },
    });
    expect(put.status).toBe(201);
    const admin = caller(await newOperator("ADMIN", own.projectId));
    const viewer = caller(await newOperator("VIEWER", own.projectId));
    const target = { projectId: own.projectId, playerId: player.playerId, key: "inventory" };
    expect((await viewer.players.data(target)).value).toEqual({ gold: 1 });
    expect(await trpcRefusal(viewer.players.setData({ ...target, value: { gold: 9 }, version: 1 }))).toMatchObject({ code: "FORBIDDEN" });
    expect(await trpcRefusal(admin.players.setData({ ...target, value: { gold: 9 }, version: 7 }))).toMatchObject({
      code: "PRECONDITION_FAILED",
    });
    expect((await admin.players.setData({ ...target, value: { gold: 9 }, version: 1 })).version).toBe(2);
    const audit = await prisma().auditEntry.findMany({ where: { projectId: own.projectId, action: "player.data" } });
    expect(audit.map((a) => [a.target, a.before, a.after])).toEqual([
      [`${player.playerId}/inventory`, { version: 1, value: { gold: 1 } }, { version: 2, value: { gold: 9 } }],
    ]);
  });

  it("a project's owner deletes it only with its name typed, and the deletion is audited", async () => {
    const own = await makeProject({ name: `to-delete-${randomBytes(3).toString("hex")}` });
    const owner = caller(await newOperator("OWNER", own.projectId));
    expect(await trpcRefusal(owner.projects.delete({ projectId: own.projectId, confirmName: "wrong" }))).toMatchObject({
      appCode: "VALIDATION_ERROR",
    });
    const { name } = await owner.projects.get({ projectId: own.projectId });
    await owner.projects.delete({ projectId: own.projectId, confirmName: name });
    expect(await prisma().project.count({ where: { id: own.projectId } })).toBe(0);
    expect(await prisma().auditEntry.count({ where: { projectId: own.projectId, action: "project.delete" } })).toBe(1);
  });

  it("members: an e-mail longer than 254 characters is refused and no invite or audit row is written", async () => {
    const own = await makeProject();
    const owner = caller(await newOperator("OWNER", own.projectId));
    const email = `${"a".repeat(64)}@${"b".repeat(190)}.test`; // 260 characters; the e-mail syntax check alone accepts it
    expect(await trpcRefusal(owner.members.add({ projectId: own.projectId, email, role: "VIEWER" }))).toMatchObject({
      appCode: "VALIDATION_ERROR",
    });
    expect(await prisma().invite.count({ where: { projectId: own.projectId } })).toBe(0);
    expect(await prisma().auditEntry.count({ where: { projectId: own.projectId, action: { startsWith: "member" } } })).toBe(0);
  });

  it("members: two owners demoting or removing each other at the same moment leave one owner (10 rounds)", async () => {
    for (let round = 0; round < 10; round++) {
      const own = await makeProject();
      const [a, b] = await Promise.all([newOperator("OWNER", own.projectId), newOperator("OWNER", own.projectId)]);
      const change = (by: SessionOperator, of: SessionOperator) =>
        round % 2 === 0
          ? caller(by).members.setRole({ projectId: own.projectId, operatorId: of.id, role: "ADMIN" })
          : caller(by).members.remove({ projectId: own.projectId, operatorId: of.id });
      const outcomes = await Promise.allSettled([change(a, b), change(b, a)]);
      expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
      expect(await prisma().projectMember.count({ where: { projectId: own.projectId, role: "OWNER" } })).toBe(1);
    }
  });

  it("members: an existing operator is added at once, twice is ALREADY_EXISTS, the last owner stays, an invite works once", async () => {
    const own = await makeProject();
    const ownerOp = await newOperator("OWNER", own.projectId);
    const owner = caller(ownerOp);
    const colleague = await newOperator(null, own.projectId);
    expect((await owner.members.add({ projectId: own.projectId, email: colleague.email, role: "ADMIN" })).added?.role).toBe("ADMIN");
    expect(await trpcRefusal(owner.members.add({ projectId: own.projectId, email: colleague.email, role: "VIEWER" }))).toMatchObject({
      appCode: "ALREADY_EXISTS",
    });
    expect(await trpcRefusal(owner.members.remove({ projectId: own.projectId, operatorId: ownerOp.id }))).toMatchObject({
      code: "FORBIDDEN",
    });
    expect(await trpcRefusal(owner.members.setRole({ projectId: own.projectId, operatorId: ownerOp.id, role: "ADMIN" }))).toMatchObject({
      code: "FORBIDDEN",
    });
    const admin = caller(colleague);
    expect(await trpcRefusal(admin.members.add({ projectId: own.projectId, email: "x@studio.test", role: "OWNER" }))).toMatchObject({
      code: "FORBIDDEN",
    });
    const invited = await owner.members.add({
      projectId: own.projectId,
      email: `New-${randomBytes(3).toString("hex")}@Studio.test`,
      role: "VIEWER",
    });
    const token = invited.invitePath?.split("/invite/")[1] ?? "";
    expect(token.length).toBeGreaterThan(20);
    expect(invited.emailed).toBe(false); // this instance has no SMTP_URL: the owner gets the link only
    expect(await prisma().invite.count({ where: { tokenHash: Buffer.from(token) } })).toBe(0); // only the hash is stored
    const guest = caller(null);
    expect((await guest.members.invite({ token })).role).toBe("VIEWER");
    expect(await trpcRefusal(guest.members.accept({ token, name: "New", password: "password" }))).toMatchObject({
      appCode: "VALIDATION_ERROR",
    });
    expect(await trpcRefusal(guest.members.accept({ token, name: "Ne\u202ew", password: "a long unusual passphrase 12" }))).toMatchObject({
      appCode: "VALIDATION_ERROR",
    });
    const accepted = await guest.members.accept({ token, name: "New", password: "a long unusual passphrase 12" });
    expect(accepted.email).toMatch(/^new-.*@studio\.test$/);
    expect(await prisma().auditEntry.count({ where: { projectId: own.projectId, action: "member.accept", target: accepted.email } })).toBe(
      1,
    );
    expect(await trpcRefusal(guest.members.accept({ token, name: "Again", password: "a long unusual passphrase 12" }))).toMatchObject({
      appCode: "NOT_FOUND",
    });
    const list = await owner.members.list({ projectId: own.projectId });
    expect(list.members.map((m) => m.role).sort()).toEqual(["ADMIN", "OWNER", "VIEWER"]);
    expect(list.invites).toEqual([]);
  });

  it("player search: by id, e-mail, identity subject or any part of a display name, newest first, paged on the server", async () => {
    const own = await makeProject();
    const owner = caller(await newOperator("OWNER", own.projectId));
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await anonymousPlayer(own.clientKey)).playerId);
    await prisma().player.update({ where: { id: made[0] }, data: { displayName: "Ada_Lovelace%", email: "ada@search.test" } });
    await prisma().player.update({ where: { id: made[1] }, data: { displayName: "Grace Hopper" } });
    await prisma().identity.create({
      data: { projectId: own.projectId, playerId: made[2] as string, provider: "steam", subject: "7656119" },
    });
    const ids = async (query: string, offset = 0, limit = 25) =>
      (await owner.players.search({ projectId: own.projectId, query, offset, limit })).players.map((p) => p.id);
    expect(await ids(made[3] as string)).toEqual([made[3]]);
    expect(await ids("ADA@search.test")).toEqual([made[0]]);
    expect(await ids("7656119")).toEqual([made[2]]);
    expect(await ids("lovelace")).toEqual([made[0]]);
    expect(await ids("a_l")).toEqual([made[0]]); // _ is literal, not a wildcard
    expect(await ids("a_b")).toEqual([]);
    expect(await ids("%")).toEqual([made[0]]);
    expect(await ids("hopp")).toEqual([made[1]]);
    expect(await ids("nobody")).toEqual([]);
    const first = await owner.players.search({ projectId: own.projectId, query: "", limit: 3, offset: 0 });
    const second = await owner.players.search({ projectId: own.projectId, query: "", limit: 3, offset: 3 });
    const third = await owner.players.search({ projectId: own.projectId, query: "", limit: 3, offset: 6 });
    expect([first.hasMore, second.hasMore, third.hasMore]).toEqual([true, true, false]);
    expect([...first.players, ...second.players, ...third.players].map((p) => p.id)).toEqual([...made].reverse());
    const oldest = await owner.players.search({ projectId: own.projectId, query: "", sort: "oldest", limit: 2 });
    expect(oldest.players.map((p) => p.id)).toEqual([made[0], made[1]]);
    const byName = await owner.players.search({ projectId: own.projectId, query: "", sort: "name", limit: 2 });
    expect(byName.players.map((p) => p.displayName)).toEqual(["Ada_Lovelace%", "Grace Hopper"]);
  });
});
