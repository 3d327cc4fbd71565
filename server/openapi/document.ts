import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponsesObject } from "zod-openapi";
import { ERROR_CODES, ERRORS, type ErrorCode } from "../errors";
import { ZAnonymousBody, ZIdpBody, ZLoginBody, ZRefreshBody, ZRegisterBody, ZSession } from "../services/auth/schemas";
import { ZDataKeyParams, ZDataParams, ZDataRecord, ZPatchDataBody, ZPutDataBody } from "../services/player-data/schemas";
import { ZPutSaveBody, ZSave, ZSaveMetadata, ZSaveParams } from "../services/saves/schemas";

/**
 * The OpenAPI 3.1 document, built from the same zod schemas the handlers validate with.
 * Every response the test suite sees is checked against it.
 */
const ZErrorBody = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
      details: z.record(z.string(), z.unknown()),
    }),
  })
  .meta({ id: "Error", description: "The one error shape. Clients branch on `code`." });

const rateLimitHeaders = z.object({
  "X-Request-Id": z.string().meta({ description: "Echoes a sane incoming X-Request-Id, else generated." }),
  "X-RateLimit-Limit": z.string().meta({ description: "Requests allowed in the window." }),
  "X-RateLimit-Remaining": z.string(),
  "X-RateLimit-Reset": z.string().meta({ description: "Unix seconds when the window resets." }),
  RateLimit: z.string().meta({ description: 'IETF draft: `"<scope>";r=<remaining>;t=<seconds to reset>`, scope e.g. `player`' }),
  "RateLimit-Policy": z.string().meta({ description: 'IETF draft: `"<scope>";q=<limit>;w=<window seconds>`' }),
});

function errorResponses(codes: ErrorCode[]): ZodOpenApiResponsesObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
  const out: ZodOpenApiResponsesObject = {};
  for (const [status, list] of byStatus) {
    out[String(status) as `${1 | 2 | 3 | 4 | 5}${string}`] = {
      description: list.join(", "),
      headers: rateLimitHeaders,
      content: { "application/json": { schema: ZErrorBody } },
    };
  }
  return out;
}

/** Errors any keyed request can get. */
const KEY_ERRORS: ErrorCode[] = [
  "MISSING_API_KEY",
  "INVALID_API_KEY",
  "FORBIDDEN",
  "RATE_LIMITED",
  "INTERNAL_ERROR",
  "SERVICE_UNAVAILABLE",
];
const BODY_ERRORS: ErrorCode[] = ["INVALID_JSON", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];
/** Errors of a request that carries (or may carry) a player's credentials. */
const PLAYER_ERRORS: ErrorCode[] = ["MISSING_TOKEN", "INVALID_TOKEN", "PLAYER_BANNED", "FORBIDDEN", "PLAYER_NOT_FOUND", "VALIDATION_ERROR"];
const OPTIONAL_PLAYER: ZodOpenApiOperationObject["security"] = [
  { apiKey: [] },
  { apiKey: [], bearer: [] },
  { apiKey: [], actingPlayer: [] },
];
const PLAYER: ZodOpenApiOperationObject["security"] = [
  { apiKey: [], bearer: [] },
  { apiKey: [], actingPlayer: [] },
];
const json = (schema: z.ZodType) => ({ required: true, content: { "application/json": { schema } } });

type Success = { status: 200 | 201 | 204; description: string; schema?: z.ZodType; etag?: boolean };
type OperationSpec = Omit<ZodOpenApiOperationObject, "responses"> & {
  ok: Success;
  /** More success answers (201 created beside 200 updated). */
  alsoOk?: Success[];
  errors?: ErrorCode[];
};

const etagHeaders = rateLimitHeaders.extend({
  ETag: z.string().meta({ description: 'The version in quotes, e.g. "3"; send it back as If-Match.' }),
});

function successResponse(ok: Success) {
  return {
    description: ok.description,
    headers: ok.etag ? etagHeaders : rateLimitHeaders,
    ...(ok.schema ? { content: { "application/json": { schema: ok.schema } } } : {}),
  };
}

