import { pool } from "../../db";
import { env } from "../../env";
import { AppError } from "../../errors";
import type { ApiKeyKind, Plan } from "../../generated/prisma/enums";
import { assertUnscoped, auditActor, cappedByToken, inTokenScope, type SessionOperator } from "../../identity/operator";
import { parseWith } from "../../validation";
import { type Authorization, authorize, type OperatorContext, runCommand, signedIn, viewerRead } from "../command";
import {
  type CreatedApiKey,
  createApiKey,
  createProject,
  creationRefusal,
  deleteProject,
  getProject,
  listApiKeys,
  listProjectsFor,
  type MemberRole,
  type ProjectDto,
  type ProjectSummary,
  type RotatedApiKey,
  renameProject,
  revokeApiKey,
  rotateApiKey,
  setProjectDataSettings,
  setProjectPlan,
} from ".";
import { ZRotateApiKey } from "./schemas";

/**
 * Project commands through runCommand: the role check (the plan: instance admins only), one
 * transaction with the "before" read, the change and its audit row. Creating a project is
 * `createProjectAs` (no project to hold a role on yet: the `creator` rule).
 */
type ProjectRef = { projectId: string };

/** The caller's projects, as a token sees them: only its projects, roles capped by its role. */
export async function listProjectsAs(ctx: OperatorContext): Promise<ProjectSummary[]> {
  const me = signedIn(ctx);
  const projects = await listProjectsFor({ operatorId: me.id, isInstanceAdmin: me.isInstanceAdmin });
  return projects.filter((p) => inTokenScope(me, p.id)).map((p) => (p.role ? { ...p, role: cappedByToken(me, p.role) } : p));
}

/**
 * The creator rule: may this operator create a project? Instance admins always may; other
 * operators as the instance's PROJECT_CREATORS says (creationRefusal), and up to
 * MAX_PROJECTS_PER_OPERATOR owned projects, counted under a lock on the operator's row so that
 * parallel creations cannot pass the cap together. A token must cover all projects and not be
 * read-only (assertUnscoped).
 */
export const creator =
  (ctx: OperatorContext): Authorization<SessionOperator> =>
  async () => {
    const me = signedIn(ctx);
    assertUnscoped(me);
    const { rows } = await pool().query<{ can_create_projects: boolean }>(
      "SELECT can_create_projects FROM operators WHERE id = $1 FOR UPDATE",
      [me.id],
    );
    const row = rows[0];
    if (!row) throw new AppError("FORBIDDEN", { message: "Sign in first." });
    if (!me.isInstanceAdmin) {
      // Counted in a statement of its own, after the lock: a subquery of the locking statement
      // would read the snapshot taken before a parallel creation committed.
      const counted = await pool().query<{ owned: number }>(
        "SELECT count(*)::int AS owned FROM project_members WHERE operator_id = $1 AND role = 'OWNER'",
        [me.id],
      );
      const owned = counted.rows[0]?.owned ?? 0;
      const refusal = creationRefusal(env().PROJECT_CREATORS, { isInstanceAdmin: false, canCreateProjects: row.can_create_projects });
      if (refusal) throw new AppError("FORBIDDEN", { message: refusal });
      const cap = env().MAX_PROJECTS_PER_OPERATOR;
      if (owned >= cap) {
        throw new AppError("LIMIT_EXCEEDED", {
          message: `You own ${owned} projects, the most an operator may (MAX_PROJECTS_PER_OPERATOR = ${cap}).`,
          details: { limit: cap, owned },
        });
      }
    }
    return { actor: me, projectId: null, audit: auditActor(me, ctx.requestId) };
  };

/** An operator creates a project on the Free plan and owns it (the creator rule). Audited in the new project. */
export function createProjectAs(ctx: OperatorContext, o: { name: string }): Promise<ProjectDto> {
  return runCommand<ProjectDto, unknown, SessionOperator>(ctx, {
    authorization: creator(ctx),
    action: "project.create",
    target: (project) => project.id,
    projectIdOf: (project) => project.id,
    after: (project) => project,
    run: (me) => createProject({ name: o.name, plan: "FREE", ownerId: me.id }),
  });
}

