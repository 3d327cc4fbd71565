import { randomBytes } from "node:crypto";
import { sha256, uuidv7 } from "../../crypto";
import { pool, prisma } from "../../db";
import { env } from "../../env";
import { type ClientInfo, NO_CLIENT_INFO } from "../../identity/client-info";
import { forgetSessions } from "../../identity/session-cache";
import { countEvent } from "../../metrics";
import { signAccessToken } from "../../tokens/access-token";
import { withEvents } from "../webhooks/emit";
import { emitEvent } from "../webhooks/events";
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

/**
 * A new session after a sign-in (`method`: how; counted in gb_events_total, with a new player when
 * `created`). One statement writes the session with what the client said about itself, its refresh
 * token, and the player's last-seen time and client (remote config audiences read them).
 */
export async function issueSession(o: {
  projectId: string;
  playerId: string;
  created: boolean;
  method: "email" | "idp" | "anonymous";
  client?: ClientInfo;
}): Promise<SessionDto> {
  const refresh = newRefreshToken();
  const client = o.client ?? NO_CLIENT_INFO;
  const session = await withEvents(o.projectId, async (emitting) => {
    const sessionId = uuidv7();
    await pool().query({
      name: "issue-session",
      text: `WITH session AS (
         INSERT INTO sessions (id, project_id, player_id, expires_at, client_version, platform) VALUES ($1, $2, $3, $4, $5, $6)
       ), token AS (
         INSERT INTO refresh_tokens (id, session_id, token_hash) VALUES ($7, $1, $8)
       )
       -- A value the client did not send (or sent malformed) keeps the one known before.
       UPDATE players SET last_seen_at = now(), client_version = COALESCE($5, client_version), platform = COALESCE($6, platform),
              country = COALESCE($9, country)
        WHERE id = $3`,
      values: [
        sessionId,
        o.projectId,
        o.playerId,
        refreshExpiry(),
        client.clientVersion,
        client.platform,
        uuidv7(),
        Buffer.from(refresh.hash),
        client.country,
      ],
    });
    const created = { id: sessionId };
    if (emitting) await emitSignInEvents({ ...o, sessionId: created.id });
    return created;
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

/**
 * player.created for a new player, and player.signed_in for the player's first sign-in of the UTC
 * day (no other session of theirs began today). Only asked when the project has endpoints.
 */
async function emitSignInEvents(o: { projectId: string; playerId: string; created: boolean; method: string; sessionId: string }) {
  const data = { playerId: o.playerId, method: o.method };
  if (o.created) await emitEvent({ projectId: o.projectId, type: "player.created", playerId: o.playerId, data });
  const { rows } = await pool().query<{ first: boolean }>(
    `SELECT NOT EXISTS (
       SELECT 1 FROM sessions WHERE player_id = $1 AND id <> $2
          AND created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') AS first`,
    [o.playerId, o.sessionId],
  );
  if (rows[0]?.first) await emitEvent({ projectId: o.projectId, type: "player.signed_in", playerId: o.playerId, data });
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
