import { z } from "zod";
import { getEmailSettingsAs, listEmailsAs, openEmailAs, setEmailSettingsAs } from "../../services/email";
import { ZEmailSettingsInput } from "../../services/email/schemas";
import { input, projectProcedure, router } from "../init";

export const emailRouter = router({
  /** The project's e-mail to players, newest first: queued, sent, failed (with the SMTP answer), outbox. */
  list: projectProcedure("VIEWER")
    .input(
      input(
        z.strictObject({
          projectId: z.string().uuid(),
          status: z.enum(["QUEUED", "SENT", "FAILED", "OUTBOX"]).optional(),
          cursor: z.string().uuid().nullish(),
          direction: z.enum(["forward", "backward"]).optional(),
          limit: z.number().int().min(1).max(100).default(25),
        }),
      ),
    )
    .query(({ ctx, input }) =>
      listEmailsAs(ctx, { projectId: input.projectId, status: input.status, cursor: input.cursor ?? undefined, limit: input.limit }),
    ),

  /** One message's text, its code masked; a read that is audited (email.open), as exports are. */
  open: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: z.string().uuid(), id: z.string().uuid() })))
    .query(({ ctx, input }) => openEmailAs(ctx, input)),

  /** The sender players see and the two verification rules, with the defaults an empty sender falls back to. */
  settings: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: z.string().uuid() })))
    .query(({ ctx, input }) => getEmailSettingsAs(ctx, input)),

  /** Admins; audited as project.email-settings. */
  setSettings: projectProcedure("ADMIN")
    .input(input(ZEmailSettingsInput.extend({ projectId: z.string().uuid() })))
    .mutation(({ ctx, input }) => setEmailSettingsAs(ctx, input)),
});
