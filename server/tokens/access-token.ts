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

/**
 * Signed with jose (the project's token library; HS256 pinned). The token is remembered as
 * verified, since the game sends it right back: its first request skips the check.
 */
export async function signAccessToken(claims: AccessClaims): Promise<{ token: string; expiresIn: number }> {
  const expiresIn = env().ACCESS_TOKEN_TTL_SECONDS;
  const iat = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ pid: claims.projectId, sid: claims.sessionId })
    .setProtectedHeader({ alg: ALGORITHM, typ: "JWT" })
    .setSubject(claims.playerId)
    .setIssuer(env().JWT_ISSUER)
    .setAudience(AUDIENCE)
    .setJti(randomUUID())
    .setIssuedAt(iat)
    .setExpirationTime(iat + expiresIn)
    .sign(secret());
  remember(token, claims, (iat + expiresIn) * 1000);
  return { token, expiresIn };
}

export function invalidToken(reason: InvalidTokenReason): AppError {
  return new AppError("INVALID_TOKEN", { details: { reason } });
}

/**
 * Verified tokens, by their text, until they expire: a game sends the same token with every
 * request for 15 minutes, and jose's HMAC check (WebCrypto) was the largest cost of our own in
 * a request's profile. Only what the signature proves is cached; the session is still checked
 * on every request.
 */
// On globalThis: Next may load this module once per route bundle, and a token signed by the
// sign-in route is used on every other route.
const verifiedHolder = globalThis as typeof globalThis & {
  __gameBackendVerifiedTokens?: Map<string, { claims: AccessClaims; expiresAtMs: number }>;
};
verifiedHolder.__gameBackendVerifiedTokens ??= new Map();
const verified = verifiedHolder.__gameBackendVerifiedTokens;
const MAX_VERIFIED = 50_000;

export async function verifyAccessToken(token: string): Promise<AccessClaims> {
  const hit = verified.get(token);
  if (hit) {
    if (hit.expiresAtMs > Date.now()) return hit.claims;
    verified.delete(token);
  }
  const { claims, expiresAtMs } = await verifyUncached(token);
  remember(token, claims, expiresAtMs);
  return claims;
}

function remember(token: string, claims: AccessClaims, expiresAtMs: number): void {
  if (verified.size >= MAX_VERIFIED) verified.clear();
  verified.set(token, { claims, expiresAtMs });
}

async function verifyUncached(token: string): Promise<{ claims: AccessClaims; expiresAtMs: number }> {
  try {
    const { payload } = await jwtVerify(token, secret(), {
      algorithms: [ALGORITHM],
      issuer: env().JWT_ISSUER,
      audience: AUDIENCE,
      requiredClaims: ["sub", "exp", "iat"],
    });
    const { sub, pid, sid, exp } = payload;
    if (typeof sub !== "string" || typeof pid !== "string" || typeof sid !== "string") throw invalidToken("malformed");
    return { claims: { playerId: sub, projectId: pid, sessionId: sid }, expiresAtMs: (exp ?? 0) * 1000 };
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (error instanceof joseErrors.JWTExpired) throw invalidToken("expired");
    if (error instanceof joseErrors.JWSSignatureVerificationFailed) throw invalidToken("signature");
    throw invalidToken("malformed");
  }
}
