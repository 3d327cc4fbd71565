import type pg from "pg";
import { uuidv7 } from "../../crypto";
import { pool, transaction } from "../../db";
import { env } from "../../env";
import { type ClientInfo, NO_CLIENT_INFO } from "../../identity/client-info";
import { bannedError, isBanned } from "../../identity/player";
import { forgetSessions } from "../../identity/session-cache";
import { invalidToken } from "../../tokens/access-token";
import type { SessionDto } from "./schemas";
import { hashRefreshToken, newRefreshToken, refreshExpiry, sessionDto } from "./sessions";

type Claimed = {
  session_id: string;
  project_id: string;
  player_id: string;
  revoked_at: Date | null;
  expires_at: Date;
  banned_at: Date | null;
  banned_until: Date | null;
  ban_reason: string | null;
};
type Used = Claimed & { within_grace: boolean };

const SESSION_COLUMNS = "rt.session_id, s.project_id, s.player_id, s.revoked_at, s.expires_at, p.banned_at, p.banned_until, p.ban_reason";

/**
 * Rotates a refresh token. The token is claimed by one UPDATE … WHERE used_at IS NULL, so two
 * concurrent refreshes with the same token cannot both rotate it. Presenting a token that was
 * already used revokes its whole session (reuse detection, RFC 9700 §4.14.2) — unless it comes
 * back within REFRESH_REUSE_GRACE_SECONDS of its rotation (a retry after a lost response, or
 * parallel refreshes): then the caller gets a sibling refresh token of the same session and
 * nothing is revoked. A refusal rolls back (the token is not spent by a request that did not
 * count), except reuse: the revocation commits, then the request is refused.
 */
export async function refreshSession(o: { projectId: string; refreshToken: string; client?: ClientInfo }): Promise<SessionDto> {
  const hash = Buffer.from(hashRefreshToken(o.refreshToken));
  const issued = await rotateInOneStatement(hash, o);
  if (issued) return issued;
  type Outcome = { issued: SessionDto } | { issued: null; revokedSessionId: string };
  const outcome = await transaction(async (client): Promise<Outcome> => {
    const { rows } = await client.query<Claimed>(
      `UPDATE refresh_tokens rt SET used_at = now()
         FROM sessions s JOIN players p ON p.id = s.player_id
        WHERE rt.token_hash = $1 AND rt.used_at IS NULL AND s.id = rt.session_id
        RETURNING ${SESSION_COLUMNS}`,
      [hash],
    );
    const claimed = rows[0];
    if (claimed) {
      if (claimed.project_id !== o.projectId) throw invalidToken("project");
      return { issued: await issueNext(client, claimed, o) };
    }
    const used = await findUsed(client, hash);
    if (!used) throw invalidToken("malformed");
    if (used.project_id !== o.projectId) throw invalidToken("project");
    if (used.within_grace && !used.revoked_at) return { issued: await issueNext(client, used, o) };
    await client.query(
      `UPDATE sessions SET revoked_at = COALESCE(revoked_at, now()), revoked_reason = COALESCE(revoked_reason, 'refresh token reuse') WHERE id = $1`,
      [used.session_id],
    );
    return { issued: null, revokedSessionId: used.session_id };
  });
  if (outcome.issued) return outcome.issued;
  // After the commit, so no request on this instance can cache the state from before it.
  await forgetSessions({ sessionId: outcome.revokedSessionId });
  throw invalidToken("revoked");
}

/** A token that exists but was used before, and whether that was within the grace window. */
/**
 * The common case in one statement, atomic without BEGIN/COMMIT (one round trip instead of five):
 * claim the unused token of a live session of this project whose player is not banned, store the
 * next token, extend the session and record the client on the session and the player. Anything
 * else (a used token, another project's, a revoked or expired session, a banned player, an unknown
 * token) claims nothing here and goes the full way below, which tells them apart with the token
 * still unused — so an answer other than a new session changes nothing, as before.
 */
