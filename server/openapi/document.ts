import { z } from "zod";
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
} from "zod-openapi";
import { ERROR_CODES, ERRORS, type ErrorCode } from "../errors";
import type { AuthMode } from "../http/define-route";
import type { AnyEndpoint, Success } from "../http/endpoint";
import { API_RESOURCES } from "../http/endpoints";
import { EVENT_TYPES } from "../services/webhooks/events";
import { EVENT_PAYLOADS } from "../services/webhooks/payloads";

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

/**
 * Response headers are components, written once and referenced: inline on every response of every
 * operation they were two thirds of the document's bytes.
 */
const header = <T extends z.ZodType>(id: string, schema: T) => schema.meta({ header: { id } });

const rateLimitHeaders = z.object({
  "X-Request-Id": header("X-Request-Id", z.string().meta({ description: "Echoes a sane incoming X-Request-Id, else generated." })),
  "X-RateLimit-Limit": header("X-RateLimit-Limit", z.string().meta({ description: "Requests allowed in the window." })),
  "X-RateLimit-Remaining": header("X-RateLimit-Remaining", z.string()),
  "X-RateLimit-Reset": header("X-RateLimit-Reset", z.string().meta({ description: "Unix seconds when the window resets." })),
  RateLimit: header(
    "RateLimit",
    z.string().meta({ description: 'IETF draft: `"<scope>";r=<remaining>;t=<seconds to reset>`, scope e.g. `player`' }),
  ),
  "RateLimit-Policy": header("RateLimit-Policy", z.string().meta({ description: 'IETF draft: `"<scope>";q=<limit>;w=<window seconds>`' })),
});

/**
 * One component per set of error codes answered with one status (`Error_RATE_LIMITED`), referenced
 * by every operation that can answer it: the same few sets recur on most operations.
 */
const errorResponseComponents = new Map<string, ZodOpenApiResponseObject>();

function errorResponse(list: ErrorCode[]): ZodOpenApiResponseObject {
  const id = `Error_${list.join("_or_")}`;
  const known = errorResponseComponents.get(id);
  if (known) return known;
  const response = { id, description: list.join(", "), headers: rateLimitHeaders, content: { "application/json": { schema: ZErrorBody } } };
  errorResponseComponents.set(id, response);
  return response;
}

function errorResponses(codes: ErrorCode[]): ZodOpenApiResponsesObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
  const out: ZodOpenApiResponsesObject = {};
  for (const [status, list] of byStatus) out[String(status) as `${1 | 2 | 3 | 4 | 5}${string}`] = errorResponse(list);
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

/** Who may call: derived from the route's auth mode, the same value defineRoute enforces. */
const SECURITY: Record<AuthMode, ZodOpenApiOperationObject["security"]> = {
  none: [],
  key: [{ apiKey: [] }],
  "optional-player": [{ apiKey: [] }, { apiKey: [], bearer: [] }, { apiKey: [], actingPlayer: [] }],
  player: [
    { apiKey: [], bearer: [] },
    { apiKey: [], actingPlayer: [] },
  ],
};

const etagHeaders = rateLimitHeaders.extend({
  ETag: header("ETag", z.string().meta({ description: 'The version in quotes, e.g. "3"; send it back as If-Match.' })),
});

/** A strong ETag that is a hash of the answer (GET /config): revalidate with If-None-Match. */
const hashEtagHeaders = rateLimitHeaders.extend({
  ETag: header("HashETag", z.string().meta({ description: "A hash of the answer in quotes; send it back as If-None-Match for a 304." })),
});

function successResponse(ok: Success) {
  return {
    description: ok.description,
    headers: ok.etag === "hash" ? hashEtagHeaders : ok.etag ? etagHeaders : rateLimitHeaders,
    ...(ok.schema ? { content: { "application/json": { schema: ok.schema } } } : {}),
  };
}

/** One operation from one endpoint: security, parameters, body and errors follow from its route spec. */
function operation({ auth, params, query, body, doc }: AnyEndpoint): ZodOpenApiOperationObject {
  const { ok, alsoOk = [], errors = [], headers, bodyOptional, ...rest } = doc;
  const successes = Object.fromEntries([ok, ...alsoOk].map((s) => [String(s.status), successResponse(s)]));
  const implied = [...KEY_ERRORS, ...(body ? BODY_ERRORS : []), ...(auth === "player" || auth === "optional-player" ? PLAYER_ERRORS : [])];
  const requestParams = { ...(params ? { path: params } : {}), ...(query ? { query } : {}), ...(headers ? { header: headers } : {}) };
  return {
    ...rest,
    security: SECURITY[auth],
    ...(Object.keys(requestParams).length ? { requestParams } : {}),
    ...(body ? { requestBody: { required: bodyOptional !== true, content: { "application/json": { schema: body } } } } : {}),
    responses: { ...successes, ...errorResponses([...new Set([...implied, ...errors])]) },
  };
}

