import { isUniqueViolation, prisma } from "../../db";
import { AppError } from "../../errors";
import type { ClientInfo } from "../../identity/client-info";
import { assertNotBanned } from "../../identity/player";
import { dummyPasswordHash, hashPassword, verifyPassword } from "../../passwords";
import { ipSubject } from "../../ratelimit/ip";
import { beginLoginAttempt, checkPassword, countRegistration, loginSucceeded } from "../../ratelimit/login";
import { withEvents } from "../webhooks/emit";
import { emitEvent } from "../webhooks/events";
import { mailVerificationCode } from "./account-email";
import type { SessionDto } from "./schemas";
import { issueSession } from "./sessions";

/**
 * Registers an e-mail account. With a player (a bearer token of a player without an e-mail),
 * the e-mail is linked to that player instead: the anonymous account upgrade.
 */
export async function registerWithEmail(o: {
  /** What the client says about itself (X-Client-Version, X-Platform), recorded on the session and player. */
  client?: ClientInfo;
  projectId: string;
  email: string;
  password: string;
  displayName?: string;
  playerId: string | null;
  /** The client address, for the per-IP registration budget; absent for operator/system calls. */
  ip?: string;
}): Promise<SessionDto> {
  const counted = o.ip === undefined ? null : await countRegistration({ projectId: o.projectId, ip: o.ip });
  const passwordHash = await hashPassword(o.password, { source: o.ip === undefined ? undefined : ipSubject(o.ip) }).catch(
    async (error: unknown) => {
      await counted?.giveBack();
      throw error;
    },
  );
  try {
    // The player (or the link), its verification mail and its session commit with their events.
    return await withEvents(o.projectId, async (emitting) => {
      if (o.playerId) {
        const linked = await prisma().player.updateMany({
          where: { id: o.playerId, projectId: o.projectId, email: null },
          data: { email: o.email, passwordHash, ...(o.displayName ? { displayName: o.displayName } : {}), lastLoginAt: new Date() },
        });
        if (linked.count === 0) {
          throw new AppError("ACCOUNT_ALREADY_LINKED", { message: "This player already has an e-mail address." });
        }
        if (emitting) {
          const data = { playerId: o.playerId, email: o.email };
          await emitEvent({ projectId: o.projectId, type: "player.email_linked", playerId: o.playerId, data });
        }
        await mailVerificationCode({ projectId: o.projectId, playerId: o.playerId, email: o.email });
        return issueSession({ projectId: o.projectId, playerId: o.playerId, created: false, method: "email", client: o.client });
      }
      const player = await prisma().player.create({
        data: { projectId: o.projectId, email: o.email, passwordHash, displayName: o.displayName ?? null, lastLoginAt: new Date() },
        select: { id: true },
      });
      await mailVerificationCode({ projectId: o.projectId, playerId: player.id, email: o.email });
      return issueSession({ projectId: o.projectId, playerId: player.id, created: true, method: "email", client: o.client });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("EMAIL_TAKEN");
    throw error;
  }
}

/** Unknown e-mail and wrong password answer alike, and take as long. */
export async function loginWithEmail(o: {
  /** What the client says about itself (X-Client-Version, X-Platform), recorded on the session and player. */
  client?: ClientInfo;
  projectId: string;
  email: string;
  password: string;
  ip: string;
}): Promise<SessionDto> {
  const attempt = await beginLoginAttempt({ projectId: o.projectId, email: o.email, ip: o.ip });
  const player = await prisma().player.findUnique({
    where: { projectId_email: { projectId: o.projectId, email: o.email } },
    select: {
      id: true,
      passwordHash: true,
      emailVerifiedAt: true,
      bannedAt: true,
      bannedUntil: true,
      banReason: true,
      project: { select: { requireVerifiedEmail: true } },
    },
  });
  const hash = player?.passwordHash ?? (await dummyPasswordHash());
  const valid = await checkPassword(attempt, (known) => verifyPassword(hash, o.password, known));
  if (!player?.passwordHash || !valid) throw new AppError("INVALID_CREDENTIALS");
  await loginSucceeded(attempt, { playerId: player.id, ip: o.ip });
  assertNotBanned(player);
  if (player.project.requireVerifiedEmail && !player.emailVerifiedAt) throw new AppError("EMAIL_NOT_VERIFIED");
  await prisma().player.update({ where: { id: player.id }, data: { lastLoginAt: new Date() }, select: { id: true } });
  return issueSession({ projectId: o.projectId, playerId: player.id, created: false, method: "email", client: o.client });
}
