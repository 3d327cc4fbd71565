import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { SessionOperator } from "@/server/auth/operator";
import { createOperatorToken } from "@/server/auth/operator-tokens";
import { prisma } from "@/server/db";
import { AppError } from "@/server/errors";
import { applyImport, dryRunImport } from "@/server/services/config";
import {
  adjustPlayerAs,
  createCurrencyAs,
  createItemAs,
  createPurchaseAs,
  deleteCurrencyAs,
  deleteItemAs,
  deletePurchaseAs,
  updateCurrencyAs,
  updateItemAs,
  updatePurchaseAs,
} from "@/server/services/economy/commands";
import { createBoard, deleteBoard, removeEntryAs, resetBoard, updateBoard } from "@/server/services/leaderboards/commands";
import { addMember, listMembers, removeMember, revokeInvite, setMemberRole } from "@/server/services/members";
import { createTokenAs, revokeTokenAs, upsertOperator } from "@/server/services/operators";
import { banPlayerAs, deletePlayerAs, revokePlayerSessionsAs, setPlayerDataAs, unbanPlayerAs } from "@/server/services/players/commands";
import { createApiKeyAs, deleteProjectAs, renameProjectAs, revokeApiKeyAs, setPlanAs } from "@/server/services/projects/commands";
import { makeProject } from "../support/fixtures";

/**
 * Operator commands are services that authorize, run, audit and invalidate themselves
 * (server/services/command.ts): called directly — as a CLI, a job or this test would, without
 * tRPC — they answer an operator without the role exactly as the dashboard does.
 */
async function operator(role: "OWNER" | "ADMIN" | "VIEWER" | null, projectId: string): Promise<SessionOperator> {
  const email = `cmd-${randomBytes(4).toString("hex")}@studio.test`;
  const created = await upsertOperator({ email, name: email, password: "a long operator passphrase 9" });
  if (role) await prisma().projectMember.create({ data: { projectId, operatorId: created.id, role } });
  return { ...created, isInstanceAdmin: false };
}
const ctx = (op: SessionOperator | null) => ({ operator: op, requestId: `cmd-${randomBytes(3).toString("hex")}` });

async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
  throw new Error("the call was not refused");
}

