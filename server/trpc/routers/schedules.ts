import { z } from "zod";
import { cancelScheduledChangeAs, listScheduledChangesAs, scheduleChangeAs } from "../../services/schedules";
import { ZScheduleInput } from "../../services/schedules/schemas";
import { input, projectProcedure, router } from "../init";

/** Scheduled changes (sales, board settings at a time) for the live-ops calendar: viewers read; admins schedule and cancel. */
const ZProjectId = z.string().uuid();

export const schedulesRouter = router({
  list: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId })))
    .query(({ ctx, input }) => listScheduledChangesAs(ctx, input)),
  schedule: projectProcedure("ADMIN")
    .input(input(ZScheduleInput.extend({ projectId: ZProjectId })))
    .mutation(({ ctx, input }) => scheduleChangeAs(ctx, input)),
  /** Not started: never applies; running: reverted now. */
  cancel: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, id: z.string().uuid() })))
    .mutation(({ ctx, input }) => cancelScheduledChangeAs(ctx, input)),
});
