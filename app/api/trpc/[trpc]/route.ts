import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { signedInOperator } from "@/server/auth/next-auth";
import { operatorForToken } from "@/server/auth/operator-tokens";
import { boundedRequest, MAX_BODY_BYTES } from "@/server/http/body";
import { requestIdFrom } from "@/server/http/headers";
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
 * Bodies are read under a cap while streaming, before tRPC parses them: 2 MiB (an operator's edit
 * of a player's 1 MiB data value fits), 16 MiB for a config import and its dry run (a project's whole definition).
 */
const TRPC_BODY_LIMIT_BYTES = MAX_BODY_BYTES;
const CONFIG_IMPORT_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

async function handler(incoming: Request): Promise<Response> {
  const requestId = requestIdFrom(incoming);
  const procedures = new URL(incoming.url).pathname.slice("/api/trpc/".length);
  const limit = procedures === "config.import" || procedures === "config.dryRun" ? CONFIG_IMPORT_BODY_LIMIT_BYTES : TRPC_BODY_LIMIT_BYTES;
  const req = await boundedRequest(incoming, limit);
  if (req instanceof Response) return req;
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1];
  if (bearer === undefined && req.method === "POST") {
    const origin = req.headers.get("origin");
    const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
    if (origin !== null && host !== null && hostOf(origin) !== host) {
      return Response.json({ error: { code: "FORBIDDEN", message: "Cross-origin request refused.", details: {} } }, { status: 403 });
    }
  }
  const response = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async () => {
      if (bearer === undefined) return { operator: await signedInOperator(), requestId };
      const operator = await operatorForToken(bearer);
      return { operator, requestId, tokenRefused: operator === null };
    },
  });
  response.headers.set("X-Request-Id", requestId);
  return response;
}

export { handler as GET, handler as POST };
