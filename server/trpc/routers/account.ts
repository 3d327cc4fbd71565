import { z } from "zod";
import { listOperatorSessions } from "../../identity/operator-sessions";
import { listAccountActivity } from "../../services/audit";
import {
  changeOwnPassword,
  endOwnSession,
  listOperators,
  removeOperator,
  setOperatorCanCreateProjects,
  setOperatorDisabled,
  signOutEverywhere,
} from "../../services/operators";
import { input, instanceAdminProcedure, router, sessionProcedure } from "../init";

/** The signed-in operator's own account: sessions, password, activity. A dashboard session only (never a token). */
export const accountRouter = router({
  sessions: sessionProcedure.query(({ ctx }) =>
    listOperatorSessions({ operatorId: ctx.operator.id, currentSessionId: ctx.operator.sessionId }),
  ),

  revokeSession: sessionProcedure
    .input(input(z.strictObject({ sessionId: z.string().uuid() })))
    .mutation(({ ctx, input }) => endOwnSession({ actor: ctx.operator, requestId: ctx.requestId, sessionId: input.sessionId })),

  /** Ends every session of the operator, this one included (the dashboard then shows sign-in). */
  signOutEverywhere: sessionProcedure.mutation(({ ctx }) => signOutEverywhere({ actor: ctx.operator, requestId: ctx.requestId })),

  changePassword: sessionProcedure
    .input(input(z.strictObject({ currentPassword: z.string().min(1).max(1024), newPassword: z.string().min(1).max(1024) })))
    .mutation(({ ctx, input }) => changeOwnPassword({ actor: ctx.operator, requestId: ctx.requestId, ...input })),

  /** What was done with this account outside projects: tokens, sessions, password (newest first). */
  activity: sessionProcedure.query(({ ctx }) => listAccountActivity({ operatorId: ctx.operator.id, limit: 50 })),
});

/** Instance admins: the installation's operators. */
export const operatorsRouter = router({
  list: instanceAdminProcedure.query(({ ctx }) => listOperators({ actor: ctx.operator })),
  setDisabled: instanceAdminProcedure
    .input(input(z.strictObject({ operatorId: z.string().uuid(), disabled: z.boolean() })))
    .mutation(({ ctx, input }) => setOperatorDisabled({ actor: ctx.operator, requestId: ctx.requestId, ...input })),
  setCanCreateProjects: instanceAdminProcedure
    .input(input(z.strictObject({ operatorId: z.string().uuid(), allowed: z.boolean() })))
    .mutation(({ ctx, input }) => setOperatorCanCreateProjects({ actor: ctx.operator, requestId: ctx.requestId, ...input })),
  /** Memberships and tokens go, sessions end, the row stays anonymised for the audit trail; refused while they are a project's only owner. */
  remove: instanceAdminProcedure
    .input(input(z.strictObject({ operatorId: z.string().uuid() })))
    .mutation(({ ctx, input }) => removeOperator({ actor: ctx.operator, requestId: ctx.requestId, operatorId: input.operatorId })),
});
