import { randomBytes } from "node:crypto";
import { sha256 } from "../../crypto";
import { pool, prisma } from "../../db";
import { env } from "../../env";
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

/** A new session (sign-in) for an existing player. */
/** A new session after a sign-in (`method`: how; counted in gb_events_total, with a new player when `created`). */
export async function issueSession(o: {
  projectId: string;
  playerId: string;
  created: boolean;
  method: "email" | "idp" | "anonymous";
}): Promise<SessionDto> {
  const refresh = newRefreshToken();
  const session = await withEvents(o.projectId, async (emitting) => {
    const created = await prisma().session.create({
      data: {
        projectId: o.projectId,
        playerId: o.playerId,
        expiresAt: refreshExpiry(),
        refreshTokens: { create: { tokenHash: refresh.hash } },
      },
      select: { id: true },
    });
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
