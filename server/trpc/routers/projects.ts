import { z } from "zod";
import { auditActorFor } from "../../auth/operator";
import { transaction } from "../../db";
import { AppError } from "../../errors";
import { projectLimit } from "../../ratelimit";
import { recordAudit } from "../../services/audit";
import {
  createApiKey,
  createProjectAs,
  deleteProject,
  getProject,
  listApiKeys,
  listProjectsFor,
  renameProject,
  revokeApiKey,
  setProjectPlan,
} from "../../services/projects";
import { ZApiKeyKind, ZProjectName } from "../../services/projects/schemas";
import { playerCounts, projectUsage } from "../../usage";
import {
  input,
  instanceAdminProcedure,
  operatorProcedure,
  projectProcedure,
  router,
  tokenScopedProjects,
  unscopedProcedure,
} from "../init";

const ZProjectId = z.string().uuid();

export const projectsRouter = router({
  list: operatorProcedure.query(async ({ ctx }) =>
    tokenScopedProjects(
      ctx.operator,
      await listProjectsFor({ operatorId: ctx.operator.id, isInstanceAdmin: ctx.operator.isInstanceAdmin }),
    ),
  ),

  get: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId })))
    .query(async ({ ctx, input }) => ({ ...(await getProject(input)), role: ctx.actor.role })),

  /** The creator becomes the project's owner; a new project starts on the Free plan. */
  create: unscopedProcedure
    .input(input(z.strictObject({ name: ZProjectName })))
    .mutation(({ ctx, input }) => createProjectAs({ actor: ctx.operator, requestId: ctx.requestId, name: input.name })),

  rename: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, name: ZProjectName })))
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        const before = await getProject(input);
        const after = await renameProject(input);
        await recordAudit({
          actor: auditActorFor(ctx.operator, ctx.requestId),
          projectId: input.projectId,
          action: "project.rename",
          target: input.projectId,
          before: { name: before.name },
          after: { name: after.name },
        });
        return after;
      }),
    ),

  /** Owner only, with the project's name typed as confirmation. */
  delete: projectProcedure("OWNER")
    .input(input(z.strictObject({ projectId: ZProjectId, confirmName: z.string() })))
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        const before = await getProject(input);
        if (input.confirmName !== before.name) {
          throw new AppError("VALIDATION_ERROR", {
            details: { issues: [{ path: "input.confirmName", message: "Type the project's name to confirm." }] },
          });
        }
        await deleteProject(input);
        await recordAudit({
          actor: auditActorFor(ctx.operator, ctx.requestId),
          projectId: input.projectId,
          action: "project.delete",
          target: input.projectId,
          before,
        });
      }),
    ),

  /** What a studio is sold: only instance admins change it. Reaches every instance within API_KEY_CACHE_TTL_SECONDS. */
  setPlan: instanceAdminProcedure
    .input(
      input(
        z.strictObject({
          projectId: ZProjectId,
          plan: z.enum(["FREE", "PRO", "ENTERPRISE"]),
          customRateLimit: z.number().int().min(1).max(10_000_000).nullable().optional(),
        }),
      ),
    )
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        const before = await getProject(input);
        const after = await setProjectPlan(input);
        await recordAudit({
          actor: auditActorFor(ctx.operator, ctx.requestId),
          projectId: input.projectId,
          action: "project.plan",
          target: input.projectId,
          before: { plan: before.plan, customRateLimit: before.customRateLimit },
          after: { plan: after.plan, customRateLimit: after.customRateLimit },
        });
        return after;
      }),
    ),

  /** Requests per minute (answered and rate-limited) against the plan's limit, and player counts. */
  usage: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId })))
    .query(async ({ input }) => {
      const project = await getProject(input);
      const [usage, players] = await Promise.all([projectUsage(input), playerCounts(input)]);
      return { ...usage, players, limitPerMinute: projectLimit(project.plan, project.customRateLimit) };
    }),

  keys: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId })))
    .query(({ input }) => listApiKeys(input)),

  /** The secret is in this answer only; it is stored as a hash. */
  createKey: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, kind: ZApiKeyKind, name: ZProjectName })))
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        const key = await createApiKey(input);
        const { key: _secret, ...safe } = key;
        await recordAudit({
          actor: auditActorFor(ctx.operator, ctx.requestId),
          projectId: input.projectId,
          action: "key.create",
          target: key.id,
          after: safe,
        });
        return key;
      }),
    ),

  revokeKey: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, keyId: z.string().uuid() })))
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        await revokeApiKey(input);
        await recordAudit({
          actor: auditActorFor(ctx.operator, ctx.requestId),
          projectId: input.projectId,
          action: "key.revoke",
          target: input.keyId,
        });
      }),
    ),
});