function operation({ ok, alsoOk = [], errors = [], ...rest }: OperationSpec): ZodOpenApiOperationObject {
  const successes = Object.fromEntries([ok, ...alsoOk].map((s) => [String(s.status), successResponse(s)]));
  return {
    ...rest,
    security: rest.security ?? [{ apiKey: [] }],
    responses: { ...successes, ...errorResponses([...KEY_ERRORS, ...errors]) },
  };
}

const conditionalHeaders = z.object({
  "If-Match": z.string().optional().meta({ description: 'Write only if the stored version is this one, e.g. "3". Mismatch: 412.' }),
  "If-None-Match": z.literal("*").optional().meta({ description: "Create only: 412 if the key exists." }),
});
const ifMatchHeader = z.object({
  "If-Match": z.string().optional().meta({ description: 'Delete only if the stored version is this one, e.g. "3". Mismatch: 412.' }),
});

export function buildOpenApiDocument(serverUrl = "/api/v1") {
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "Game backend API",
      version: "1.0.0",
      license: { name: "MIT", identifier: "MIT" },
      description:
        "The game API: every request carries `X-API-Key`; player requests carry `Authorization: Bearer <accessToken>` " +
        "(or a server key plus `X-Player-Id`). Every response carries `X-Request-Id` and rate-limit headers. " +
        "Unknown body fields are rejected. Bodies are limited to 2 MiB, JSON nesting to 64 levels; strings may not contain U+0000 " +
        "or unpaired surrogates and objects may not have `__proto__` keys (400 VALIDATION_ERROR); bodies must be valid UTF-8 " +
        "(400 INVALID_JSON).\n\n" +
        "**Rate limits.** Each request first spends a share of its project's per-minute budget — its player's (bearer token or " +
        "server key + `X-Player-Id`; default 20 % of the budget, at least 60) or, for a client key without a player (sign-in, " +
        "registration, refresh), its client IP's (default 30 %, at least 60) — and then the project budget (Free 100, Pro 1,000, " +
        "Enterprise custom); a request refused by its share does not count against the project. Server keys without " +
        "`X-Player-Id` spend only the project budget. Defaults: Free 60 player / 60 IP, Pro 200 / 300; an Enterprise budget of 60 " +
        "or less has shares equal to the budget. Shares are configurable per project (from 1 to the budget). Per-IP budgets " +
        "count an IPv6 client per /64. The rate-limit headers describe the " +
        "budget closest to running out; a 429 names it in `details.scope` (`project`, `player`, `ip`, or for e-mail auth " +
        "`login-account-ip`, `login-ip`, `login-account`, `register-ip`).\n\n" +
        "**Additions to the error table.** Answered before routing, without rate-limit headers: 408 REQUEST_TIMEOUT and 431 " +
        "REQUEST_HEADER_FIELDS_TOO_LARGE (from the HTTP parser), 400 VALIDATION_ERROR for malformed percent-encoding or HTTP, " +
        "404 NOT_FOUND for `/api` in another case or with `//` or `\\` in the path (never a redirect), 405 for CONNECT.",
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
        bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
        actingPlayer: { type: "apiKey", in: "header", name: "X-Player-Id", description: "Server keys only: act as this player." },
      },
    },
    paths: {
      "/auth/anonymous": {
        post: operation({
          operationId: "signInAnonymously",
          tags: ["auth"],
          summary: "Create a new anonymous player and session",
          requestBody: { required: false, content: { "application/json": { schema: ZAnonymousBody } } },
          ok: { status: 200, description: "The new player's session.", schema: ZSession },
          errors: BODY_ERRORS,
        }),
      },
      "/auth/email/register": {
        post: operation({
          operationId: "registerWithEmail",
          tags: ["auth"],
          summary: "Register an e-mail account, or link an e-mail to the bearer's player",
          description:
            "Password 8–128 characters, stored as argon2id. The e-mail is trimmed and lower-cased and unique per project. " +
            "With the bearer token of a player that has no e-mail yet, the e-mail is linked to that player (same playerId, `created: false`); " +
            "a player that already has an e-mail gets 409 ACCOUNT_ALREADY_LINKED. Fails closed (503) when the rate-limit store is down.",
          security: OPTIONAL_PLAYER,
          requestBody: json(ZRegisterBody),
          ok: { status: 200, description: "The player's session.", schema: ZSession },
          errors: [...BODY_ERRORS, ...PLAYER_ERRORS, "EMAIL_TAKEN", "ACCOUNT_ALREADY_LINKED"],
        }),
      },
      "/auth/email/login": {
        post: operation({
          operationId: "loginWithEmail",
          tags: ["auth"],
          summary: "Sign in with e-mail and password",
          description:
            "Unknown e-mail and wrong password both answer 401 INVALID_CREDENTIALS. Failed attempts are limited per (project, e-mail) " +
            "and per client IP (429 with `details.scope` `login-account` or `login-ip`). Fails closed (503) when the rate-limit store is down.",
          requestBody: json(ZLoginBody),
          ok: { status: 200, description: "A new session.", schema: ZSession },
          errors: [...BODY_ERRORS, "INVALID_CREDENTIALS", "PLAYER_BANNED"],
        }),
      },
      "/auth/idp": {
        post: operation({
          operationId: "signInWithIdentityProvider",
          tags: ["auth"],
          summary: "Sign in with an OpenID Connect ID token from a configured identity provider",
          description:
            "The token is verified against the provider's JWKS (signature), issuer, audience, expiry and allowed algorithms. " +
            "The player is found or created by (provider, sub). With a bearer token, the identity is linked to that player. " +
            "`details.reason` of INVALID_IDP_TOKEN: expired | issuer | audience | algorithm | unknown_key | signature | claim | malformed.",
          security: OPTIONAL_PLAYER,
          requestBody: json(ZIdpBody),
          ok: { status: 200, description: "The player's session.", schema: ZSession },
          errors: [...BODY_ERRORS, ...PLAYER_ERRORS, "UNKNOWN_PROVIDER", "INVALID_IDP_TOKEN", "ACCOUNT_ALREADY_LINKED"],
        }),
      },
      "/auth/refresh": {
        post: operation({
          operationId: "refreshSession",
          tags: ["auth"],
          summary: "Exchange a refresh token for a new session (rotation)",
          description:
            "The presented refresh token is rotated. Presenting it again within the grace window (10 s by default, " +
            "REFRESH_REUSE_GRACE_SECONDS) — a retry after a lost response, or parallel refreshes — answers 200 with a new refresh " +
            "token of the same session and revokes nothing. After the window, presenting an already-rotated token revokes the " +
            "whole session (its newest refresh token and its access tokens too) and answers 401 INVALID_TOKEN with `reason: revoked`. " +
            "Each rotation extends the session to 30 days from now. Access tokens carry a unique `jti`.",
          requestBody: json(ZRefreshBody),
          ok: { status: 200, description: "The rotated session.", schema: ZSession },
          errors: [...BODY_ERRORS, "INVALID_TOKEN", "PLAYER_BANNED"],
        }),
      },
      "/auth/logout": {
        post: operation({
          operationId: "logout",
          tags: ["auth"],
          summary: "End the session",
          description:
            "The bearer token's session ends: its access and refresh tokens are refused from then on. " +
            "A server key acting as a player (X-Player-Id) signs that player out of every session.",
          security: PLAYER,
          ok: { status: 204, description: "Signed out." },
          errors: PLAYER_ERRORS,
        }),
      },
      "/players/{id}/data": {
        get: operation({
          operationId: "listPlayerData",
          tags: ["player data"],
          summary: "List a player's data records, sorted by key",
          description: "The owner sees every key; another player of the project sees only `public` keys.",
          security: PLAYER,
          requestParams: { path: ZDataParams },
          ok: { status: 200, description: "The records.", schema: z.array(ZDataRecord) },
          errors: PLAYER_ERRORS,
        }),
        patch: operation({
          operationId: "patchPlayerData",
          tags: ["player data"],
          summary: "Set and delete up to 100 keys, all or nothing",
          description:
            "Owner only. `version` per set key is the expected current version (0: must not exist). Any mismatch answers 412 " +
            "listing every conflict and changes nothing. Deleting an absent key is not an error. Limits are checked for the whole batch.",
          security: PLAYER,
          requestParams: { path: ZDataParams },
          requestBody: json(ZPatchDataBody),
          ok: { status: 200, description: "The records written, sorted by key.", schema: z.array(ZDataRecord) },
          errors: [...BODY_ERRORS, ...PLAYER_ERRORS, "CLIENT_WRITE_FORBIDDEN", "VERSION_CONFLICT", "LIMIT_EXCEEDED"],
        }),
      },
      "/players/{id}/data/{key}": {
        get: operation({
          operationId: "getPlayerData",
          tags: ["player data"],
          summary: "Read one record",
          description: "A key the caller may not read answers 404 KEY_NOT_FOUND, like an absent one.",
          security: PLAYER,
          requestParams: { path: ZDataKeyParams },
          ok: { status: 200, description: "The record.", schema: ZDataRecord, etag: true },
          errors: [...PLAYER_ERRORS, "KEY_NOT_FOUND"],
        }),
        put: operation({
          operationId: "putPlayerData",
          tags: ["player data"],
          summary: "Create or replace one record",
          description:
            "Owner only (another player's data: 403 FORBIDDEN). `protected` keys are written only by a server key acting as the owner " +
            "(403 CLIENT_WRITE_FORBIDDEN). Value ≤ 1 MiB serialised (413); ≤ 2,000 keys and ≤ 5 MiB per player (422 LIMIT_EXCEEDED).",
          security: PLAYER,
          requestParams: { path: ZDataKeyParams, header: conditionalHeaders },
          requestBody: json(ZPutDataBody),
          ok: { status: 200, description: "Updated.", schema: ZDataRecord, etag: true },
          alsoOk: [{ status: 201, description: "Created.", schema: ZDataRecord, etag: true }],
          errors: [...BODY_ERRORS, ...PLAYER_ERRORS, "CLIENT_WRITE_FORBIDDEN", "VERSION_CONFLICT", "LIMIT_EXCEEDED"],
        }),
        delete: operation({
          operationId: "deletePlayerData",
          tags: ["player data"],
          summary: "Delete one record",
          security: PLAYER,
          requestParams: { path: ZDataKeyParams, header: ifMatchHeader },
          ok: { status: 204, description: "Deleted." },
          errors: [...PLAYER_ERRORS, "KEY_NOT_FOUND", "CLIENT_WRITE_FORBIDDEN", "VERSION_CONFLICT"],
        }),
      },
      "/saves": {
        get: operation({
          operationId: "listSaves",
          tags: ["cloud saves"],
          summary: "The caller's saves (metadata only), newest first",
          security: PLAYER,
          ok: { status: 200, description: "Save metadata.", schema: z.array(ZSaveMetadata) },
          errors: PLAYER_ERRORS,
        }),
      },
      "/saves/{key}": {
        get: operation({
          operationId: "getSave",
          tags: ["cloud saves"],
          summary: "One save with its data",
          security: PLAYER,
          requestParams: { path: ZSaveParams },
          ok: { status: 200, description: "The save.", schema: ZSave, etag: true },
          errors: [...PLAYER_ERRORS, "SAVE_NOT_FOUND"],
        }),
        put: operation({
          operationId: "putSave",
          tags: ["cloud saves"],
          summary: "Create or replace a save",
          description:
            "`data` ≤ 1 MiB serialised (413), `meta` ≤ 2 KiB (400), ≤ 50 saves per player (422 LIMIT_EXCEEDED). " +
            "A 412 carries the server copy's metadata in `details.current` so the game can offer keep cloud / keep local. " +
            "`meta` omitted on update keeps the stored meta.",
          security: PLAYER,
          requestParams: { path: ZSaveParams, header: conditionalHeaders },
          requestBody: json(ZPutSaveBody),
          ok: { status: 200, description: "Updated.", schema: ZSaveMetadata, etag: true },
          alsoOk: [{ status: 201, description: "Created.", schema: ZSaveMetadata, etag: true }],
          errors: [...BODY_ERRORS, ...PLAYER_ERRORS, "VERSION_CONFLICT", "LIMIT_EXCEEDED"],
        }),
        delete: operation({
          operationId: "deleteSave",
          tags: ["cloud saves"],
          summary: "Delete a save",
          security: PLAYER,
          requestParams: { path: ZSaveParams, header: ifMatchHeader },
          ok: { status: 204, description: "Deleted." },
          errors: [...PLAYER_ERRORS, "SAVE_NOT_FOUND", "VERSION_CONFLICT"],
        }),
      },
    },
  });
}
