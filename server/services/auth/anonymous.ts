import { prisma } from "../../db";
import type { SessionDto } from "./schemas";
import { newRefreshToken, refreshExpiry, sessionDto } from "./sessions";

/** A new player with a new session, every call. */
export async function signInAnonymously({ projectId }: { projectId: string }): Promise<SessionDto> {
  const refresh = newRefreshToken();
  const player = await prisma().player.create({
    data: {
      projectId,
      lastLoginAt: new Date(),
      sessions: { create: { projectId, expiresAt: refreshExpiry(), refreshTokens: { create: { tokenHash: refresh.hash } } } },
    },
    select: { id: true, sessions: { select: { id: true } } },
  });
  const sessionId = player.sessions[0]?.id;
  if (!sessionId) throw new Error("session was not created");
  return sessionDto({ projectId, playerId: player.id, sessionId, refreshToken: refresh.token, created: true });
}
