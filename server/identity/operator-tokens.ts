import { randomBytes } from "node:crypto";
import { sha256, uuidv7 } from "../crypto";
import { prisma } from "../db";
import { AppError } from "../errors";
import type { MemberRole } from "../generated/prisma/enums";
import { logger } from "../log";
import type { SessionOperator } from "./operator";

/**
 * Operator access tokens: `gbo_…`, presented as `Authorization: Bearer` on /api/trpc instead of
 * a dashboard session (scripts, the `npm run admin` CLI). Only the SHA-256 is stored; the token
 * is returned once. A token acts as its operator, re-read on every request, within its scope:
 * its projects (or all of the operator's), at most its role (effective role = the lower of the
 * membership's and the token's), instance-admin powers only if the token has them and the
 * operator still is one. Revocation and expiry apply to the next request (no cache).
 */
export const TOKEN_PREFIX = "gbo_";
const LAST_USED_EVERY_MS = 60_000;
const lastUsedWritten = new Map<string, number>();

export type OperatorTokenDto = {
  id: string;
  name: string;
  prefix: string;
  role: MemberRole;
  allProjects: boolean;
  projectIds: string[];
  instanceAdmin: boolean;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};
const select = {
  id: true,
  name: true,
  prefix: true,
  role: true,
  allProjects: true,
  projectIds: true,
  instanceAdmin: true,
  createdAt: true,
  expiresAt: true,
  lastUsedAt: true,
  revokedAt: true,
} as const;

export async function createOperatorToken(o: {
  operator: { id: string; isInstanceAdmin: boolean };
  name: string;
  role: MemberRole;
  projectIds: string[] | null;
  instanceAdmin: boolean;
  expiresInDays?: number | null;
}): Promise<OperatorTokenDto & { token: string }> {
  if (o.instanceAdmin && !o.operator.isInstanceAdmin)
    throw new AppError("FORBIDDEN", { message: "Only instance admins may create instance-admin tokens." });
  if (o.instanceAdmin && (o.role !== "OWNER" || o.projectIds !== null)) {
    throw new AppError("VALIDATION_ERROR", {
      details: { issues: [{ path: "instanceAdmin", message: "An instance-admin token has the owner role on all projects." }] },
    });
  }
  const projectIds = [...new Set(o.projectIds ?? [])].sort();
  if (o.projectIds !== null) {
    if (projectIds.length === 0)
      throw new AppError("VALIDATION_ERROR", {
        details: { issues: [{ path: "projectIds", message: "Name at least one project, or choose all projects." }] },
      });
    const visible = o.operator.isInstanceAdmin
      ? await prisma().project.count({ where: { id: { in: projectIds } } })
      : await prisma().projectMember.count({ where: { operatorId: o.operator.id, projectId: { in: projectIds } } });
    if (visible !== projectIds.length) throw new AppError("NOT_FOUND", { message: "Project not found." });
  }
  const token = `${TOKEN_PREFIX}${randomBytes(30).toString("base64url")}`;
  const row = await prisma().operatorToken.create({
    data: {
      id: uuidv7(),
      operatorId: o.operator.id,
      name: o.name,
      prefix: token.slice(0, TOKEN_PREFIX.length + 6),
      tokenHash: sha256(token),
      role: o.role,
      allProjects: o.projectIds === null,
      projectIds,
      instanceAdmin: o.instanceAdmin,
      expiresAt: o.expiresInDays ? new Date(Date.now() + o.expiresInDays * 86_400_000) : null,
    },
    select,
  });
  return { ...row, token };
}

/**
 * The operator's tokens as the caller may see them: all of them from a dashboard session; only
 * itself when the caller is a token (`actingTokenId`), whatever its scope — a leaked
 * project-scoped viewer token must not list or revoke its operator's other tokens.
 */
export function listOperatorTokens(o: { operatorId: string; actingTokenId?: string }): Promise<OperatorTokenDto[]> {
  return prisma().operatorToken.findMany({
    where: { operatorId: o.operatorId, ...(o.actingTokenId ? { id: o.actingTokenId } : {}) },
    select,
    orderBy: { createdAt: "desc" },
  });
}

/** Revokes one of the operator's tokens; a token may revoke only itself (another is NOT_FOUND to it). */
export async function revokeOperatorToken(o: { operatorId: string; tokenId: string; actingTokenId?: string }): Promise<void> {
  if (o.actingTokenId && o.actingTokenId !== o.tokenId) throw new AppError("NOT_FOUND", { message: "Token not found." });
  const { count } = await prisma().operatorToken.updateMany({
    where: { id: o.tokenId, operatorId: o.operatorId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (count === 0) throw new AppError("NOT_FOUND", { message: "Token not found." });
}

/**
 * Revokes every live token of the operator (password change, "sign out everywhere", disabling):
 * revoked for good, so enabling the operator again does not bring them back. Answers how many.
 */
export async function revokeOperatorTokens(o: { operatorId: string }): Promise<number> {
  const { count } = await prisma().operatorToken.updateMany({
    where: { operatorId: o.operatorId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  return count;
}

/** The operator a presented token acts as, with its scope; null for an unknown, revoked or expired token. */
export async function operatorForToken(presented: string): Promise<SessionOperator | null> {
  if (!presented.startsWith(TOKEN_PREFIX) || presented.length > 200) return null;
  const row = await prisma().operatorToken.findUnique({
    where: { tokenHash: sha256(presented) },
    select: {
      id: true,
      role: true,
      allProjects: true,
      projectIds: true,
      instanceAdmin: true,
      expiresAt: true,
      revokedAt: true,
      operator: { select: { id: true, email: true, name: true, isInstanceAdmin: true, disabledAt: true } },
    },
  });
  const now = Date.now();
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt.getTime() <= now)) return null;
  if (row.operator.disabledAt) return null; // a disabled operator's tokens stop with their sessions
  touchLastUsed(row.id, now);
  const { disabledAt: _disabled, ...operator } = row.operator;
  return {
    ...operator,
    isInstanceAdmin: row.operator.isInstanceAdmin && row.instanceAdmin,
    token: { id: row.id, role: row.role, projectIds: row.allProjects ? null : row.projectIds },
  };
}

function touchLastUsed(tokenId: string, now: number): void {
  if (now - (lastUsedWritten.get(tokenId) ?? 0) < LAST_USED_EVERY_MS) return;
  if (lastUsedWritten.size > 10_000) lastUsedWritten.clear();
  lastUsedWritten.set(tokenId, now);
  prisma()
    .operatorToken.update({ where: { id: tokenId }, data: { lastUsedAt: new Date(now) }, select: { id: true } })
    .catch((error: unknown) => logger("operator-tokens").error({ reason: (error as Error).message }, "last_used_at update failed"));
}
