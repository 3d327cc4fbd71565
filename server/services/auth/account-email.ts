import type { PlayerActor } from "../../actor";
import { prisma, transaction } from "../../db";
import { AppError } from "../../errors";
import type { ClientInfo } from "../../identity/client-info";
import { isBanned } from "../../identity/player";
import { queueEmail } from "../../mailer";
import { hashPassword } from "../../passwords";
import { enqueue, handle, QUEUES } from "../../queue";
import { ipSubject } from "../../ratelimit/ip";
import { beginLoginAttempt, countCodeRequest, loginSucceeded } from "../../ratelimit/login";
import { getProfile } from "../profiles";
import type { OwnProfile } from "../profiles/schemas";
import { type CodePurpose, consumeCode, issueCode } from "./codes";
import type { SessionDto } from "./schemas";
import { issueSession, revokeSessions } from "./sessions";

/**
 * Password reset and e-mail verification by code. A reset request only enqueues a job and
 * answers 202: whether the address has an account (and may get a code) is decided by the job,
 * so the answer and its timing are the same for every address.
 */
type ResetRequest = { kind: "password-reset"; projectId: string; email: string };

const TEMPLATE = { PASSWORD_RESET: "password_reset", EMAIL_VERIFICATION: "email_verification" } as const;

/** A new code for `purpose`, mailed to `email`: both written together (a transaction, or the caller's). */
function mailCode(o: { projectId: string; playerId: string; purpose: CodePurpose; email: string }): Promise<void> {
  return transaction(async () => {
    const code = await issueCode({ playerId: o.playerId, purpose: o.purpose, email: o.email });
    await queueEmail({ projectId: o.projectId, playerId: o.playerId, template: TEMPLATE[o.purpose], to: o.email, code });
  });
}

export async function requestPasswordReset(o: { projectId: string; email: string; ip: string }): Promise<Record<string, never>> {
  await countCodeRequest({ projectId: o.projectId, account: o.email, ip: o.ip });
  const job: ResetRequest = { kind: "password-reset", projectId: o.projectId, email: o.email };
  await enqueue(QUEUES.accountEmail, job, { retryLimit: 5, retryDelay: 5, retryBackoff: true });
  return {};
}

/** The job: a code goes to accounts that exist, are not banned, and are verified (or the project allows unverified). */
async function sendResetCode(job: ResetRequest): Promise<void> {
  const player = await prisma().player.findUnique({
    where: { projectId_email: { projectId: job.projectId, email: job.email } },
    select: {
      id: true,
      email: true,
      emailVerifiedAt: true,
      bannedAt: true,
      bannedUntil: true,
      banReason: true,
      project: { select: { resetUnverifiedEmail: true } },
    },
  });
  // A ban in force sends no code; a timed ban that has ended does not block the reset.
  if (!player?.email || isBanned(player)) return;
  if (!player.emailVerifiedAt && !player.project.resetUnverifiedEmail) return;
  await mailCode({ projectId: job.projectId, playerId: player.id, purpose: "PASSWORD_RESET", email: player.email });
}

/**
 * A new password with the e-mailed code: the player is signed in with a new session and every
 * other session ends. Tries count against the login budgets (a wrong code is a failed login).
 */
