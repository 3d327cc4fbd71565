import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponsesObject } from "zod-openapi";
import { ERROR_CODES, ERRORS, type ErrorCode } from "../errors";
import { ZAnonymousBody, ZSession } from "../services/auth/schemas";

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
  RateLimit: z.string().meta({ description: 'IETF draft: `"project";r=<remaining>;t=<seconds to reset>`' }),
  "RateLimit-Policy": z.string().meta({ description: 'IETF draft: `"project";q=<limit>;w=<window seconds>`' }),
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
const KEY_ERRORS: ErrorCode[] = ["MISSING_API_KEY", "INVALID_API_KEY", "RATE_LIMITED", "INTERNAL_ERROR", "SERVICE_UNAVAILABLE"];
const BODY_ERRORS: ErrorCode[] = ["INVALID_JSON", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];

type OperationSpec = Omit<ZodOpenApiOperationObject, "responses"> & {
  ok: { status: 200 | 201 | 204; description: string; schema?: z.ZodType };
  errors?: ErrorCode[];
};

function operation({ ok, errors = [], ...rest }: OperationSpec): ZodOpenApiOperationObject {
  const success = {
    description: ok.description,
    headers: rateLimitHeaders,
    ...(ok.schema ? { content: { "application/json": { schema: ok.schema } } } : {}),
  };
  return {
    ...rest,
    security: rest.security ?? [{ apiKey: [] }],
    responses: { [String(ok.status)]: success, ...errorResponses([...KEY_ERRORS, ...errors]) },
  };
}

export function buildOpenApiDocument(serverUrl = "/api/v1") {
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "Game backend API",
      version: "1.0.0",
      description:
        "The game API: every request carries `X-API-Key`; player requests carry `Authorization: Bearer <accessToken>` " +
        "(or a server key plus `X-Player-Id`). Every response carries `X-Request-Id` and rate-limit headers. " +
        "Unknown body fields are rejected. Bodies are limited to 2 MiB.",
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
    },
  });
}
