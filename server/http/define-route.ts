import type { z } from "zod";
import type { PlayerActor } from "../actor";
import { type ApiKeyContext, resolveApiKey } from "../api-keys";
import { toAppError } from "../error-normalisation";
import { AppError } from "../errors";
import { releaseOf } from "../identity/client-info";
import { authenticateActingPlayer, authenticateBearer } from "../identity/player";
import { decisiveLimit, type LimitResult, limitIp, limitKeyed, type Share, storeUnavailable } from "../ratelimit";
import { ipSubject } from "../ratelimit/ip";
import { withStatementCounts } from "../statement-counts";
import { type AccessClaims, verifyAccessToken } from "../tokens/access-token";
import { inSpan } from "../tracing";
import { parseWith } from "../validation";
import { MAX_BODY_BYTES, readJsonBody } from "./body";
import { clientIp, corsHeaders, preflightHeaders, rateLimitHeaders, requestIdFrom } from "./headers";
import { idempotencyScope, runIdempotent } from "./idempotency";
import { RequestObservation } from "./observe";
import { errorResponse, jsonResponse, Reply } from "./respond";

/**
 * The REST edge. Every /api/v1 handler runs the same fixed order:
 * request id → API key → rate limit (before the body is read) → bearer token or server key +
 * X-Player-Id → body (type, size while streaming, JSON, schema) → one service call → JSON.
 * Any throw becomes the one error shape, keeping the request-id and rate-limit headers.
 */
export type AuthMode = "none" | "key" | "player" | "optional-player";

export type PlayerCaller = { playerId: string; sessionId: string | null; viaServerKey: boolean };

export type Caller = {
  requestId: string;
  ip: string;
  projectId: string;
  keyId: string;
  keyKind: ApiKeyContext["kind"];
};

type PlayerFor<A extends AuthMode> = A extends "player" ? PlayerCaller : PlayerCaller | null;

type Schema = z.ZodType;
type Out<S> = S extends Schema ? z.output<S> : undefined;

export type RouteSpec<A extends AuthMode, P, Q, B> = {
  auth: A;
  params?: P;
  query?: Q;
  body?: B;
  /** Credential endpoints fail closed when the rate-limit store is down. */
  credential?: boolean;
  /** Honours Idempotency-Key (player requests): see server/http/idempotency.ts. */
  idempotent?: boolean;
  maxBodyBytes?: number;
  /**
   * A data-subject right (export, deletion): a server key acting as a banned player (X-Player-Id)
   * may call it. A ban ends the player's own sessions, so the studio's server or its support acts.
   */
  bannedMayAct?: boolean;
};

export type RouteContext<A extends AuthMode, P, Q, B> = {
  req: Request;
  caller: A extends "none" ? Omit<Caller, "projectId" | "keyId" | "keyKind"> : Caller;
  player: PlayerFor<A>;
  params: Out<P>;
  query: Out<Q>;
  body: Out<B>;
};

type NextContext = { params: Promise<Record<string, string | string[] | undefined>> };
export type RouteHandler = (req: Request, ctx: NextContext) => Promise<Response>;

export function defineRoute<
  A extends AuthMode,
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
>(spec: RouteSpec<A, P, Q, B>, handler: (ctx: RouteContext<A, P, Q, B>) => Promise<unknown>): RouteHandler {
  // The endpoint's pattern (`/api/v1/players/{id}/data`) labels its metrics, never the raw path.
  const route = Object.hasOwn(spec, "path") ? `/api/v1${(spec as unknown as { path: string }).path}` : "unmatched";
  const routed: RouteHandler = (req, nextCtx) =>
    inSpan(
      `${req.method} ${route}`,
      { kind: "server", headers: req.headers, attributes: { "http.route": route, "http.request.method": req.method } },
      (span) =>
        // The test-time X-Debug-Db counts (STATEMENT_COUNTS=1 only): server/statement-counts.ts.
        withStatementCounts(async () => {
          const requestId = requestIdFrom(req);
          span?.setAttribute("gb.request_id", requestId);
          const seen = new RequestObservation(route, req.method, requestId, span);
          seen.release = releaseOf(req.headers);
          const headers: Record<string, string> = { "X-Request-Id": requestId, ...corsHeaders() };
          try {
            const ip = clientIp(req);
            const keyed = spec.auth === "none" ? null : await authenticateKey(req, ip, headers, spec.credential === true, seen);
            const player = keyed ? await authenticatePlayer(req, spec.auth, keyed, spec.bannedMayAct === true) : null;
            seen.playerId = player?.playerId ?? null;
            const key = keyed?.key;
            const url = new URL(req.url);
            const params = spec.params ? parseWith(spec.params, await nextCtx.params, "params") : undefined;
            const query = spec.query ? parseWith(spec.query, Object.fromEntries(url.searchParams), "query") : undefined;
            const body = spec.body ? await readJsonBody(req, spec.body, spec.maxBodyBytes ?? MAX_BODY_BYTES) : undefined;
            const caller = { requestId, ip, ...(key ? { projectId: key.projectId, keyId: key.keyId, keyKind: key.kind } : {}) };
            const run = () =>
              inSpan(`service ${route}`, {}, async () => {
                const result = await handler({ req, caller, player, params, query, body } as RouteContext<A, P, Q, B>);
                return result instanceof Reply ? result : new Reply(200, result);
              });
            const guard = spec.idempotent && key && player ? idempotencyScope(req, url, key.projectId, player.playerId, body) : null;
            const reply = guard ? await runIdempotent(guard, run) : await run();
            return seen.finish(jsonResponse(reply.status, reply.body, { ...headers, ...reply.headers }));
          } catch (error) {
            const appError = toAppError(error, requestId);
            return seen.finish(errorResponse(appError, headers), appError.code);
          }
        }),
    );
  return Object.assign(routed, { route });
}

