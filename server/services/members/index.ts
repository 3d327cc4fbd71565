import { randomBytes } from "node:crypto";
import { sha256, uuidv7 } from "../../crypto";
import { pool, prisma } from "../../db";
import { AppError } from "../../errors";
import type { MemberRole } from "../../generated/prisma/enums";
import { queueInviteEmail } from "../../mailer/operator";
import { passwordProblem } from "../../password-policy";
import { hashPassword } from "../../passwords";
import { validationError } from "../../validation";
import { type Authorization, authorize, lockProject, type OperatorContext, runCommand } from "../command";

/**
 * Project members and invites, managed by owners. An e-mail with an operator account is added at
 * once; any other gets a one-time invite link (shown once; only its SHA-256 is stored) that
 * expires after INVITE_DAYS and sets the new operator's password. A project always keeps an owner.
 */
export const INVITE_DAYS = 7;

export type MemberDto = { operatorId: string; email: string; name: string; role: MemberRole; since: string };
export type InviteDto = { id: string; email: string; role: MemberRole; expiresAt: string };

/** Viewers and up. */
export async function listMembersAs(
  ctx: OperatorContext,
  o: { projectId: string },
): Promise<{ members: MemberDto[]; invites: InviteDto[] }> {
  await authorize(ctx, o.projectId, "VIEWER");
  const [members, invites] = await Promise.all([
    prisma().projectMember.findMany({
      where: { projectId: o.projectId },
      select: { role: true, createdAt: true, operator: { select: { id: true, email: true, name: true } } },
      orderBy: { createdAt: "asc" },
    }),
    prisma().invite.findMany({
      where: { projectId: o.projectId, acceptedAt: null, expiresAt: { gt: new Date() } },
      select: { id: true, email: true, role: true, expiresAt: true },
      orderBy: { createdAt: "asc" },
    }),
  ]);
  return {
    members: members.map((m) => ({
      operatorId: m.operator.id,
      email: m.operator.email,
      name: m.operator.name,
      role: m.role,
      since: m.createdAt.toISOString(),
    })),
    invites: invites.map((i) => ({ ...i, expiresAt: i.expiresAt.toISOString() })),
  };
}

/** `emailed`: the invite's link was also queued to the invitee's address (false: this instance has no SMTP server). */
export type AddMemberResult =
  | { added: MemberDto; invitePath: null; emailed: false }
  | { added: null; invitePath: string; emailed: boolean };

/**
 * Owners add an existing operator at once, or create an invite whose link is in this answer and,
 * when the instance has an SMTP server, mailed to the invitee (the instance's operator mail, never
 * a project's e-mail log). Audited as member.add or member.invite.
 */
export function addMemberAs(ctx: OperatorContext, o: { projectId: string; email: string; role: MemberRole }): Promise<AddMemberResult> {
  const email = o.email.trim().toLowerCase();
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "OWNER",
    prepare: lockProject(o.projectId),
    action: (r) => (r.added ? "member.add" : "member.invite"),
    target: email,
    after: () => ({ role: o.role }),
    run: async (actor) => {
      const operator = await prisma().operator.findUnique({ where: { email }, select: { id: true, email: true, name: true } });
      if (operator) {
        const existing = await prisma().projectMember.findUnique({
          where: { projectId_operatorId: { projectId: o.projectId, operatorId: operator.id } },
          select: { role: true },
        });
        if (existing) throw new AppError("ALREADY_EXISTS", { message: `${email} is already a member (${existing.role.toLowerCase()}).` });
        const row = await prisma().projectMember.create({
          data: { projectId: o.projectId, operatorId: operator.id, role: o.role },
          select: { createdAt: true },
        });
        const added = {
          operatorId: operator.id,
          email: operator.email,
          name: operator.name,
          role: o.role,
          since: row.createdAt.toISOString(),
        };
        return { added, invitePath: null, emailed: false as const };
      }
      const token = randomBytes(32).toString("base64url");
      const expiresAt = new Date(Date.now() + INVITE_DAYS * 86_400_000);
      const id = uuidv7();
      await prisma().invite.create({
        data: {
          id,
          projectId: o.projectId,
          email,
          role: o.role,
          tokenHash: sha256(token),
          createdBy: actor.operatorId,
          expiresAt,
        },
      });
      const inviter = await prisma().operator.findUnique({ where: { id: actor.operatorId }, select: { name: true, email: true } });
      const invitedBy = inviter ? `${inviter.name} (${inviter.email})` : "A project owner";
      const emailed = await queueInviteEmail({ inviteId: id, token, invitedBy });
      return { added: null, invitePath: `/invite/${token}`, emailed };
    },
  });
}

/**
 * Inside a command serialized on the project (its row locked before anything is read): two owners
 * demoting or removing each other at the same moment would otherwise each count the other as the
 * owner left, and both succeed.
 */
async function assertKeepsAnOwner(projectId: string, operatorId: string): Promise<void> {
  const { rows } = await pool().query<{ owners: number }>(
    "SELECT count(*)::int AS owners FROM project_members WHERE project_id = $1 AND role = 'OWNER' AND operator_id <> $2",
    [projectId, operatorId],
  );
  if ((rows[0]?.owners ?? 0) === 0) throw new AppError("FORBIDDEN", { message: "A project keeps at least one owner." });
}

