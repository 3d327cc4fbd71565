import { z } from "zod";
import {
  countAudienceAs,
  createOverrideAs,
  deleteAudienceAs,
  deleteKeyAs,
  deleteOverrideAs,
  listAudiencesAs,
  listExperimentsAs,
  listKeysAs,
  resolveForPlayerAs,
  setExperimentStatusAs,
  updateOverrideAs,
  upsertAudienceAs,
  upsertExperimentAs,
  upsertKeyAs,
} from "../../services/remote-config/operator";
import {
  ZAudienceChange,
  ZAudienceId,
  ZAudienceRules,
  ZConfigKeyId,
  ZExperimentChange,
  ZExperimentId,
  ZExperimentStatus,
  ZKeyChange,
  ZOverrideCreate,
  ZOverrideUpdate,
  ZReason,
} from "../../services/remote-config/schemas";
import { input, projectProcedure, router } from "../init";

/**
 * Remote config for operators: keys with their overrides, audiences (with how many players match
 * now), experiments, and what one player resolves to. Viewers read (and preview an audience's
 * count); admins change, each change with a reason (the services decide and audit).
 */
const ZProjectId = z.string().uuid();
const ZProject = z.strictObject({ projectId: ZProjectId });
const withReason = { projectId: ZProjectId, reason: ZReason };

export const remoteConfigRouter = router({
  listKeys: projectProcedure("VIEWER")
    .input(input(ZProject))
    .query(({ ctx, input }) => listKeysAs(ctx, input)),
  upsertKey: projectProcedure("ADMIN")
    .input(input(ZKeyChange))
    .mutation(({ ctx, input }) => upsertKeyAs(ctx, input)),
  deleteKey: projectProcedure("ADMIN")
    .input(input(z.strictObject({ ...withReason, key: ZConfigKeyId })))
    .mutation(({ ctx, input }) => deleteKeyAs(ctx, input)),

  createOverride: projectProcedure("ADMIN")
    .input(input(ZOverrideCreate))
    .mutation(({ ctx, input }) => createOverrideAs(ctx, input)),
  updateOverride: projectProcedure("ADMIN")
    .input(input(ZOverrideUpdate))
    .mutation(({ ctx, input }) => updateOverrideAs(ctx, input)),
  deleteOverride: projectProcedure("ADMIN")
    .input(input(z.strictObject({ ...withReason, id: z.string().uuid() })))
    .mutation(({ ctx, input }) => deleteOverrideAs(ctx, input)),

  listAudiences: projectProcedure("VIEWER")
    .input(input(ZProject))
    .query(({ ctx, input }) => listAudiencesAs(ctx, input)),
  upsertAudience: projectProcedure("ADMIN")
    .input(input(ZAudienceChange))
    .mutation(({ ctx, input }) => upsertAudienceAs(ctx, input)),
  deleteAudience: projectProcedure("ADMIN")
    .input(input(z.strictObject({ ...withReason, id: ZAudienceId })))
    .mutation(({ ctx, input }) => deleteAudienceAs(ctx, input)),
  /** A preview while editing rules: how many players match now. */
  countAudience: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId, rules: ZAudienceRules })))
    .query(({ ctx, input }) => countAudienceAs(ctx, input)),

  listExperiments: projectProcedure("VIEWER")
    .input(input(ZProject))
    .query(({ ctx, input }) => listExperimentsAs(ctx, input)),
  /** Variants, weights and audience change only in draft (EXPERIMENT_LOCKED after). */
  upsertExperiment: projectProcedure("ADMIN")
    .input(input(ZExperimentChange))
    .mutation(({ ctx, input }) => upsertExperimentAs(ctx, input)),
  /** draft → running → stopped (draft → stopped too). */
  setExperimentStatus: projectProcedure("ADMIN")
    .input(input(z.strictObject({ ...withReason, id: ZExperimentId, status: ZExperimentStatus })))
    .mutation(({ ctx, input }) => setExperimentStatusAs(ctx, input)),

  /** Support: a player's values, assignments, matched audiences and the override that won each key; assigns nothing. */
  resolveForPlayer: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId, playerId: z.string().uuid() })))
    .query(({ ctx, input }) => resolveForPlayerAs(ctx, input)),
});
