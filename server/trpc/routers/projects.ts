import { z } from "zod";
import { MAX_CUSTOM_RATE_LIMIT } from "../../ratelimit/plans";
import {
  createApiKeyAs,
  createProjectAs,
  deleteProjectAs,
  listApiKeysAs,
  listProjectsAs,
  projectAs,
  renameProjectAs,
  revokeApiKeyAs,
  rotateApiKeyAs,
  setDataSettingsAs,
  setPlanAs,
} from "../../services/projects/commands";
import { ZApiKeyKind, ZProjectName, ZRotateApiKey } from "../../services/projects/schemas";
import { input, instanceAdminProcedure, operatorProcedure, projectProcedure, router, unscopedProcedure } from "../init";

const ZProjectId = z.string().uuid();

export const projectsRouter = router({
  list: operatorProcedure.query(({ ctx }) => listProjectsAs(ctx)),

  get: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId })))
    .query(({ ctx, input }) => projectAs(ctx, input)),

  /** The creator becomes the project's owner; a new project starts on the Free plan. */
  create: unscopedProcedure.input(input(z.strictObject({ name: ZProjectName }))).mutation(({ ctx, input }) => createProjectAs(ctx, input)),

  rename: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, name: ZProjectName })))
    .mutation(({ ctx, input }) => renameProjectAs(ctx, input)),

  /** What a player's deletion does to their ledger rows: kept detached for the studio's accounts, or deleted (default). */
  setDataSettings: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, keepLedgerOfDeletedPlayers: z.boolean() })))
    .mutation(({ ctx, input }) => setDataSettingsAs(ctx, input)),

  /** Owner only, with the project's name typed as confirmation. */
  delete: projectProcedure("OWNER")
    .input(input(z.strictObject({ projectId: ZProjectId, confirmName: z.string() })))
    .mutation(({ ctx, input }) => deleteProjectAs(ctx, input)),

  /** What a studio is sold: only instance admins change it. Reaches every instance within API_KEY_CACHE_TTL_SECONDS. */
  setPlan: instanceAdminProcedure
    .input(
      input(
        z.strictObject({
          projectId: ZProjectId,
          plan: z.enum(["FREE", "PRO", "ENTERPRISE"]),
          customRateLimit: z.number().int().min(1).max(MAX_CUSTOM_RATE_LIMIT).nullable().optional(),
        }),
      ),
    )
    .mutation(({ ctx, input }) => setPlanAs(ctx, input)),

  keys: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId })))
    .query(({ ctx, input }) => listApiKeysAs(ctx, input)),

  /** The secret is in this answer only; it is stored as a hash. */
  createKey: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, kind: ZApiKeyKind, name: ZProjectName })))
    .mutation(({ ctx, input }) => createApiKeyAs(ctx, input)),

  /** A new key with the same name and kind (in this answer only); the old one works for the overlap. */
  rotateKey: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, keyId: z.string().uuid() }).extend(ZRotateApiKey.shape)))
    .mutation(({ ctx, input }) => rotateApiKeyAs(ctx, input)),

  revokeKey: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, keyId: z.string().uuid() })))
    .mutation(({ ctx, input }) => revokeApiKeyAs(ctx, input)),
});
