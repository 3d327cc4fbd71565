import { AppError } from "../../errors";
import type { ApiKeyKind, Plan } from "../../generated/prisma/enums";
import { authorize, type OperatorContext, runCommand } from "../command";
import {
  type CreatedApiKey,
  createApiKey,
  deleteProject,
  getProject,
  type MemberRole,
  type ProjectDto,
  renameProject,
  revokeApiKey,
  setProjectDataSettings,
  setProjectPlan,
} from ".";

/**
 * Project commands through runCommand: the role check (the plan: instance admins only), one
 * transaction with the "before" read, the change and its audit row. Creating a project is
 * `createProjectAs` (no project to hold a role on yet).
 */
type ProjectRef = { projectId: string };

/**
 * A project as the signed-in operator sees it, with their role (capped by a token's): what the
 * dashboard's project frame shows. A project they cannot see, or a malformed id, is NOT_FOUND.
 */
export async function projectFor(ctx: OperatorContext, o: ProjectRef): Promise<ProjectDto & { role: MemberRole }> {
  const actor = await authorize(ctx, o.projectId, "VIEWER");
  return { ...(await getProject(o)), role: actor.role };
}

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

export function revokeApiKeyAs(ctx: OperatorContext, o: ProjectRef & { keyId: string }): Promise<void> {
  return runCommand(ctx, { projectId: o.projectId, minimum: "ADMIN", action: "key.revoke", target: o.keyId, run: () => revokeApiKey(o) });
}
