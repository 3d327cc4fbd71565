import { clearApiKeyCache, generateApiKey } from "../../api-keys";
import { pool, prisma, transaction } from "../../db";
import { AppError } from "../../errors";
import type { ApiKeyKind, Plan } from "../../generated/prisma/enums";
import { projectLimit } from "../../ratelimit";
import { validationError } from "../../validation";
import type { ProjectCreators } from "./schemas";

export type ProjectDto = {
  id: string;
  name: string;
  plan: Plan;
  customRateLimit: number | null;
  /** A deleted player's ledger rows stay, detached from the player (see deletePlayer). */
  keepLedgerOfDeletedPlayers: boolean;
  createdAt: Date;
};
const projectSelect = {
  id: true,
  name: true,
  plan: true,
  customRateLimit: true,
  keepLedgerOfDeletedPlayers: true,
  createdAt: true,
} as const;

export async function createProject(o: {
  name: string;
  plan?: Plan;
  customRateLimit?: number | null;
  ownerId?: string;
}): Promise<ProjectDto> {
  return prisma().project.create({
    data: {
      name: o.name,
      plan: o.plan ?? "FREE",
      customRateLimit: o.customRateLimit ?? null,
      ...(o.ownerId ? { members: { create: { operatorId: o.ownerId, role: "OWNER" } } } : {}),
    },
    select: projectSelect,
  });
}

/** Why an operator may not create a project under the instance's policy, or null when they may. */
export function creationRefusal(policy: ProjectCreators, o: { isInstanceAdmin: boolean; canCreateProjects: boolean }): string | null {
  if (o.isInstanceAdmin || policy === "everyone") return null;
  if (policy === "admins") return "On this instance only instance admins create projects.";
  return o.canCreateProjects ? null : "Creating projects needs an instance admin's permission: ask one to allow it.";
}

export async function setProjectPlan(o: { projectId: string; plan: Plan; customRateLimit?: number | null }): Promise<ProjectDto> {
  const updated = await prisma().project.updateMany({
    where: { id: o.projectId },
    data: { plan: o.plan, customRateLimit: o.plan === "ENTERPRISE" ? (o.customRateLimit ?? null) : null },
  });
  if (updated.count === 0) throw new AppError("NOT_FOUND", { message: "Project not found." });
  await clearApiKeyCache();
  return prisma().project.findUniqueOrThrow({ where: { id: o.projectId }, select: projectSelect });
}

/**
 * A project's own shares of its budget per window (null: the default, see budgetsOf in
 * server/ratelimit): each from 1 to the project's budget. A later plan change that lowers the
 * budget cuts a larger share to the budget when it is applied.
 */
export async function setProjectShares(o: {
  projectId: string;
  playerRateLimit: number | null;
  ipRateLimit: number | null;
}): Promise<void> {
  const project = await prisma().project.findUnique({ where: { id: o.projectId }, select: { plan: true, customRateLimit: true } });
  if (!project) throw new AppError("NOT_FOUND", { message: "Project not found." });
  const budget = projectLimit(project.plan, project.customRateLimit);
  const issues = (
    [
      ["playerRateLimit", o.playerRateLimit],
      ["ipRateLimit", o.ipRateLimit],
    ] as const
  )
    .filter(([, value]) => value !== null && (!Number.isInteger(value) || value < 1 || value > budget))
    .map(([path]) => ({ path, message: `A whole number from 1 to the project's budget (${budget}), or null for the default.` }));
  if (issues.length > 0) throw validationError(issues);
  const updated = await prisma().project.updateMany({
    where: { id: o.projectId },
    data: { playerRateLimit: o.playerRateLimit, ipRateLimit: o.ipRateLimit },
  });
  if (updated.count === 0) throw new AppError("NOT_FOUND", { message: "Project not found." });
  await clearApiKeyCache();
}

export type CreatedApiKey = { id: string; kind: ApiKeyKind; name: string; prefix: string; key: string; createdAt: Date };

/** The only moment the whole key exists outside the caller's hands: it is returned once. */
export async function createApiKey(o: { projectId: string; kind: ApiKeyKind; name: string }): Promise<CreatedApiKey> {
  const generated = generateApiKey(o.kind);
  const row = await prisma().apiKey.create({
    data: { projectId: o.projectId, kind: o.kind, name: o.name, prefix: generated.prefix, keyHash: generated.hash },
    select: { id: true, kind: true, name: true, prefix: true, createdAt: true },
  });
  return { ...row, key: generated.key };
}

export type RotatedApiKey = { key: CreatedApiKey; previous: { id: string; expiresAt: Date | null; revokedAt: Date | null } };