async function rotateInOneStatement(hash: Buffer, o: { projectId: string; client?: ClientInfo }): Promise<SessionDto | null> {
  const info = o.client ?? NO_CLIENT_INFO;
  const next = newRefreshToken();
  const { rows } = await pool().query<{ session_id: string; player_id: string }>({
    // Named: parsed once per connection, and its plan kept (unnamed, Postgres parsed and planned it on every refresh).
    name: "refresh-rotate",
    text: `WITH claim AS (
       UPDATE refresh_tokens rt SET used_at = now()
         FROM sessions s JOIN players p ON p.id = s.player_id
        WHERE rt.token_hash = $1 AND rt.used_at IS NULL AND s.id = rt.session_id
          AND s.project_id = $2 AND s.revoked_at IS NULL AND s.expires_at > now()
          AND NOT (p.banned_at IS NOT NULL AND (p.banned_until IS NULL OR p.banned_until > now()))
        RETURNING rt.session_id, s.player_id
     ), next_token AS (
       INSERT INTO refresh_tokens (id, session_id, token_hash) SELECT $3, claim.session_id, $4 FROM claim
     ), session AS (
       UPDATE sessions s SET expires_at = $5, client_version = COALESCE($6, s.client_version), platform = COALESCE($7, s.platform)
         FROM claim WHERE s.id = claim.session_id RETURNING s.player_id
     ), seen AS (
       UPDATE players p SET last_seen_at = now(), client_version = COALESCE($6, p.client_version), platform = COALESCE($7, p.platform),
              country = COALESCE($8, p.country)
         FROM session WHERE p.id = session.player_id
     )
     SELECT session_id, player_id FROM claim`,
    values: [hash, o.projectId, uuidv7(), Buffer.from(next.hash), refreshExpiry(), info.clientVersion, info.platform, info.country],
  });
  const claimed = rows[0];
  if (!claimed) return null;
  return sessionDto({
    projectId: o.projectId,
    playerId: claimed.player_id,
    sessionId: claimed.session_id,
    refreshToken: next.token,
    created: false,
  });
}

async function findUsed(client: pg.PoolClient, hash: Buffer): Promise<Used | undefined> {
  const { rows } = await client.query<Used>(
    `SELECT ${SESSION_COLUMNS}, rt.used_at > now() - make_interval(secs => $2) AS within_grace
       FROM refresh_tokens rt JOIN sessions s ON s.id = rt.session_id JOIN players p ON p.id = s.player_id
      WHERE rt.token_hash = $1`,
    [hash, env().REFRESH_REUSE_GRACE_SECONDS],
  );
  return rows[0];
}

/**
 * Checks the session and player, stores a new refresh token for the session, and in the same
 * statement as the session's new expiry records what the client says about itself on the session
 * and, with the last-seen time, on the player (one more row written, no extra round trip).
 */
async function issueNext(client: pg.PoolClient, claimed: Claimed, o: { projectId: string; client?: ClientInfo }): Promise<SessionDto> {
  const { projectId } = o;
  const info = o.client ?? NO_CLIENT_INFO;
  const ban = { bannedAt: claimed.banned_at, bannedUntil: claimed.banned_until, banReason: claimed.ban_reason };
  if (isBanned(ban)) throw bannedError(ban);
  if (claimed.revoked_at) throw invalidToken("revoked");
  if (claimed.expires_at <= new Date()) throw invalidToken("expired");
  const next = newRefreshToken();
  await client.query(`INSERT INTO refresh_tokens (id, session_id, token_hash) VALUES ($1, $2, $3)`, [
    uuidv7(),
    claimed.session_id,
    Buffer.from(next.hash),
  ]);
  // A value the client did not send (or sent malformed) keeps the one known before.
  await client.query(
    `WITH session AS (
       UPDATE sessions SET expires_at = $2, client_version = COALESCE($3, client_version), platform = COALESCE($4, platform)
        WHERE id = $1 RETURNING player_id
     )
     UPDATE players p SET last_seen_at = now(), client_version = COALESCE($3, p.client_version), platform = COALESCE($4, p.platform),
            country = COALESCE($5, p.country)
       FROM session WHERE p.id = session.player_id`,
    [claimed.session_id, refreshExpiry(), info.clientVersion, info.platform, info.country],
  );
  return sessionDto({ projectId, playerId: claimed.player_id, sessionId: claimed.session_id, refreshToken: next.token, created: false });
}
