import { z } from "zod";
import {
  acceptInviteAs,
  addMemberAs,
  inviteInfoAs,
  listMembersAs,
  removeMemberAs,
  revokeInviteAs,
  setMemberRoleAs,
} from "../../services/members";
import { ZMemberEmail, ZMemberRole, ZOperatorName } from "../../services/members/schemas";
import { input, projectProcedure, publicProcedure, router } from "../init";

const ZProjectId = z.string().uuid();
const ZToken = z.string().min(20).max(100);

/** Every command here is a service call; the services authorize, run, audit (server/services/command.ts). */
export const membersRouter = router({
  list: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId })))
    .query(({ ctx, input }) => listMembersAs(ctx, input)),

  /** Owners add an operator by e-mail; an e-mail without an account gets a one-time link (in this answer only). */
  add: projectProcedure("OWNER")
    .input(input(z.strictObject({ projectId: ZProjectId, email: ZMemberEmail, role: ZMemberRole })))
    .mutation(({ ctx, input }) => addMemberAs(ctx, input)),

  setRole: projectProcedure("OWNER")
    .input(input(z.strictObject({ projectId: ZProjectId, operatorId: z.string().uuid(), role: ZMemberRole })))
    .mutation(({ ctx, input }) => setMemberRoleAs(ctx, input)),

  remove: projectProcedure("OWNER")
    .input(input(z.strictObject({ projectId: ZProjectId, operatorId: z.string().uuid() })))
    .mutation(({ ctx, input }) => removeMemberAs(ctx, input)),

  revokeInvite: projectProcedure("OWNER")
    .input(input(z.strictObject({ projectId: ZProjectId, inviteId: z.string().uuid() })))
    .mutation(({ ctx, input }) => revokeInviteAs(ctx, input)),

  /** Public: what a link is for. */
  invite: publicProcedure.input(input(z.strictObject({ token: ZToken }))).query(({ ctx, input }) => inviteInfoAs(ctx, input)),

  /** Public: uses the link once; the dashboard then signs the new operator in and opens the project. */
  accept: publicProcedure
    .input(input(z.strictObject({ token: ZToken, name: ZOperatorName, password: z.string().min(8).max(128) })))
    .mutation(({ ctx, input }) => acceptInviteAs(ctx, input).then(({ email, projectId }) => ({ email, projectId }))),
});