/** Owners change a member's role; the project keeps an owner. Audited as member.role. */
export function setMemberRoleAs(ctx: OperatorContext, o: { projectId: string; operatorId: string; role: MemberRole }): Promise<void> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "OWNER",
    prepare: lockProject(o.projectId),
    action: "member.role",
    target: o.operatorId,
    after: () => ({ role: o.role }),
    run: async () => {
      if (o.role !== "OWNER") await assertKeepsAnOwner(o.projectId, o.operatorId);
      const { count } = await prisma().projectMember.updateMany({
        where: { projectId: o.projectId, operatorId: o.operatorId },
        data: { role: o.role },
      });
      if (count === 0) throw new AppError("NOT_FOUND", { message: "Not a member." });
    },
  });
}

/** Owners remove a member; the project keeps an owner. Audited as member.remove. */
export function removeMemberAs(ctx: OperatorContext, o: { projectId: string; operatorId: string }): Promise<void> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "OWNER",
    prepare: lockProject(o.projectId),
    action: "member.remove",
    target: o.operatorId,
    run: async () => {
      await assertKeepsAnOwner(o.projectId, o.operatorId);
      const { count } = await prisma().projectMember.deleteMany({ where: { projectId: o.projectId, operatorId: o.operatorId } });
      if (count === 0) throw new AppError("NOT_FOUND", { message: "Not a member." });
    },
  });
}

/** Owners revoke an unused invite. Audited as member.invite-revoke. */
export function revokeInviteAs(ctx: OperatorContext, o: { projectId: string; inviteId: string }): Promise<void> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "OWNER",
    action: "member.invite-revoke",
    target: o.inviteId,
    run: async () => {
      const { count } = await prisma().invite.deleteMany({ where: { id: o.inviteId, projectId: o.projectId, acceptedAt: null } });
      if (count === 0) throw new AppError("NOT_FOUND", { message: "Invite not found." });
    },
  });
}

const inviteGone = () => new AppError("NOT_FOUND", { message: "This invite link was used, revoked or has expired." });

/**
 * What an invite link is for (public: the invited e-mail and the project's name), or NOT_FOUND.
 * The caller is whoever holds the link: its token is the credential, not the request's operator.
 */
export async function inviteInfoAs(
  _ctx: OperatorContext,
  o: { token: string },
): Promise<{ email: string; project: string; role: MemberRole }> {
  return inviteInfo(o);
}

async function inviteInfo(o: { token: string }): Promise<{ email: string; project: string; role: MemberRole }> {
  const invite = await prisma().invite.findUnique({
    where: { tokenHash: sha256(o.token) },
    select: { email: true, role: true, acceptedAt: true, expiresAt: true, project: { select: { name: true } } },
  });
  if (!invite || invite.acceptedAt || invite.expiresAt <= new Date()) throw inviteGone();
  return { email: invite.email, project: invite.project.name, role: invite.role };
}

/** Uses the link once (the invite-token rule): creates the operator with this password and the membership, in one transaction. */
export async function acceptInviteAs(
  ctx: OperatorContext,
  o: { token: string; name: string; password: string },
): Promise<{ email: string; projectId: string; operatorId: string; role: MemberRole }> {
  const info = await inviteInfo({ token: o.token });
  const problem = passwordProblem(o.password, info.email);
  if (problem) throw validationError([{ path: "input.password", message: problem }]);
  const passwordHash = await hashPassword(o.password);
  return runCommand(null, {
    authorization: inviteToken(o.token),
    action: "member.accept",
    target: (accepted) => accepted.email,
    after: (accepted) => ({ role: accepted.role }),
    // The new operator's first act, audited as theirs.
    auditActorOf: (accepted) => ({ kind: "operator", operatorId: accepted.operatorId, requestId: ctx.requestId, tokenId: null }),
    run: async (invite) => {
      const taken = await prisma().operator.findUnique({ where: { email: invite.email }, select: { id: true } });
      if (taken)
        throw new AppError("ALREADY_EXISTS", { message: "An operator with this e-mail exists: ask an owner to add them directly." });
      const operator = await prisma().operator.create({ data: { email: invite.email, name: o.name, passwordHash }, select: { id: true } });
      await prisma().projectMember.create({ data: { projectId: invite.projectId, operatorId: operator.id, role: invite.role } });
      return { email: invite.email, projectId: invite.projectId, operatorId: operator.id, role: invite.role };
    },
  });
}

type AcceptedInvite = { email: string; projectId: string; role: MemberRole };

/** The invite-token rule: the link's token is the credential; it is used up here, once (a second use, a revoked or expired link: NOT_FOUND). */
const inviteToken =
  (token: string): Authorization<AcceptedInvite> =>
  async () => {
    const { rows } = await pool().query<{ project_id: string; email: string; role: MemberRole }>(
      `UPDATE invites SET accepted_at = now()
        WHERE token_hash = $1 AND accepted_at IS NULL AND expires_at > now()
        RETURNING project_id, email, role`,
      [Buffer.from(sha256(token))],
    );
    const invite = rows[0];
    if (!invite) throw inviteGone();
    return { actor: { email: invite.email, projectId: invite.project_id, role: invite.role }, projectId: invite.project_id };
  };
