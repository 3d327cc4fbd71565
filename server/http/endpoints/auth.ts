import {
  ZAccepted,
  ZAnonymousBody,
  ZIdpBody,
  ZLoginBody,
  ZPasswordResetBody,
  ZPasswordResetConfirmBody,
  ZRefreshBody,
  ZRegisterBody,
  ZSession,
  ZVerifyEmailBody,
} from "../../services/auth/schemas";
import { ZOwnProfile } from "../../services/profiles/schemas";
import { endpoint } from "../endpoint";

const tags = ["auth"];

export const signInAnonymouslyEndpoint = endpoint({
  method: "POST",
  path: "/auth/anonymous",
  auth: "key",
  body: ZAnonymousBody,
  doc: {
    operationId: "signInAnonymously",
    tags,
    summary: "Sign in as an anonymous player: a new one, or the one of this device's secret",
    description:
      "Without a body (or with `{}`): a new player every call (`created: true`). With `{deviceSecret}`: the first call with " +
      "that secret creates a player bound to it (`created: true`); every later call signs that player in again with a new " +
      "session (`created: false`) — also after its sessions were revoked (a refresh token reused on a second device), which " +
      "is how an anonymous player gets back. Two calls with one new secret at once create one player. A banned player gets " +
      "403 PLAYER_BANNED; a player that has since signed up with an e-mail or an identity provider gets 409 " +
      "ACCOUNT_ALREADY_LINKED (sign in with that account); a deleted player's secret creates a new player. A malformed " +
      "secret, or one of fewer than 16 different characters (made by hand, not random), is 400 VALIDATION_ERROR and changes nothing.",
    bodyOptional: true,
    ok: { status: 200, description: "The player's session.", schema: ZSession },
    errors: ["PLAYER_BANNED", "ACCOUNT_ALREADY_LINKED"],
  },
});

export const registerWithEmailEndpoint = endpoint({
  method: "POST",
  path: "/auth/email/register",
  auth: "optional-player",
  credential: true,
  body: ZRegisterBody,
  doc: {
    operationId: "registerWithEmail",
    tags,
    summary: "Register an e-mail account, or link an e-mail to the bearer's player",
    description:
      "Password 8–128 characters, stored as argon2id. The e-mail is trimmed and lower-cased and unique per project. " +
      "With the bearer token of a player that has no e-mail yet, the e-mail is linked to that player (same playerId, `created: false`); " +
      "a player that already has an e-mail gets 409 ACCOUNT_ALREADY_LINKED. Fails closed (503) when the rate-limit store is down.",
    ok: { status: 200, description: "The player's session.", schema: ZSession },
    errors: ["EMAIL_TAKEN", "ACCOUNT_ALREADY_LINKED"],
  },
});

export const loginWithEmailEndpoint = endpoint({
  method: "POST",
  path: "/auth/email/login",
  auth: "key",
  credential: true,
  body: ZLoginBody,
  doc: {
    operationId: "loginWithEmail",
    tags,
    summary: "Sign in with e-mail and password",
    description:
      "Unknown e-mail and wrong password both answer 401 INVALID_CREDENTIALS. Failed attempts are limited per (project, e-mail) " +
      "and per client IP (429 with `details.scope` `login-account` or `login-ip`). Fails closed (503) when the rate-limit store is down.",
    ok: { status: 200, description: "A new session.", schema: ZSession },
    errors: ["INVALID_CREDENTIALS", "PLAYER_BANNED", "EMAIL_NOT_VERIFIED"],
  },
});

export const requestPasswordResetEndpoint = endpoint({
  method: "POST",
  path: "/auth/email/password-reset",
  auth: "key",
  credential: true,
  body: ZPasswordResetBody,
  doc: {
    operationId: "requestPasswordReset",
    tags,
    summary: "E-mail a password reset code",
    description:
      "Always 202 `{}`, for known and unknown addresses alike (same body, same work before the answer: the lookup runs in a job). " +
      "A six-digit code goes to an account with this address that is not banned and has verified it (or any, when the project " +
      "allows resets for unverified addresses); it works once, for 15 minutes (CODE_TTL_SECONDS), and dies after 5 wrong tries. " +
      "Requests are limited per address and per client IP (429 with `details.scope` `code-request-account` or `code-request-ip`).",
    ok: { status: 202, description: "Accepted.", schema: ZAccepted },
  },
});

