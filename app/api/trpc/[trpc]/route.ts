import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { signedInOperator } from "@/server/auth/next-auth";
import { operatorForToken } from "@/server/auth/operator-tokens";
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

async function handler(req: Request): Promise<Response> {
  const requestId = requestIdFrom(req);
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
