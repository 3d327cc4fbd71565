import { AppError } from "../errors";
import { signedInOperator } from "../identity/next-auth";
import { operatorForToken } from "../identity/operator-tokens";
import type { OperatorContext } from "../services/command";

/**
 * Who an operator request is from, for every operator door: the tRPC endpoint, the download
 * route, the project pages' layout (server components). Two credentials:
 *   - `Authorization: Bearer gbo_…`, an operator access token. The cookie is not read, so there is
 *     no ambient credential to forge and the cross-site rule does not apply. An unknown, revoked or
 *     expired token leaves `tokenRefused` set, and anything that needs an operator answers
 *     INVALID_TOKEN (a public procedure still runs, for nobody).
 *   - the dashboard session cookie (next-auth), under the one cross-site rule below.
 */
export type OperatorRequest = { method: string; headers: Headers };

/**
 * The one cross-site rule: a request that carries the session cookie and that another site
 * started is refused, whatever its method — `Sec-Fetch-Site: cross-site`, or an `Origin` whose
 * host is not this request's host. The cookie is SameSite=Lax, so a cross-site top-level GET
 * (a link, a download) carries it; a download is audited and a tRPC call may change things, so
 * either must be the operator's own. A browser that sends neither header (an old one, or a
 * script with the cookie) is let through: SameSite=Lax then keeps the cookie off cross-site
 * subrequests and posts.
 */
export function isCrossSite(req: OperatorRequest): boolean {
  if (req.headers.get("sec-fetch-site") === "cross-site") return true;
  const origin = req.headers.get("origin");
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
  return origin !== null && origin !== "null" && host !== null && hostOf(origin) !== host;
}

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

export const bearerOf = (req: OperatorRequest): string | undefined => /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1];

/** Throws FORBIDDEN for a cookie request another site started (see `isCrossSite`). */
export async function operatorContext(req: OperatorRequest, requestId: string): Promise<OperatorContext> {
  const bearer = bearerOf(req);
  if (bearer !== undefined) {
    const operator = await operatorForToken(bearer);
    return operator ? { operator, requestId } : { operator: null, requestId, tokenRefused: true };
  }
  if (isCrossSite(req)) throw new AppError("FORBIDDEN", { message: "Cross-site request refused." });
  return { operator: await signedInOperator(), requestId };
}

/**
 * The same, for a server component (a page or layout): its request's headers. A page render is a
 * GET, so the rule refuses a cookie request another site started, as it does a download.
 */
export async function pageOperatorContext(requestId: string): Promise<OperatorContext> {
  const { headers } = await import("next/headers");
  return operatorContext({ method: "GET", headers: new Headers(await headers()) }, requestId);
}