export const confirmPasswordResetEndpoint = endpoint({
  method: "POST",
  path: "/auth/email/password-reset/confirm",
  auth: "key",
  credential: true,
  body: ZPasswordResetConfirmBody,
  doc: {
    operationId: "confirmPasswordReset",
    tags,
    summary: "Set a new password with the e-mailed code, and sign in",
    description:
      "Wrong, expired, used or dead codes (and unknown addresses) answer 401 INVALID_CODE. On success every other session of the " +
      "player ends, the address counts as verified, and the answer is a new session. Tries count against the login budgets.",
    ok: { status: 200, description: "A new session.", schema: ZSession },
    errors: ["INVALID_CODE"],
  },
});

export const verifyEmailEndpoint = endpoint({
  method: "POST",
  path: "/auth/email/verify",
  auth: "player",
  body: ZVerifyEmailBody,
  doc: {
    operationId: "verifyEmail",
    tags,
    summary: "Confirm the player's e-mail address with the e-mailed code",
    description: "Codes are sent on registration and on `POST /auth/email/verify/resend`. Wrong, expired or used codes: 401 INVALID_CODE.",
    ok: { status: 200, description: "The player's own profile, `emailVerified: true`.", schema: ZOwnProfile },
    errors: ["INVALID_CODE"],
  },
});

export const resendVerificationEndpoint = endpoint({
  method: "POST",
  path: "/auth/email/verify/resend",
  auth: "player",
  doc: {
    operationId: "resendVerificationCode",
    tags,
    summary: "E-mail a new verification code",
    description:
      "202 `{}`; a code is sent when the player has an e-mail address that is not verified yet (it replaces the previous code). " +
      "Limited per player and per client IP like reset requests.",
    ok: { status: 202, description: "Accepted.", schema: ZAccepted },
  },
});

export const signInWithIdpEndpoint = endpoint({
  method: "POST",
  path: "/auth/idp",
  auth: "optional-player",
  body: ZIdpBody,
  doc: {
    operationId: "signInWithIdentityProvider",
    tags,
    summary: "Sign in with an OpenID Connect ID token from a configured identity provider",
    description:
      "The token is verified against the provider's JWKS (signature), issuer, audience, expiry and allowed algorithms. " +
      "The player is found or created by (provider, sub). With a bearer token, the identity is linked to that player. " +
      "`details.reason` of INVALID_IDP_TOKEN: expired | issuer | audience | algorithm | unknown_key | signature | claim | malformed.",
    ok: { status: 200, description: "The player's session.", schema: ZSession },
    errors: ["UNKNOWN_PROVIDER", "INVALID_IDP_TOKEN", "ACCOUNT_ALREADY_LINKED"],
  },
});

export const refreshSessionEndpoint = endpoint({
  method: "POST",
  path: "/auth/refresh",
  auth: "key",
  body: ZRefreshBody,
  doc: {
    operationId: "refreshSession",
    tags,
    summary: "Exchange a refresh token for a new session (rotation)",
    description:
      "The presented refresh token is rotated. Presenting it again within the grace window (10 s by default, " +
      "REFRESH_REUSE_GRACE_SECONDS) — a retry after a lost response, or parallel refreshes — answers 200 with a new refresh " +
      "token of the same session and revokes nothing. After the window, presenting an already-rotated token revokes the " +
      "whole session (its newest refresh token and its access tokens too) and answers 401 INVALID_TOKEN with `reason: revoked`. " +
      "Each rotation extends the session to 30 days from now. Access tokens carry a unique `jti`.",
    ok: { status: 200, description: "The rotated session.", schema: ZSession },
    errors: ["INVALID_TOKEN", "PLAYER_BANNED"],
  },
});

export const logoutEndpoint = endpoint({
  method: "POST",
  path: "/auth/logout",
  auth: "player",
  doc: {
    operationId: "logout",
    tags,
    summary: "End the session",
    description:
      "The bearer token's session ends: its access and refresh tokens are refused from then on. " +
      "A server key acting as a player (X-Player-Id) signs that player out of every session.",
    ok: { status: 204, description: "Signed out." },
  },
});

export const authEndpoints = [
  signInAnonymouslyEndpoint,
  registerWithEmailEndpoint,
  loginWithEmailEndpoint,
  requestPasswordResetEndpoint,
  confirmPasswordResetEndpoint,
  verifyEmailEndpoint,
  resendVerificationEndpoint,
  signInWithIdpEndpoint,
  refreshSessionEndpoint,
  logoutEndpoint,
];