describe("operator commands called without tRPC", () => {
  it("refuse the signed-out (MISSING_TOKEN), a stranger (NOT_FOUND) and a too-low role (FORBIDDEN), changing and auditing nothing", async () => {
    const { projectId } = await makeProject();
    const [owner, viewer, stranger] = [
      await operator("OWNER", projectId),
      await operator("VIEWER", projectId),
      await operator(null, projectId),
    ];
    const demote = { projectId, operatorId: owner.id, role: "VIEWER" as const };
    expect(await refusal(setMemberRole(ctx(null), demote))).toBe("MISSING_TOKEN");
    expect(await refusal(setMemberRole(ctx(stranger), demote))).toBe("NOT_FOUND");
    expect(await refusal(setMemberRole(ctx(viewer), demote))).toBe("FORBIDDEN");
    expect(await refusal(listMembers(ctx(stranger), { projectId }))).toBe("NOT_FOUND");
    expect((await prisma().projectMember.findFirstOrThrow({ where: { projectId, operatorId: owner.id } })).role).toBe("OWNER");
    expect(await prisma().auditEntry.count({ where: { projectId } })).toBe(0);
  });

  it("a command an owner runs is audited with the request id, and with the token when one was used", async () => {
    const { projectId } = await makeProject();
    const owner = await operator("OWNER", projectId);
    const viaSession = ctx(owner);
    await addMember(viaSession, { projectId, email: `a-${randomBytes(3).toString("hex")}@studio.test`, role: "VIEWER" });
    const token = await createOperatorToken({ operator: owner, name: "cmd", role: "OWNER", projectIds: [projectId], instanceAdmin: false });
    const viaToken = ctx({ ...owner, token: { id: token.id, role: "OWNER", projectIds: [projectId] } });
    await addMember(viaToken, { projectId, email: `b-${randomBytes(3).toString("hex")}@studio.test`, role: "VIEWER" });
    const rows = await prisma().auditEntry.findMany({ where: { projectId }, orderBy: { id: "asc" } });
    expect(rows.map((r) => [r.action, r.requestId, r.tokenId])).toEqual([
      ["member.invite", viaSession.requestId, null],
      ["member.invite", viaToken.requestId, token.id],
    ]);
  });

  it("a token scoped to another project sees this one as not found, whatever its operator's role here", async () => {
    const { projectId } = await makeProject();
    const other = await makeProject();
    const owner = await operator("OWNER", projectId);
    await prisma().projectMember.create({ data: { projectId: other.projectId, operatorId: owner.id, role: "VIEWER" } });
    const token = await createOperatorToken({
      operator: owner,
      name: "other",
      role: "OWNER",
      projectIds: [other.projectId],
      instanceAdmin: false,
    });
    const scoped = ctx({ ...owner, token: { id: token.id, role: "OWNER", projectIds: [other.projectId] } });
    expect(await refusal(listMembers(scoped, { projectId }))).toBe("NOT_FOUND");
  });

  it("every project command service refuses a viewer (FORBIDDEN) and a stranger (NOT_FOUND) before reading anything, and audits nothing", async () => {
    const { projectId } = await makeProject();
    const [viewer, stranger] = [await operator("VIEWER", projectId), await operator(null, projectId)];
    const id = "gems";
    const playerId = "00000000-0000-7000-8000-000000000001";
    const board = { projectId, id: "weekly" };
    const document = { version: 1 as const, currencies: [], items: [], purchases: [], leaderboards: [], identityProviders: [] };
    const commands: Record<string, (c: ReturnType<typeof ctx>) => Promise<unknown>> = {
      createCurrencyAs: (c) =>
        createCurrencyAs(c, { projectId, currency: { id, name: "Gems", initialBalance: 0, maxBalance: null } as never }),
      updateCurrencyAs: (c) => updateCurrencyAs(c, { projectId, id, patch: { name: "G" } }),
      deleteCurrencyAs: (c) => deleteCurrencyAs(c, { projectId, id }),
      createItemAs: (c) => createItemAs(c, { projectId, item: { id, name: "Sword" } as never }),
      updateItemAs: (c) => updateItemAs(c, { projectId, id, patch: { name: "S" } }),
      deleteItemAs: (c) => deleteItemAs(c, { projectId, id }),
      createPurchaseAs: (c) => createPurchaseAs(c, { projectId, purchase: { id, name: "P", costs: [], rewards: [] } as never }),
      updatePurchaseAs: (c) => updatePurchaseAs(c, { projectId, id, patch: { name: "P2" } }),
      deletePurchaseAs: (c) => deletePurchaseAs(c, { projectId, id }),
      adjustPlayerAs: (c) =>
        adjustPlayerAs(c, { projectId, playerId, direction: "grant", currencies: [{ currencyId: id, amount: 1 }], items: [], reason: "x" }),
      createBoard: (c) => createBoard(c, { projectId, board: { id: board.id } as never }),
      updateBoard: (c) => updateBoard(c, { ...board, patch: {} }),
      deleteBoard: (c) => deleteBoard(c, board),
      resetBoard: (c) => resetBoard(c, board),
      removeEntryAs: (c) => removeEntryAs(c, { ...board, playerId }),
      banPlayerAs: (c) => banPlayerAs(c, { projectId, playerId, reason: "cheating" }),
      unbanPlayerAs: (c) => unbanPlayerAs(c, { projectId, playerId }),
      revokePlayerSessionsAs: (c) => revokePlayerSessionsAs(c, { projectId, playerId }),
      deletePlayerAs: (c) => deletePlayerAs(c, { projectId, playerId }),
      setPlayerDataAs: (c) => setPlayerDataAs(c, { projectId, playerId, key: "k", value: 1, version: 1 }),
      renameProjectAs: (c) => renameProjectAs(c, { projectId, name: "Renamed" }),
      deleteProjectAs: (c) => deleteProjectAs(c, { projectId, confirmName: "x" }),
      createApiKeyAs: (c) => createApiKeyAs(c, { projectId, kind: "CLIENT", name: "k" }),
      revokeApiKeyAs: (c) => revokeApiKeyAs(c, { projectId, keyId: playerId }),
      dryRunImport: (c) => dryRunImport(c, { projectId, document }),
      applyImport: (c) => applyImport(c, { projectId, document }),
      removeMember: (c) => removeMember(c, { projectId, operatorId: viewer.id }),
      revokeInvite: (c) => revokeInvite(c, { projectId, inviteId: playerId }),
    };
    const seen: Record<string, [string, string]> = {};
    for (const [name, call] of Object.entries(commands))
      seen[name] = [await refusal(call(ctx(viewer))), await refusal(call(ctx(stranger)))];
    expect(seen).toEqual(Object.fromEntries(Object.keys(commands).map((name) => [name, ["FORBIDDEN", "NOT_FOUND"]])));
    expect(await prisma().auditEntry.count({ where: { projectId } })).toBe(0);
  });

  it("a project's plan is the instance admins': its owner is FORBIDDEN, an instance admin's viewer token too", async () => {
    const { projectId } = await makeProject();
    const owner = await operator("OWNER", projectId);
    const admin = { ...(await operator(null, projectId)), isInstanceAdmin: true };
    expect(await refusal(setPlanAs(ctx(owner), { projectId, plan: "PRO" }))).toBe("FORBIDDEN");
    const viewerToken = { ...admin, token: { id: "00000000-0000-7000-8000-000000000002", role: "VIEWER" as const, projectIds: null } };
    expect(await refusal(setPlanAs(ctx(viewerToken), { projectId, plan: "PRO" }))).toBe("FORBIDDEN");
    expect((await setPlanAs(ctx(admin), { projectId, plan: "PRO" })).plan).toBe("PRO");
  });

  it("a token cannot mint tokens, and revokes only itself", async () => {
    const { projectId } = await makeProject();
    const owner = await operator("OWNER", projectId);
    const spec = { name: "ci", role: "ADMIN" as const, projectIds: null, instanceAdmin: false };
    const first = await createTokenAs({ actor: owner, requestId: "t1", token: spec });
    const second = await createTokenAs({ actor: owner, requestId: "t2", token: spec });
    const viaFirst = { ...owner, token: { id: first.id, role: "ADMIN" as const, projectIds: null } };
    expect(await refusal(createTokenAs({ actor: viaFirst, requestId: "t3", token: spec }))).toBe("FORBIDDEN");
    expect(await refusal(revokeTokenAs({ actor: viaFirst, requestId: "t4", tokenId: second.id }))).toBe("NOT_FOUND");
    await revokeTokenAs({ actor: viaFirst, requestId: "t5", tokenId: first.id });
    const rows = await prisma().auditEntry.findMany({ where: { operatorId: owner.id }, orderBy: { id: "asc" } });
    expect(rows.map((r) => [r.action, r.requestId])).toEqual([
      ["token.create", "t1"],
      ["token.create", "t2"],
      ["token.revoke", "t5"],
    ]);
  });
});
