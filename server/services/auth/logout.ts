import { revokeSessions } from "./sessions";

/**
 * Ends the bearer token's session. A server key acting as a player (X-Player-Id) has no
 * session of its own: it signs the player out everywhere.
 */
export async function logout(o: { projectId: string; playerId: string; sessionId: string | null }): Promise<void> {
  await revokeSessions({
    projectId: o.projectId,
    playerId: o.playerId,
    ...(o.sessionId ? { sessionId: o.sessionId } : {}),
    reason: "logout",
  });
}
