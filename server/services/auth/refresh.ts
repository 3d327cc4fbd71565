import type pg from "pg";
import { bannedError, isBanned } from "../../auth/player";
import { uuidv7 } from "../../crypto";
import { pool } from "../../db";
import { env } from "../../env";
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

/**
 * Rotates a refresh token. The token is claimed by one UPDATE … WHERE used_at IS NULL, so two
 * concurrent refreshes with the same token cannot both rotate it. Presenting a token that was
 * already used revokes its whole session (reuse detection, RFC 9700 §4.14.2) — unless it comes
 * back within REFRESH_REUSE_GRACE_SECONDS of its rotation (a retry after a lost response, or
 * parallel refreshes): then the caller gets a sibling refresh token of the same session and
 * nothing is revoked.
 */
export async function refreshSession(o: { projectId: string; refreshToken: string }): Promise<SessionDto> {
  const hash = Buffer.from(hashRefreshToken(o.refreshToken));
  const client = await pool().connect();
  try {
    await client.query("BEGIN");
    const { rows } = await client.query<Claimed>(
      `UPDATE refresh_tokens rt SET used_at = now()
         FROM sessions s JOIN players p ON p.id = s.player_id
        WHERE rt.token_hash = $1 AND rt.used_at IS NULL AND s.id = rt.session_id
        RETURNING rt.session_id, s.project_id, s.player_id, s.revoked_at, s.expires_at, p.banned_at, p.banned_until, p.ban_reason`,
      [hash],
    );
    const claimed = rows[0];
    if (!claimed) return await handleUnusable(client, hash, o.projectId);
    // A refusal below rolls back, so the token is not spent by a request that did not count.
    if (claimed.project_id !== o.projectId) throw invalidToken("project");
    return await issueNext(client, claimed, o.projectId);
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

type Used = Claimed & { used_at: Date; within_grace: boolean };

/** Checks the session and player, stores a new refresh token for the session, commits. */
async function issueNext(client: pg.PoolClient, claimed: Claimed, projectId: string): Promise<SessionDto> {
  // A refusal here rolls back, so the token is not spent by a request that did not count.
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
  await client.query(`UPDATE sessions SET expires_at = $2 WHERE id = $1`, [claimed.session_id, refreshExpiry()]);
  await client.query("COMMIT");
  return sessionDto({ projectId, playerId: claimed.player_id, sessionId: claimed.session_id, refreshToken: next.token, created: false });
}

/** The token is unknown, or it was used before: a retry within the grace window, or reuse that ends the session. */
async function handleUnusable(client: pg.PoolClient, hash: Buffer, projectId: string): Promise<SessionDto> {
  const { rows } = await client.query<Used>(
    `SELECT rt.session_id, s.project_id, s.player_id, s.revoked_at, s.expires_at, p.banned_at, p.banned_until, p.ban_reason,
            rt.used_at, rt.used_at > now() - make_interval(secs => $2) AS within_grace
       FROM refresh_tokens rt JOIN sessions s ON s.id = rt.session_id JOIN players p ON p.id = s.player_id
      WHERE rt.token_hash = $1`,
    [hash, env().REFRESH_REUSE_GRACE_SECONDS],
  );
  const used = rows[0];
  if (!used) throw invalidToken("malformed");
  if (used.project_id !== projectId) throw invalidToken("project");
  if (used.within_grace && !used.revoked_at) return issueNext(client, used, projectId);
  await client.query(
    `UPDATE sessions SET revoked_at = COALESCE(revoked_at, now()), revoked_reason = COALESCE(revoked_reason, 'refresh token reuse') WHERE id = $1`,
    [used.session_id],
  );
  await client.query("COMMIT");
  throw invalidToken("revoked");
}
