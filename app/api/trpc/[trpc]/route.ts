import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { signedInOperator } from "@/server/auth/next-auth";
import { requestIdFrom } from "@/server/http/headers";
import { appRouter } from "@/server/trpc/router";

/**
 * The dashboard's tRPC endpoint. Mutations must come from this origin (the session cookie is
 * SameSite=Lax; a cross-site form post cannot send JSON, and a cross-origin fetch fails here).
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
  if (req.method === "POST") {
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
    createContext: async () => ({ operator: await signedInOperator(), requestId }),
  });
  response.headers.set("X-Request-Id", requestId);
  return response;
}

export { handler as GET, handler as POST };
