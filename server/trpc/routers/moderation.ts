import { z } from "zod";
import {
  banFromQueueAs,
  dismissReportsAs,
  moderationPlayerAs,
  moderationQueueAs,
  removeReportedEntriesAs,
  reportReasonsAs,
  setReportReasonsAs,
  warnPlayerAs,
} from "../../services/reports/operator";
import {
  ZBanFromQueueInput,
  ZDismissInput,
  ZQueueFilter,
  ZRemoveEntriesInput,
  ZReportReasonsInput,
  ZWarnInput,
} from "../../services/reports/schemas";
import { input, projectProcedure, router } from "../init";

/**
 * The moderation queue: players' reports grouped by reported player, one player's file, and the
 * actions that answer reports. Viewers read; admins act (the services decide and audit).
 */
const ZProjectId = z.string().uuid();
const ZProject = z.strictObject({ projectId: ZProjectId });
const ZTarget = z.strictObject({ projectId: ZProjectId, playerId: z.string().uuid() });

export const moderationRouter = router({
  queue: projectProcedure("VIEWER")
    .input(input(ZQueueFilter.extend({ projectId: ZProjectId }).strict()))
    .query(({ ctx, input }) => moderationQueueAs(ctx, input)),
  player: projectProcedure("VIEWER")
    .input(input(ZTarget))
    .query(({ ctx, input }) => moderationPlayerAs(ctx, input)),
  reasons: projectProcedure("VIEWER")
    .input(input(ZProject))
    .query(({ ctx, input }) => reportReasonsAs(ctx, input)),
  setReasons: projectProcedure("ADMIN")
    .input(input(ZReportReasonsInput.extend({ projectId: ZProjectId }).strict()))
    .mutation(({ ctx, input }) => setReportReasonsAs(ctx, input)),
  dismiss: projectProcedure("ADMIN")
    .input(input(ZDismissInput.extend({ projectId: ZProjectId }).strict()))
    .mutation(({ ctx, input }) => dismissReportsAs(ctx, input)),
  warn: projectProcedure("ADMIN")
    .input(input(ZWarnInput.extend({ projectId: ZProjectId }).strict()))
    .mutation(({ ctx, input }) => warnPlayerAs(ctx, input)),
  ban: projectProcedure("ADMIN")
    .input(input(ZBanFromQueueInput.extend({ projectId: ZProjectId }).strict()))
    .mutation(({ ctx, input }) => banFromQueueAs(ctx, input)),
  removeEntries: projectProcedure("ADMIN")
    .input(input(ZRemoveEntriesInput.extend({ projectId: ZProjectId }).strict()))
    .mutation(({ ctx, input }) => removeReportedEntriesAs(ctx, input)),
});
