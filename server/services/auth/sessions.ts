import { randomBytes } from "node:crypto";
import { sha256 } from "../../crypto";
import { env } from "../../env";
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
