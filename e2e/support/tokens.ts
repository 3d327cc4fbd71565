import { SignJWT } from "jose";
import { inject } from "vitest";

/** An access token signed with the server's secret but already expired. */
export async function expiredAccessToken(o: { playerId: string; projectId: string; sessionId: string }): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ pid: o.projectId, sid: o.sessionId })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(o.playerId)
    .setIssuer("game-backend")
    .setAudience("game-api")
    .setIssuedAt(now - 1_000)
    .setExpirationTime(now - 100)
    .sign(new TextEncoder().encode(inject("jwtSecret")));
}

/** Same claims, signed with another secret. */
export async function foreignSignedToken(o: { playerId: string; projectId: string; sessionId: string }): Promise<string> {
  return new SignJWT({ pid: o.projectId, sid: o.sessionId })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(o.playerId)
    .setIssuer("game-backend")
    .setAudience("game-api")
    .setIssuedAt()
    .setExpirationTime("10m")
    .sign(new TextEncoder().encode("another-secret-another-secret-another-secret"));
}

export function sessionIdOf(accessToken: string): string {
  const payload = JSON.parse(Buffer.from(accessToken.split(".")[1] ?? "", "base64url").toString("utf8")) as { sid: string };
  return payload.sid;
}