/**
 * A project as the signed-in operator sees it, with their role (capped by a token's): what the
 * dashboard's project frame shows. A project they cannot see, or a malformed id, is NOT_FOUND.
 */
export async function projectAs(ctx: OperatorContext, o: ProjectRef): Promise<ProjectDto & { role: MemberRole }> {
  const actor = await authorize(ctx, o.projectId, "VIEWER");
  return { ...(await getProject(o)), role: actor.role };
}

/** The project's API keys (prefixes, never the secrets). */
export const listApiKeysAs = viewerRead(listApiKeys);

const nameOf = async (o: ProjectRef) => ({ name: (await getProject(o)).name });

export function renameProjectAs(ctx: OperatorContext, o: ProjectRef & { name: string }): Promise<ProjectDto> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "project.rename",
    target: o.projectId,
    before: () => nameOf(o),
    run: () => renameProject(o),
    after: (after) => ({ name: after.name }),
  });
}

/** Owner only, with the project's name typed as confirmation; the audit trail outlives it. */
export function deleteProjectAs(ctx: OperatorContext, o: ProjectRef & { confirmName: string }): Promise<void> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "OWNER",
    action: "project.delete",
    target: o.projectId,
    before: () => getProject(o),
    run: async (_actor, before) => {
      if (o.confirmName !== before.name) {
        throw new AppError("VALIDATION_ERROR", {
          details: { issues: [{ path: "input.confirmName", message: "Type the project's name to confirm." }] },
        });
      }
      await deleteProject(o);
    },
  });
}

/** Whether a deleted player's ledger rows stay for the studio's accounts (detached from the player). */
export function setDataSettingsAs(ctx: OperatorContext, o: ProjectRef & { keepLedgerOfDeletedPlayers: boolean }): Promise<ProjectDto> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "project.settings",
    target: o.projectId,
    before: async () => ({ keepLedgerOfDeletedPlayers: (await getProject(o)).keepLedgerOfDeletedPlayers }),
    run: () => setProjectDataSettings(o),
    after: (after) => ({ keepLedgerOfDeletedPlayers: after.keepLedgerOfDeletedPlayers }),
  });
}

/** What a studio is sold: only instance admins change it. Reaches every instance within API_KEY_CACHE_TTL_SECONDS. */
export function setPlanAs(ctx: OperatorContext, o: ProjectRef & { plan: Plan; customRateLimit?: number | null }): Promise<ProjectDto> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "INSTANCE_ADMIN",
    action: "project.plan",
    target: o.projectId,
    before: async () => {
      const { plan, customRateLimit } = await getProject(o);
      return { plan, customRateLimit };
    },
    run: () => setProjectPlan(o),
    after: (after) => ({ plan: after.plan, customRateLimit: after.customRateLimit }),
  });
}

/** The secret is in this answer only; it is stored as a hash (and never in the audit row). */
export function createApiKeyAs(ctx: OperatorContext, o: ProjectRef & { kind: ApiKeyKind; name: string }): Promise<CreatedApiKey> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "key.create",
    target: (key) => key.id,
    run: () => createApiKey(o),
    after: ({ key: _secret, ...safe }) => safe,
  });
}

/** Admins; audited as key.rotate (the overlap and the new key's id, never a key). The new key is in this answer only. */
export function rotateApiKeyAs(ctx: OperatorContext, o: ProjectRef & { keyId: string; overlapHours?: number }): Promise<RotatedApiKey> {
  const { overlapHours } = parseWith(ZRotateApiKey, { overlapHours: o.overlapHours });
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "key.rotate",
    target: o.keyId,
    run: () => rotateApiKey({ projectId: o.projectId, keyId: o.keyId, overlapHours }),
    after: (r) => ({ overlapHours, newKeyId: r.key.id, previousExpiresAt: r.previous.expiresAt, previousRevokedAt: r.previous.revokedAt }),
  });
}

export function revokeApiKeyAs(ctx: OperatorContext, o: ProjectRef & { keyId: string }): Promise<void> {
  return runCommand(ctx, { projectId: o.projectId, minimum: "ADMIN", action: "key.revoke", target: o.keyId, run: () => revokeApiKey(o) });
}
