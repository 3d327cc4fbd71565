import { z } from "zod";
import { auditActorFor } from "../../auth/operator";
import { transaction } from "../../db";
import { recordAudit } from "../../services/audit";
import { acceptInvite, addMember, inviteInfo, listMembers, removeMember, revokeInvite, setMemberRole } from "../../services/members";
import { ZMemberEmail, ZMemberRole, ZOperatorName } from "../../services/members/schemas";
import { input, projectProcedure, publicProcedure, router } from "../init";

const ZProjectId = z.string().uuid();
const ZToken = z.string().min(20).max(100);

export const membersRouter = router({
  list: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId })))
    .query(({ input }) => listMembers(input)),

  /** Owners add an operator by e-mail; an e-mail without an account gets a one-time link (in this answer only). */
  add: projectProcedure("OWNER")
    .input(input(z.strictObject({ projectId: ZProjectId, email: ZMemberEmail, role: ZMemberRole })))
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        const result = await addMember({ ...input, invitedBy: ctx.operator.id });
        await recordAudit({
          actor: auditActorFor(ctx.operator, ctx.requestId),
          projectId: input.projectId,
          action: result.kind === "added" ? "member.add" : "member.invite",
          target: input.email,
          after: { role: input.role },
        });
        return result.kind === "added"
          ? { added: result.member, invitePath: null }
          : { added: null, invitePath: `/invite/${result.token}` };
      }),
    ),

  setRole: projectProcedure("OWNER")
    .input(input(z.strictObject({ projectId: ZProjectId, operatorId: z.string().uuid(), role: ZMemberRole })))
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        await setMemberRole(input);
        await recordAudit({
          actor: auditActorFor(ctx.operator, ctx.requestId),
          projectId: input.projectId,
          action: "member.role",
          target: input.operatorId,
          after: { role: input.role },
        });
      }),
    ),

  remove: projectProcedure("OWNER")
    .input(input(z.strictObject({ projectId: ZProjectId, operatorId: z.string().uuid() })))
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        await removeMember(input);
        await recordAudit({
          actor: auditActorFor(ctx.operator, ctx.requestId),
          projectId: input.projectId,
          action: "member.remove",
          target: input.operatorId,
        });
      }),
    ),

  revokeInvite: projectProcedure("OWNER")
    .input(input(z.strictObject({ projectId: ZProjectId, inviteId: z.string().uuid() })))
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        await revokeInvite(input);
        await recordAudit({
          actor: auditActorFor(ctx.operator, ctx.requestId),
          projectId: input.projectId,
          action: "member.invite-revoke",
          target: input.inviteId,
        });
      }),
    ),

  /** Public: what a link is for. */
  invite: publicProcedure.input(input(z.strictObject({ token: ZToken }))).query(({ input }) => inviteInfo(input)),

  /** Public: uses the link once (the new operator then signs in). */
  accept: publicProcedure
    .input(input(z.strictObject({ token: ZToken, name: ZOperatorName, password: z.string().min(8).max(128) })))
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        const accepted = await acceptInvite(input);
        await recordAudit({
          actor: { operatorId: accepted.operatorId, requestId: ctx.requestId },
          projectId: accepted.projectId,
          action: "member.accept",
          target: accepted.email,
          after: { role: accepted.role },
        });
        return { email: accepted.email };
      }),
    ),
});
