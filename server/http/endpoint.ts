import type { z } from "zod";
import type { ErrorCode } from "../errors";
import type { AuthMode, RouteSpec } from "./define-route";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One success answer of an endpoint as the OpenAPI document shows it. */
/** `etag`: true, the record's version in quotes (If-Match takes it back); "hash", a hash of the answer (If-None-Match). */
export type Success = { status: 200 | 201 | 202 | 204 | 304; description: string; schema?: z.ZodType; etag?: boolean | "hash" };

/** What only the published document needs; everything else comes from the route spec. */
export type EndpointDoc = {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  ok: Success;
  /** More success answers (201 created beside 200 updated). */
  alsoOk?: Success[];
  /** Errors of this endpoint beyond those its auth mode and body imply. */
  errors?: ErrorCode[];
  /** Request headers the handler reads (If-Match…). */
  headers?: z.ZodObject;
  /** The body may be omitted. */
  bodyOptional?: boolean;
};

/**
 * A REST endpoint, written once: the route file hands it to `defineRoute` (auth mode, params,
 * query, body, limits) and the OpenAPI document is assembled from the same object, so the
 * document cannot describe an auth mode or schema the handler does not enforce.
 */
export type Endpoint<A extends AuthMode, P, Q, B> = RouteSpec<A, P, Q, B> & {
  method: HttpMethod;
  /** The OpenAPI path under /api/v1, e.g. `/players/{id}/data`. */
  path: string;
  doc: EndpointDoc;
};

export function endpoint<
  A extends AuthMode,
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(e: Endpoint<A, P, Q, B>): Endpoint<A, P, Q, B> {
  return e;
}

/** Any endpoint, for code that reads endpoints without calling their handlers. Path and query schemas are objects. */
export type AnyEndpoint = Endpoint<AuthMode, z.ZodObject | undefined, z.ZodObject | undefined, z.ZodType | undefined>;
