import { pool } from "../db";
import { AppError } from "../errors";
import { type AccessClaims, invalidToken, verifyAccessToken } from "../tokens/access-token";
import { cachedSession, rememberSession, type SessionState, sessionGeneration } from "./session-cache";

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
 * Verifies a bearer token for the API key's project, then its session: revoked, ended, or its
 * player banned. The session state is one primary-key query joined to the player, cached for a
 * while per instance (server/identity/session-cache.ts): logout, reuse detection and bans take
 * effect at once on the instance that made them and, through Redis, on the others.
 */
export async function authenticateBearer(
  token: string,
  projectId: string,
  verified: AccessClaims | null = null,
): Promise<{ playerId: string; sessionId: string }> {
  const claims = verified ?? (await verifyAccessToken(token));
  if (claims.projectId !== projectId) throw invalidToken("project");
  const state = cachedSession(claims.sessionId) ?? (await loadSession(claims.sessionId, projectId, claims.playerId));
  if (!state || state.playerId !== claims.playerId) throw invalidToken("revoked");
  // A ban ends the player's sessions too; the ban is the answer the game can act on.
  assertNotBanned(state);
  if (state.revokedAt) throw invalidToken("revoked");
  // The session outlives no access token: past its end, its tokens are refused too.
  if (state.expiresAt <= new Date()) throw invalidToken("expired");
  return { playerId: claims.playerId, sessionId: claims.sessionId };
}

async function loadSession(sessionId: string, projectId: string, playerId: string): Promise<SessionState | undefined> {
  const generation = sessionGeneration();
  const { rows } = await pool().query<SessionRow>({
    name: "auth-session",
    text: `SELECT s.revoked_at, s.expires_at, p.banned_at, p.banned_until, p.ban_reason
             FROM sessions s JOIN players p ON p.id = s.player_id
            WHERE s.id = $1 AND s.project_id = $2 AND s.player_id = $3`,
    values: [sessionId, projectId, playerId],
  });
  const row = rows[0];
  if (!row) return undefined;
  const state: SessionState = {
    playerId,
    revokedAt: row.revoked_at,
    expiresAt: row.expires_at,
    bannedAt: row.banned_at,
    bannedUntil: row.banned_until,
    banReason: row.ban_reason,
  };
  rememberSession(sessionId, state, generation);
  return state;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A server key acting as one of its project's players through X-Player-Id. */
export async function authenticateActingPlayer(
  playerId: string,
  projectId: string,
  o: { bannedMayAct?: boolean } = {},
): Promise<{ playerId: string }> {
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
  if (!o.bannedMayAct) assertNotBanned({ bannedAt: row.banned_at, bannedUntil: row.banned_until, banReason: row.ban_reason });
  return { playerId: playerId.toLowerCase() };
}