function applyLimits(results: LimitResult[] | null, headers: Record<string, string>): void {
  const result = results && decisiveLimit(results);
  if (!result) return;
  Object.assign(headers, rateLimitHeaders(result));
  if (result.allowed) return;
  if (result.degraded) throw storeUnavailable();
  const retryAfterSeconds = Math.max(1, Math.ceil((result.resetMs - Date.now()) / 1000));
  throw new AppError("RATE_LIMITED", {
    headers: { "Retry-After": String(retryAfterSeconds) },
    details: { limit: result.limit, windowSeconds: result.windowSeconds, retryAfterSeconds, scope: result.policy },
  });
}

type KeyedRequest = { key: ApiKeyContext; claims: AccessClaims | null };

/** Key, then the rate limits: before the body is read, and before the player's session is looked up. */
async function authenticateKey(
  req: Request,
  ip: string,
  headers: Record<string, string>,
  credential: boolean,
  seen: RequestObservation,
): Promise<KeyedRequest> {
  const presented = req.headers.get("x-api-key");
  if (!presented) {
    applyLimits(await limitIp(ip, credential), headers);
    throw new AppError("MISSING_API_KEY");
  }
  let key: ApiKeyContext;
  try {
    key = await resolveApiKey(presented);
  } catch (error) {
    if (error instanceof AppError && error.code === "INVALID_API_KEY") applyLimits(await limitIp(ip, credential), headers);
    throw error;
  }
  seen.projectId = key.projectId;
  const { share, claims } = await shareOf(req, key, ip);
  const limits = await limitKeyed(key, share, credential);
  applyLimits(limits, headers);
  return { key, claims };
}

/**
 * Whose share the request spends. A verified access token of this project or a server key's
 * X-Player-Id names the player; an unverifiable token counts as no player, so a forged token
 * cannot spend someone else's share. Client keys without a player spend their IP's share;
 * server keys have none.
 */
async function shareOf(req: Request, key: ApiKeyContext, ip: string): Promise<{ share: Share; claims: AccessClaims | null }> {
  const server = key.kind === "SERVER";
  const actingAs = req.headers.get("x-player-id");
  if (server && actingAs !== null) return { share: { scope: "player", identifier: actingAs.toLowerCase() }, claims: null };
  // A malformed Authorization header is refused after the limits, like any bad credential.
  const token = (() => {
    try {
      return bearerToken(req);
    } catch {
      return null;
    }
  })();
  if (token) {
    const claims = await verifyAccessToken(token).catch(() => null);
    if (claims && claims.projectId === key.projectId) return { share: { scope: "player", identifier: claims.playerId }, claims };
  }
  return { share: server ? null : { scope: "ip", identifier: ipSubject(ip) }, claims: null };
}

function bearerToken(req: Request): string | null {
  const authorization = req.headers.get("authorization");
  if (!authorization) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(authorization);
  if (!match?.[1]) throw new AppError("INVALID_TOKEN", { details: { reason: "malformed" } });
  return match[1];
}

