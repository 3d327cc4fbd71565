import { pool } from "../db";
import { AppError } from "../errors";
import { type AccessClaims, invalidToken, verifyAccessToken } from "../tokens/access-token";

export type BanState = { bannedAt: Date | null; bannedUntil: Date | null; banReason: string | null };

export function isBanned(ban: BanState, now = new Date()): boolean {
  return ban.bannedAt !== null && (ban.bannedUntil === null || ban.bannedUntil > now);
}

export function bannedError(ban: BanState): AppError {
  return new AppError("PLAYER_BANNED", {
    details: { until: ban.bannedUntil?.toISOString() ?? null, reason: ban.banReason },
  });
}

export function assertNotBanned(ban: BanState): void {
  if (isBanned(ban)) throw bannedError(ban);
}

type SessionRow = {
  revoked_at: Date | null;
  expires_at: Date;
  banned_at: Date | null;
  banned_until: Date | null;
  ban_reason: string | null;
};

/**
 * Verifies a bearer token for the API key's project. One indexed query per request
 * (session by primary key joined to its player) makes logout, reuse detection and bans
 * take effect at once on every instance.
 */
export async function authenticateBearer(
  token: string,
  projectId: string,
  verified: AccessClaims | null = null,
): Promise<{ playerId: string; sessionId: string }> {
  const claims = verified ?? (await verifyAccessToken(token));
  if (claims.projectId !== projectId) throw invalidToken("project");
  const { rows } = await pool().query<SessionRow>({
    name: "auth-session",
    text: `SELECT s.revoked_at, s.expires_at, p.banned_at, p.banned_until, p.ban_reason
             FROM sessions s JOIN players p ON p.id = s.player_id
            WHERE s.id = $1 AND s.project_id = $2 AND s.player_id = $3`,
    values: [claims.sessionId, projectId, claims.playerId],
  });
  const row = rows[0];
  if (!row) throw invalidToken("revoked");
  // A ban ends the player's sessions too; the ban is the answer the game can act on.
  assertNotBanned({ bannedAt: row.banned_at, bannedUntil: row.banned_until, banReason: row.ban_reason });
  if (row.revoked_at) throw invalidToken("revoked");
  // The session outlives no access token: past its end, its tokens are refused too.
  if (row.expires_at <= new Date()) throw invalidToken("expired");
  return { playerId: claims.playerId, sessionId: claims.sessionId };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A server key acting as one of its project's players through X-Player-Id. */
export async function authenticateActingPlayer(playerId: string, projectId: string): Promise<{ playerId: string }> {
  if (!UUID.test(playerId)) {
    throw new AppError("VALIDATION_ERROR", {
      details: { issues: [{ path: "headers.x-player-id", message: "Must be a player id (UUID)." }] },
    });
  }
  const { rows } = await pool().query<Omit<SessionRow, "revoked_at" | "expires_at">>({
    name: "auth-acting-player",
    text: "SELECT banned_at, banned_until, ban_reason FROM players WHERE id = $1 AND project_id = $2",
    values: [playerId, projectId],
  });
  const row = rows[0];
  if (!row) throw new AppError("PLAYER_NOT_FOUND");
  assertNotBanned({ bannedAt: row.banned_at, bannedUntil: row.banned_until, banReason: row.ban_reason });
  return { playerId: playerId.toLowerCase() };
}
