import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { SessionOperator } from "@/server/auth/operator";
import { createOperatorToken } from "@/server/auth/operator-tokens";
import { prisma } from "@/server/db";
import { AppError } from "@/server/errors";
import { addMember, listMembers, setMemberRole } from "@/server/services/members";
import { upsertOperator } from "@/server/services/operators";
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
});
