import { randomUUID } from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { env } from "../env";
import { AppError } from "../errors";

/**
 * Access tokens: HS256 JWTs, algorithm, issuer and audience pinned on both sides.
 * Claims: sub = player id, pid = project id, sid = session id, jti = unique per token (RFC 9068),
 * so no two issued tokens are equal even within one second.
 */
const ALGORITHM = "HS256";
const AUDIENCE = "game-api";

export type AccessClaims = { playerId: string; projectId: string; sessionId: string };
export type InvalidTokenReason = "expired" | "malformed" | "signature" | "revoked" | "project";

let key: Uint8Array | undefined;
function secret(): Uint8Array {
  key ??= new TextEncoder().encode(env().JWT_SECRET);
  return key;
}

export async function signAccessToken(claims: AccessClaims): Promise<{ token: string; expiresIn: number }> {
  const expiresIn = env().ACCESS_TOKEN_TTL_SECONDS;
  const token = await new SignJWT({ pid: claims.projectId, sid: claims.sessionId })
    .setProtectedHeader({ alg: ALGORITHM, typ: "JWT" })
    .setSubject(claims.playerId)
    .setIssuer(env().JWT_ISSUER)
    .setAudience(AUDIENCE)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${expiresIn}s`)
    .sign(secret());
  return { token, expiresIn };
}

export function invalidToken(reason: InvalidTokenReason): AppError {
  return new AppError("INVALID_TOKEN", { details: { reason } });
}

export async function verifyAccessToken(token: string): Promise<AccessClaims> {
  try {
    const { payload } = await jwtVerify(token, secret(), {
      algorithms: [ALGORITHM],
      issuer: env().JWT_ISSUER,
      audience: AUDIENCE,
      requiredClaims: ["sub", "exp", "iat"],
    });
    const { sub, pid, sid } = payload;
    if (typeof sub !== "string" || typeof pid !== "string" || typeof sid !== "string") throw invalidToken("malformed");
    return { playerId: sub, projectId: pid, sessionId: sid };
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (error instanceof joseErrors.JWTExpired) throw invalidToken("expired");
    if (error instanceof joseErrors.JWSSignatureVerificationFailed) throw invalidToken("signature");
    throw invalidToken("malformed");
  }
}
