import { randomBytes } from "node:crypto";
import { forgetSessions } from "../../auth/session-cache";
import { sha256 } from "../../crypto";
import { prisma } from "../../db";
import { env } from "../../env";
import { countEvent } from "../../metrics";
import { signAccessToken } from "../../tokens/access-token";
import type { SessionDto } from "./schemas";

export function hashRefreshToken(token: string): Uint8Array<ArrayBuffer> {
  return sha256(token);
}

/** An opaque refresh token; only its SHA-256 is stored. */
export function newRefreshToken(): { token: string; hash: Uint8Array<ArrayBuffer> } {
  const token = `rt_${randomBytes(32).toString("base64url")}`;
  return { token, hash: hashRefreshToken(token) };
}

export function refreshExpiry(from = new Date()): Date {
  return new Date(from.getTime() + env().REFRESH_TOKEN_TTL_DAYS * 86_400_000);
}

export async function sessionDto(o: {
  projectId: string;
  playerId: string;
  sessionId: string;
  refreshToken: string;
  created: boolean;
}): Promise<SessionDto> {
  const { token, expiresIn } = await signAccessToken({ playerId: o.playerId, projectId: o.projectId, sessionId: o.sessionId });
  return { playerId: o.playerId, accessToken: token, refreshToken: o.refreshToken, expiresIn, tokenType: "Bearer", created: o.created };
}

/** A new session (sign-in) for an existing player. */
/** A new session after a sign-in (`method`: how; counted in gb_events_total, with a new player when `created`). */
export async function issueSession(o: {
  projectId: string;
  playerId: string;
  created: boolean;
  method: "email" | "idp";
}): Promise<SessionDto> {
  const refresh = newRefreshToken();
  const session = await prisma().session.create({
    data: {
      projectId: o.projectId,
      playerId: o.playerId,
      expiresAt: refreshExpiry(),
      refreshTokens: { create: { tokenHash: refresh.hash } },
    },
    select: { id: true },
  });
  countEvent("sign_in", o.method);
  if (o.created) countEvent("new_player", o.method);
  return sessionDto({
    projectId: o.projectId,
    playerId: o.playerId,
    created: o.created,
    sessionId: session.id,
    refreshToken: refresh.token,
  });
}

/** Ends sessions; their access and refresh tokens are refused from then on. */
export async function revokeSessions(o: { projectId: string; playerId: string; sessionId?: string; reason: string }): Promise<number> {
  const { count } = await prisma().session.updateMany({
    where: { projectId: o.projectId, playerId: o.playerId, ...(o.sessionId ? { id: o.sessionId } : {}), revokedAt: null },
    data: { revokedAt: new Date(), revokedReason: o.reason },
  });
  await forgetSessions(o.sessionId ? { sessionId: o.sessionId } : { playerId: o.playerId });
  return count;
}
