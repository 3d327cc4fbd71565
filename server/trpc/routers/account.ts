import { z } from "zod";
import {
  accountActivityAs,
  changePasswordAs,
  endSessionAs,
  listOperatorsAs,
  listSessionsAs,
  removeOperatorAs,
  setOperatorCanCreateProjectsAs,
  setOperatorDisabledAs,
  signOutEverywhereAs,
} from "../../services/operators";
import { input, instanceAdminProcedure, router, sessionProcedure } from "../init";

/** The signed-in operator's own account: sessions, password, activity. A dashboard session only (never a token). */
export const accountRouter = router({
  sessions: sessionProcedure.query(({ ctx }) => listSessionsAs(ctx)),

  revokeSession: sessionProcedure
    .input(input(z.strictObject({ sessionId: z.string().uuid() })))
    .mutation(({ ctx, input }) => endSessionAs(ctx, input)),

  /** Ends every session of the operator, this one included (the dashboard then shows sign-in). */
  signOutEverywhere: sessionProcedure.mutation(({ ctx }) => signOutEverywhereAs(ctx)),

  changePassword: sessionProcedure
    .input(input(z.strictObject({ currentPassword: z.string().min(1).max(1024), newPassword: z.string().min(1).max(1024) })))
    .mutation(({ ctx, input }) => changePasswordAs(ctx, input)),

  /** What was done with this account outside projects: tokens, sessions, password (newest first). */
  activity: sessionProcedure.query(({ ctx }) => accountActivityAs(ctx)),
});

/** Instance admins: the installation's operators. */
export const operatorsRouter = router({
  list: instanceAdminProcedure.query(({ ctx }) => listOperatorsAs(ctx)),
  setDisabled: instanceAdminProcedure
    .input(input(z.strictObject({ operatorId: z.string().uuid(), disabled: z.boolean() })))
    .mutation(({ ctx, input }) => setOperatorDisabledAs(ctx, input)),
  setCanCreateProjects: instanceAdminProcedure
    .input(input(z.strictObject({ operatorId: z.string().uuid(), allowed: z.boolean() })))
    .mutation(({ ctx, input }) => setOperatorCanCreateProjectsAs(ctx, input)),
  /** Memberships and tokens go, sessions end, the row stays anonymised for the audit trail; refused while they are a project's only owner. */
  remove: instanceAdminProcedure
    .input(input(z.strictObject({ operatorId: z.string().uuid() })))
    .mutation(({ ctx, input }) => removeOperatorAs(ctx, input)),
});
