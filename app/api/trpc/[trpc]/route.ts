import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { AppError } from "@/server/errors";
import { boundedRequest, MAX_BODY_BYTES } from "@/server/http/body";
import { requestIdFrom } from "@/server/http/headers";
import { errorResponse } from "@/server/http/respond";
import { signedInOperator } from "@/server/identity/next-auth";
import { operatorForToken } from "@/server/identity/operator-tokens";
import { appRouter } from "@/server/trpc/router";

/**
 * The dashboard's tRPC endpoint. With the session cookie, mutations must come from this origin
 * (the cookie is SameSite=Lax; a cross-site form post cannot send JSON, and a cross-origin fetch
 * fails here). With `Authorization: Bearer gbo_…` (an operator access token) the cookie is not
 * read at all, so there is no ambient credential to forge and no Origin check.
 */
function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

/**
 * The caller is resolved first (session cookie or operator token: headers only), then the body is
 * read under a cap while streaming, before tRPC parses it: 16 KiB for a caller who is not signed in
 * (the few public procedures take a token or a password), 2 MiB signed in (an operator's edit of a
 * player's 1 MiB data value fits), 16 MiB for a config import and its dry run (a project's whole
 * definition). A batch holds at most MAX_BATCH_CALLS calls.
 */
const ANONYMOUS_BODY_LIMIT_BYTES = 16 * 1024;
const TRPC_BODY_LIMIT_BYTES = MAX_BODY_BYTES;
const CONFIG_IMPORT_BODY_LIMIT_BYTES = 16 * 1024 * 1024;
const MAX_BATCH_CALLS = 20;
const LARGE_BODY_PROCEDURES = new Set(["config.import", "config.dryRun"]);

function bodyLimit(procedures: string[], signedIn: boolean): number {
  if (!signedIn) return ANONYMOUS_BODY_LIMIT_BYTES;
  return procedures.length === 1 && LARGE_BODY_PROCEDURES.has(procedures[0] ?? "") ? CONFIG_IMPORT_BODY_LIMIT_BYTES : TRPC_BODY_LIMIT_BYTES;
}

async function handler(incoming: Request): Promise<Response> {
  const requestId = requestIdFrom(incoming);
  const procedures = new URL(incoming.url).pathname.slice("/api/trpc/".length).split(",");
  if (procedures.length > MAX_BATCH_CALLS) {
    const refusal = new AppError("VALIDATION_ERROR", {
      message: `A batch may hold at most ${MAX_BATCH_CALLS} calls; this one holds ${procedures.length}.`,
      details: { maxBatchCalls: MAX_BATCH_CALLS, calls: procedures.length },
    });
    return errorResponse(refusal, { "X-Request-Id": requestId });
  }
  const bearer = /^Bearer\s+(\S+)$/i.exec(incoming.headers.get("authorization") ?? "")?.[1];
  if (bearer === undefined && incoming.method === "POST") {
    const origin = incoming.headers.get("origin");
    const host = incoming.headers.get("x-forwarded-host") ?? incoming.headers.get("host");
    if (origin !== null && host !== null && hostOf(origin) !== host) {
      return Response.json({ error: { code: "FORBIDDEN", message: "Cross-origin request refused.", details: {} } }, { status: 403 });
    }
  }
  const operator = bearer === undefined ? await signedInOperator() : await operatorForToken(bearer);
  const req = await boundedRequest(incoming, bodyLimit(procedures, operator !== null));
  if (req instanceof Response) return req;
  const response = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async () => (bearer === undefined ? { operator, requestId } : { operator, requestId, tokenRefused: operator === null }),
  });
  response.headers.set("X-Request-Id", requestId);
  return response;
}

export { handler as GET, handler as POST };
