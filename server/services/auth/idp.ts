import { errors as joseErrors, jwtVerify } from "jose";
import { isUniqueViolation, prisma } from "../../db";
import { AppError } from "../../errors";
import type { ClientInfo } from "../../identity/client-info";
import { assertNotBanned } from "../../identity/player";
import { OutboundRefused } from "../../outbound";
import { findIdentityProvider, type IdentityProviderDto } from "../identity-providers";
import { providerKeySet } from "../identity-providers/key-set";
import { withEvents } from "../webhooks/emit";
import type { SessionDto } from "./schemas";
import { issueSession } from "./sessions";

function idpError(reason: string): AppError {
  return new AppError("INVALID_IDP_TOKEN", { details: { reason } });
}

async function verifyIdToken(provider: IdentityProviderDto, token: string): Promise<string> {
  try {
    const { payload } = await jwtVerify(token, providerKeySet(provider.jwksUrl), {
      issuer: provider.issuer,
      audience: provider.audience,
      algorithms: provider.algorithms,
      requiredClaims: ["sub", "exp"],
    });
    if (typeof payload.sub !== "string" || payload.sub.length === 0 || payload.sub.length > 255) throw idpError("claim");
    return payload.sub;
  } catch (error) {
    if (error instanceof AppError) throw error;
    // The key-set URL now leads to a private or loopback address (checked on every fetch): the
    // provider's configuration is at fault, and retrying would not help.
    if (error instanceof OutboundRefused) throw idpError("provider_address");
    // The provider's key set could not be had (timeout, network, non-200, not a JWKS): not the token's fault.
    const keySetUnavailable =
      error instanceof joseErrors.JWKSTimeout ||
      error instanceof joseErrors.JWKSInvalid ||
      (error instanceof Error && error.constructor === joseErrors.JOSEError) ||
      (error instanceof TypeError && /fetch/i.test(error.message));
    if (keySetUnavailable) {
      throw new AppError("SERVICE_UNAVAILABLE", {
        message: "The identity provider's keys could not be fetched.",
        headers: { "Retry-After": "5" },
      });
    }
    if (error instanceof joseErrors.JWTExpired) throw idpError("expired");
    if (error instanceof joseErrors.JWTClaimValidationFailed)
      throw idpError(error.claim === "iss" ? "issuer" : error.claim === "aud" ? "audience" : "claim");
    if (error instanceof joseErrors.JOSEAlgNotAllowed) throw idpError("algorithm");
    if (error instanceof joseErrors.JWKSNoMatchingKey) throw idpError("unknown_key");
    if (error instanceof joseErrors.JWSSignatureVerificationFailed) throw idpError("signature");
    throw idpError("malformed");
  }
}

/**
 * Signs in with an OpenID Connect ID token. The player is found or created by (provider, sub);
 * with a player (bearer token), the identity is linked to that player instead.
 */
export async function signInWithIdp(o: {
  /** What the client says about itself (X-Client-Version, X-Platform), recorded on the session and player. */
  client?: ClientInfo;
  projectId: string;
  provider: string;
  token: string;
  playerId: string | null;
}): Promise<SessionDto> {
  const provider = await findIdentityProvider({ projectId: o.projectId, id: o.provider });
  if (!provider) throw new AppError("UNKNOWN_PROVIDER", { details: { provider: o.provider } });
  const subject = await verifyIdToken(provider, o.token);
  return findOrLink({ projectId: o.projectId, playerId: o.playerId, provider: provider.id, subject, client: o.client }, false);
}

type IdentityRef = { projectId: string; playerId: string | null; provider: string; subject: string; client?: ClientInfo };

async function findOrLink(o: IdentityRef, retried: boolean): Promise<SessionDto> {
  const existing = await prisma().identity.findUnique({
    where: { projectId_provider_subject: { projectId: o.projectId, provider: o.provider, subject: o.subject } },
    select: { player: { select: { id: true, bannedAt: true, bannedUntil: true, banReason: true } } },
  });
  if (existing) {
    if (o.playerId && existing.player.id !== o.playerId) {
      throw new AppError("ACCOUNT_ALREADY_LINKED", { message: "This identity belongs to another player." });
    }
    assertNotBanned(existing.player);
    return issueSession({ projectId: o.projectId, playerId: existing.player.id, created: false, method: "idp", client: o.client });
  }
  try {
    if (o.playerId) {
      await prisma().identity.create({
        data: { projectId: o.projectId, playerId: o.playerId, provider: o.provider, subject: o.subject },
        select: { id: true },
      });
      return issueSession({ projectId: o.projectId, playerId: o.playerId, created: false, method: "idp", client: o.client });
    }
    // The new player and its session commit together with player.created (issueSession emits it).
    return await withEvents(o.projectId, async () => {
      const player = await prisma().player.create({
        data: {
          projectId: o.projectId,
          lastLoginAt: new Date(),
          identities: { create: { projectId: o.projectId, provider: o.provider, subject: o.subject } },
        },
        select: { id: true },
      });
      return issueSession({ projectId: o.projectId, playerId: player.id, created: true, method: "idp", client: o.client });
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // Two first sign-ins with the same identity at once: the loser signs in to the winner's
    // player. Still refused after that: the player already has another account of this provider.
    if (!retried) return findOrLink(o, true);
    throw new AppError("ACCOUNT_ALREADY_LINKED", { message: "This player is already linked to another account of this provider." });
  }
}
