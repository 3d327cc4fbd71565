import { randomUUID } from "node:crypto";
import type { LimitResult } from "../ratelimit";

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echo a sane incoming X-Request-Id, else make one. */
export function requestIdFrom(req: Request): string {
  const incoming = req.headers.get("x-request-id");
  return incoming && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** X-Client-Version and X-Platform: the SDKs' client identification (a WebGL build's preflight asks for them). */
export const CORS_ALLOWED_HEADERS =
  "X-API-Key, Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-Player-Id, X-Request-Id, X-Client-Version, X-Platform";
export const CORS_EXPOSED_HEADERS =
  "X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit-Policy, RateLimit, Retry-After, ETag, Idempotent-Replayed, Allow";

export function corsHeaders(): Record<string, string> {
  return { "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": CORS_EXPOSED_HEADERS };
}

export function preflightHeaders(allow: string): Record<string, string> {
  return {
    ...corsHeaders(),
    "Access-Control-Allow-Methods": allow,
    "Access-Control-Allow-Headers": CORS_ALLOWED_HEADERS,
    "Access-Control-Max-Age": "86400",
  };
}

/** X-RateLimit-* plus the IETF draft pair (draft-ietf-httpapi-ratelimit-headers, structured fields). */
export function rateLimitHeaders(r: LimitResult): Record<string, string> {
  const secondsLeft = Math.max(0, Math.ceil((r.resetMs - Date.now()) / 1000));
  return {
    "X-RateLimit-Limit": String(r.limit),
    "X-RateLimit-Remaining": String(Math.max(0, r.remaining)),
    "X-RateLimit-Reset": String(Math.ceil(r.resetMs / 1000)),
    "RateLimit-Policy": `"${r.policy}";q=${r.limit};w=${r.windowSeconds}`,
    RateLimit: `"${r.policy}";r=${Math.max(0, r.remaining)};t=${secondsLeft}`,
  };
}

/**
 * The client address. The launcher overwrites X-Forwarded-For with the socket address unless
 * TRUST_PROXY; with it, the one trusted proxy appended the address it saw as the last entry
 * (entries to its left come from the client and prove nothing).
 */
export function clientIp(req: Request): string {
  const forwarded = req.headers.get("x-forwarded-for");
  const last = forwarded?.split(",").at(-1)?.trim();
  return last || "unknown";
}

/** A 429 names the policy that refused it; its rate-limit headers describe that policy. */
export function rateLimitHeadersOfRefusal(details: Record<string, unknown>): Record<string, string> {
  const { limit, windowSeconds, retryAfterSeconds, scope } = details;
  if (typeof limit !== "number" || typeof windowSeconds !== "number" || typeof retryAfterSeconds !== "number" || typeof scope !== "string")
    return {};
  return rateLimitHeaders({
    policy: scope,
    allowed: false,
    limit,
    remaining: 0,
    resetMs: Date.now() + retryAfterSeconds * 1000,
    windowSeconds,
    degraded: false,
  });
}