/**
 * A new key with the old one's name and kind; the old key works until now + overlap (revoked at
 * once with 0). Only a live key without an end rotates (a key in its overlap was replaced already:
 * rotate its successor). One transaction with the old row locked: two rotations of one key at once
 * make one new key and refuse the other.
 */
export async function rotateApiKey(o: { projectId: string; keyId: string; overlapHours: number; now?: Date }): Promise<RotatedApiKey> {
  const now = o.now ?? new Date();
  const until = new Date(now.getTime() + o.overlapHours * 3_600_000);
  const rotated = await transaction(async () => {
    const { rows } = await pool().query<{ id: string; kind: ApiKeyKind; name: string }>(
      `SELECT id, kind::text AS kind, name FROM api_keys
        WHERE id = $1 AND project_id = $2 AND revoked_at IS NULL AND expires_at IS NULL
          FOR UPDATE`,
      [o.keyId, o.projectId],
    );
    const old = rows[0];
    if (!old) throw new AppError("NOT_FOUND", { message: "API key not found (or already revoked or expiring)." });
    const previous = await prisma().apiKey.update({
      where: { id: old.id },
      data: o.overlapHours > 0 ? { expiresAt: until } : { revokedAt: now },
      select: { id: true, expiresAt: true, revokedAt: true },
    });
    const generated = generateApiKey(old.kind);
    const row = await prisma().apiKey.create({
      data: { projectId: o.projectId, kind: old.kind, name: old.name, prefix: generated.prefix, keyHash: generated.hash },
      select: { id: true, kind: true, name: true, prefix: true, createdAt: true },
    });
    return { key: { ...row, key: generated.key }, previous };
  });
  await clearApiKeyCache();
  return rotated;
}

export async function revokeApiKey(o: { projectId: string; keyId: string }): Promise<void> {
  const updated = await prisma().apiKey.updateMany({
    where: { id: o.keyId, projectId: o.projectId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (updated.count === 0) throw new AppError("NOT_FOUND", { message: "API key not found." });
  await clearApiKeyCache();
}

export type MemberRole = "OWNER" | "ADMIN" | "VIEWER";
export type ProjectSummary = ProjectDto & { role: MemberRole | null; players: number };

/** The projects an operator may open: their memberships, or every project for an instance admin. */
export async function listProjectsFor(o: { operatorId: string; isInstanceAdmin: boolean }): Promise<ProjectSummary[]> {
  const rows = await prisma().project.findMany({
    where: o.isInstanceAdmin ? {} : { members: { some: { operatorId: o.operatorId } } },
    select: {
      ...projectSelect,
      members: { where: { operatorId: o.operatorId }, select: { role: true } },
      _count: { select: { players: true } },
    },
    orderBy: { createdAt: "asc" },
  });
  return rows.map(({ members, _count, ...p }) => ({ ...p, role: members[0]?.role ?? null, players: _count.players }));
}

export async function getProject(o: { projectId: string }): Promise<ProjectDto> {
  const row = await prisma().project.findUnique({ where: { id: o.projectId }, select: projectSelect });
  if (!row) throw new AppError("NOT_FOUND", { message: "Project not found." });
  return row;
}

export async function renameProject(o: { projectId: string; name: string }): Promise<ProjectDto> {
  const updated = await prisma().project.updateMany({ where: { id: o.projectId }, data: { name: o.name } });
  if (updated.count === 0) throw new AppError("NOT_FOUND", { message: "Project not found." });
  return getProject(o);
}

/** What happens to a player's ledger rows when the player is deleted: kept detached, or deleted with them (the default). */
export async function setProjectDataSettings(o: { projectId: string; keepLedgerOfDeletedPlayers: boolean }): Promise<ProjectDto> {
  const updated = await prisma().project.updateMany({
    where: { id: o.projectId },
    data: { keepLedgerOfDeletedPlayers: o.keepLedgerOfDeletedPlayers },
  });
  if (updated.count === 0) throw new AppError("NOT_FOUND", { message: "Project not found." });
  return getProject(o);
}

/** Deletes the project with everything in it (players, keys, boards, economy). */
export async function deleteProject(o: { projectId: string }): Promise<void> {
  const deleted = await prisma().project.deleteMany({ where: { id: o.projectId } });
  if (deleted.count === 0) throw new AppError("NOT_FOUND", { message: "Project not found." });
  await clearApiKeyCache();
}

export type ApiKeyDto = {
  id: string;
  kind: ApiKeyKind;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** Set by a rotation: the key works until then. */
  expiresAt: Date | null;
};

export function listApiKeys(o: { projectId: string }): Promise<ApiKeyDto[]> {
  return prisma().apiKey.findMany({
    where: { projectId: o.projectId },
    select: { id: true, kind: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true, expiresAt: true },
    orderBy: { createdAt: "asc" },
  });
}