function assemblePaths(): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const endpoints of API_RESOURCES) {
    for (const e of endpoints) {
      const item = paths[e.path] ?? {};
      paths[e.path] = item;
      const method = e.method.toLowerCase() as Lowercase<typeof e.method>;
      if (item[method]) throw new Error(`${e.method} ${e.path} is defined twice`);
      item[method] = operation(e);
    }
  }
  return paths;
}

const webhookHeaders = z.object({
  "webhook-id": z.string().meta({ description: "The event's id (`msg_…`), the same on every retry: dedupe by it." }),
  "webhook-timestamp": z
    .string()
    .meta({ description: "Unix seconds of this attempt; refuse ones too far from your clock (the libraries allow 5 min)." }),
  "webhook-signature": z.string().meta({
    description:
      'Space-separated `v1,<base64 HMAC-SHA256>` of `"{webhook-id}.{webhook-timestamp}.{raw body}"`, keyed by the base64 after `whsec_` ' +
      "of the endpoint's secret; two during a secret rotation's overlap (one per secret). Verify with a Standard Webhooks library.",
  }),
});

/** One `webhooks` entry per event type: the POST a project's endpoint receives (Standard Webhooks). */
function assembleWebhooks(): ZodOpenApiPathsObject {
  const out: ZodOpenApiPathsObject = {};
  for (const type of EVENT_TYPES) {
    const data = EVENT_PAYLOADS[type];
    const body = z
      .object({
        id: z.string().meta({ description: "The event id, equal to the `webhook-id` header." }),
        type: z.literal(type),
        timestamp: z
          .string()
          .datetime()
          .meta({ description: "When the event happened (the start of the transaction that made the change), ISO 8601 UTC." }),
        projectId: z.string().uuid(),
        data,
      })
      .meta({ id: `WebhookEvent_${type.replace(/\W/g, "_")}` });
    out[type] = {
      post: {
        operationId: `webhook${type.replace(/(^|[._])(\w)/g, (_m, _sep: string, c: string) => c.toUpperCase())}`,
        summary: type,
        // Not a call to this API: the receiver checks the delivery's signature (webhook-signature).
        security: [],
        description:
          `${data.meta()?.description ?? ""}\n\nDelivered at least once to every enabled endpoint subscribed to \`${type}\`, signed per ` +
          "Standard Webhooks (https://www.standardwebhooks.com). Answer 2xx within the timeout (10 s); anything else, a redirect " +
          "included, is retried: after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then the delivery is failed. One player's " +
          "events reach an endpoint in order. See docs/guides/webhooks.md.",
        requestParams: { header: webhookHeaders },
        requestBody: { required: true, content: { "application/json": { schema: body } } },
        responses: { "200": { description: "Any 2xx: delivered. Anything else: retried." } },
      },
    };
  }
  return out;
}

/**
 * The served document names the API's absolute URL (PUBLIC_URL + /api/v1), so a generated client
 * works without a base URL; the committed snapshot has one variable, `origin`, for it.
 */
const SNAPSHOT_SERVER = {
  url: "{origin}/api/v1",
  description: "The backend's PUBLIC_URL followed by /api/v1.",
  variables: { origin: { default: "http://localhost:3000", description: "Scheme, host and port the backend is reached at." } },
};

/**
 * A request field with a default is optional, but openapi-typescript (default flags) types a
 * property with `default` in a component schema as required: in the input (request) side the
 * default is stated in the description instead of the `default` keyword. Responses keep it.
 */
function defaultsIntoDescriptions({ jsonSchema, io }: { jsonSchema: Record<string, unknown>; io: "input" | "output" }): void {
  if (io !== "input" || !("default" in jsonSchema)) return;
  const stated = `Default: ${JSON.stringify(jsonSchema.default)}.`;
  delete jsonSchema.default;
  jsonSchema.description = typeof jsonSchema.description === "string" ? `${jsonSchema.description} ${stated}` : stated;
}

export function buildOpenApiDocument(serverUrl?: string) {
  return createDocument(
    {
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
      servers: [serverUrl === undefined ? SNAPSHOT_SERVER : { url: serverUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
          bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
          actingPlayer: { type: "apiKey", in: "header", name: "X-Player-Id", description: "Server keys only: act as this player." },
        },
      },
      paths: assemblePaths(),
      webhooks: assembleWebhooks(),
    },
    { override: defaultsIntoDescriptions },
  );
}