export async function confirmPasswordReset(o: {
  /** What the client says about itself (X-Client-Version, X-Platform), recorded on the session and player. */
  client?: ClientInfo;
  projectId: string;
  email: string;
  code: string;
  password: string;
  ip: string;
}): Promise<SessionDto> {
  const attempt = await beginLoginAttempt({ projectId: o.projectId, email: o.email, ip: o.ip });
  const player = await prisma().player.findUnique({
    where: { projectId_email: { projectId: o.projectId, email: o.email } },
    select: { id: true },
  });
  if (!player) throw new AppError("INVALID_CODE");
  // Hashed before the code is used: a hashing gate that refuses (503, busy) leaves the code for the retry.
  const passwordHash = await hashPassword(o.password, { source: ipSubject(o.ip) });
  const sent = await consumeCode({
    projectId: o.projectId,
    playerId: player.id,
    purpose: "PASSWORD_RESET",
    code: o.code,
    address: o.email,
  });
  if (sent.email !== o.email) throw new AppError("INVALID_CODE");
  await transaction(async () => {
    const changed = await prisma().player.updateMany({
      where: { id: player.id, projectId: o.projectId, email: o.email },
      // The code reached this address: it is verified too.
      data: { passwordHash, emailVerifiedAt: new Date(), lastLoginAt: new Date() },
    });
    if (changed.count === 0) throw new AppError("INVALID_CODE");
    await revokeSessions({ projectId: o.projectId, playerId: player.id, reason: "password_reset" });
  });
  await loginSucceeded(attempt, { playerId: player.id, ip: o.ip });
  return issueSession({ projectId: o.projectId, playerId: player.id, created: false, method: "email", client: o.client });
}

/** Sends a verification code to the player's address (registration, a resend, an operator). Nothing when verified or without one. */
export async function sendVerificationCode(o: { projectId: string; playerId: string }): Promise<boolean> {
  const player = await prisma().player.findFirst({
    where: { id: o.playerId, projectId: o.projectId },
    select: { email: true, emailVerifiedAt: true },
  });
  if (!player?.email || player.emailVerifiedAt) return false;
  await mailCode({ ...o, purpose: "EMAIL_VERIFICATION", email: player.email });
  return true;
}

/** A new account's (or a newly linked address's) first verification code: its address is known and unverified. */
export function mailVerificationCode(o: { projectId: string; playerId: string; email: string }): Promise<void> {
  return mailCode({ ...o, purpose: "EMAIL_VERIFICATION" });
}

/**
 * An operator sends the player a reset code (a support request): any player with an address,
 * verified or not — the operator vouches for them. Runs inside the operator command's transaction.
 */
export async function sendResetCodeNow(o: { projectId: string; playerId: string }): Promise<{ sentTo: string }> {
  const player = await prisma().player.findFirst({ where: { id: o.playerId, projectId: o.projectId }, select: { email: true } });
  if (!player) throw new AppError("PLAYER_NOT_FOUND");
  if (!player.email) throw new AppError("VALIDATION_ERROR", { message: "This player has no e-mail address." });
  await mailCode({ ...o, purpose: "PASSWORD_RESET", email: player.email });
  return { sentTo: player.email };
}

/** POST /auth/email/verify/resend: 202 whether or not a code was due (verified, no address). */
export async function resendVerification(o: { actor: PlayerActor; ip: string }): Promise<Record<string, never>> {
  await countCodeRequest({ projectId: o.actor.projectId, account: `player:${o.actor.playerId}`, ip: o.ip });
  await sendVerificationCode({ projectId: o.actor.projectId, playerId: o.actor.playerId });
  return {};
}

/** POST /auth/email/verify: the code proves the player reads mail at their address. */
export async function verifyEmail(o: { actor: PlayerActor; code: string }): Promise<OwnProfile> {
  const player = await prisma().player.findFirst({
    where: { id: o.actor.playerId, projectId: o.actor.projectId },
    select: { email: true },
  });
  if (!player?.email) throw new AppError("INVALID_CODE");
  const sent = await consumeCode({
    projectId: o.actor.projectId,
    playerId: o.actor.playerId,
    purpose: "EMAIL_VERIFICATION",
    code: o.code,
    address: player.email,
  });
  const { count } = await prisma().player.updateMany({
    where: { id: o.actor.playerId, projectId: o.actor.projectId, email: sent.email },
    data: { emailVerifiedAt: new Date() },
  });
  // The address changed since the code was sent: it proves nothing about the new one.
  if (count === 0) throw new AppError("INVALID_CODE");
  return (await getProfile({ actor: o.actor, playerId: o.actor.playerId })) as OwnProfile;
}

export function registerAccountEmailJobs(): void {
  handle(QUEUES.accountEmail, async (data) => {
    const job = data as ResetRequest;
    if (job.kind === "password-reset") await sendResetCode(job);
  });
}