async function authenticatePlayer(
  req: Request,
  mode: AuthMode,
  { key, claims }: KeyedRequest,
  bannedMayAct: boolean,
): Promise<PlayerCaller | null> {
  const actingAs = req.headers.get("x-player-id");
  if (actingAs !== null && key.kind !== "SERVER") {
    throw new AppError("FORBIDDEN", { message: "Only a server key may act as a player with X-Player-Id." });
  }
  if (mode === "none" || mode === "key") return null;
  if (actingAs !== null) {
    const { playerId } = await authenticateActingPlayer(actingAs, key.projectId, { bannedMayAct });
    return { playerId, sessionId: null, viaServerKey: true };
  }
  const token = bearerToken(req);
  if (!token) {
    if (mode === "optional-player") return null;
    throw new AppError("MISSING_TOKEN");
  }
  const { playerId, sessionId } = await authenticateBearer(token, key.projectId, claims);
  return { playerId, sessionId, viaServerKey: false };
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
/** Set by the launcher (server/cli/edge.mjs), never by a client: the request's real method was another. */
const UNSUPPORTED_METHOD_HEADER = "x-gb-unsupported-method";
const ALL_METHODS: Method[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/**
 * Exports for a route file: the given handlers, a JSON 405 with Allow for every other method,
 * and the CORS preflight answer. `export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({...})`.
 */
export function methods(handlers: Partial<Record<Method, RouteHandler>>): Record<Method | "OPTIONS", RouteHandler> {
  const implemented = ALL_METHODS.filter((m) => handlers[m]);
  const allow = [...implemented, "OPTIONS"].join(", ");
  const route = implemented.map((m) => (handlers[m] as { route?: string }).route).find(Boolean) ?? "unmatched";
  const notAllowed = answerWithoutRoute(
    route,
    () => new AppError("METHOD_NOT_ALLOWED", { details: { allow: [...implemented, "OPTIONS"] } }),
    { Allow: allow },
  );
  const options: RouteHandler = async (req) =>
    new Response(null, { status: 204, headers: { "X-Request-Id": requestIdFrom(req), Allow: allow, ...preflightHeaders(allow) } });
  const out = { OPTIONS: options } as Record<Method | "OPTIONS", RouteHandler>;
  for (const m of ALL_METHODS) out[m] = handlers[m] ?? notAllowed;
  // The launcher hands methods Next cannot route (TRACE, PROPFIND…) over as GET, marked.
  const get = handlers.GET;
  if (get) out.GET = (req, ctx) => (req.headers.has(UNSUPPORTED_METHOD_HEADER) ? notAllowed(req, ctx) : get(req, ctx));
  return out;
}

/**
 * Answers that no handler produces (404, 405) still count against the caller's budget and
 * carry the rate-limit headers; a missing or unknown key does not hide the real answer.
 */
function answerWithoutRoute(route: string, makeError: (req: Request) => AppError, extra: Record<string, string> = {}): RouteHandler {
  return async (req) => {
    // A method Next cannot route arrives as a marked GET; its real name is the client's (unbounded).
    const method = req.headers.has(UNSUPPORTED_METHOD_HEADER) ? "OTHER" : req.method;
    const requestId = requestIdFrom(req);
    const seen = new RequestObservation(route, method, requestId);
    seen.release = releaseOf(req.headers);
    const headers: Record<string, string> = { "X-Request-Id": requestId, ...corsHeaders(), ...extra };
    try {
      await authenticateKey(req, clientIp(req), headers, false, seen).catch((error: unknown) => {
        if (error instanceof AppError && (error.code === "MISSING_API_KEY" || error.code === "INVALID_API_KEY")) return;
        throw error;
      });
      const refusal = makeError(req);
      return seen.finish(errorResponse(refusal, headers), refusal.code);
    } catch (error) {
      const appError = toAppError(error, requestId);
      return seen.finish(errorResponse(appError, headers), appError.code);
    }
  };
}

/** Unknown paths under /api answer the JSON 404, never an HTML page. */
export const notFoundRoute: RouteHandler = answerWithoutRoute(
  "unmatched",
  (req) => new AppError("NOT_FOUND", { message: `No route for ${req.method} ${new URL(req.url).pathname}.` }),
);

/** Where next.config.ts sends an API-looking request (an API key, or JSON wanted) that matched no page or route. */
export const UNPREFIXED_PATH = "/api/unprefixed";

/** A game-API call that left out the /api/v1 prefix: the JSON 404 says where the API lives. */
export const unprefixedRoute: RouteHandler = answerWithoutRoute("unprefixed", (req) => {
  const pathname = new URL(req.url).pathname;
  const asked = pathname.startsWith(`${UNPREFIXED_PATH}/`) ? pathname.slice(UNPREFIXED_PATH.length) : pathname;
  return new AppError("NOT_FOUND", { message: `No route here. The game API lives under /api/v1: try /api/v1${asked}.` });
});

/** The service-layer view of a player request. */
export function actorOf(caller: Caller, player: PlayerCaller): PlayerActor {
  return { kind: "player", projectId: caller.projectId, playerId: player.playerId, via: player.viaServerKey ? "server-key" : "token" };
}

/** A `{id}` path segment: `me` is the caller; ids are compared in lower case. */
export function playerRef(id: string, player: PlayerCaller): string {
  return id === "me" ? player.playerId : id.toLowerCase();
}
