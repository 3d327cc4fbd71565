import { type NextRequest, NextResponse } from "next/server";
import { getToken } from "next-auth/jwt";
import { env } from "@/server/env";
import { contentSecurityPolicy, securityHeaders } from "@/server/http/security-headers";
import { dashboardSecret } from "@/server/identity/dashboard-secret";

/**
 * Every HTML page gets the browser security headers (server/http/security-headers.ts) and a
 * fresh CSP nonce, passed to Next on the request so its scripts carry it. Dashboard pages also
 * send visitors without a valid session to sign-in before they render: a redirect only — the
 * dashboard layout checks the operator again (a deleted operator's cookie still decodes here) and
 * every tRPC procedure checks on its own. The cookie is `__Secure-`-prefixed when next-auth saw
 * https (possibly behind a TLS-terminating proxy), so both names are tried.
 */
export async function proxy(request: NextRequest): Promise<NextResponse> {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const csp = contentSecurityPolicy(nonce, process.env.NODE_ENV !== "production");
  const headers = securityHeaders({ csp, https: arrivedOverHttps(request) });
  const response = (await signedOutOfDashboard(request))
    ? NextResponse.redirect(loginUrl(request))
    : NextResponse.next({ request: { headers: withCsp(request.headers, csp) } });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

async function signedOutOfDashboard(request: NextRequest): Promise<boolean> {
  const path = request.nextUrl.pathname;
  if (path !== "/projects" && !path.startsWith("/projects/")) return false;
  const secret = dashboardSecret();
  const token =
    (await getToken({ req: request, secret, secureCookie: false })) ?? (await getToken({ req: request, secret, secureCookie: true }));
  return !token?.sub;
}

function loginUrl(request: NextRequest): URL {
  const login = new URL("/login", request.url);
  login.searchParams.set("callbackUrl", `${request.nextUrl.pathname}${request.nextUrl.search}`);
  return login;
}

function withCsp(incoming: Headers, csp: string): Headers {
  const headers = new Headers(incoming);
  headers.set("Content-Security-Policy", csp);
  return headers;
}

function arrivedOverHttps(request: NextRequest): boolean {
  if (request.nextUrl.protocol === "https:") return true;
  return env().TRUST_PROXY && request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}

/**
 * The HTML pages, listed: never the API (JSON, its own headers), Next's static files or /docs
 * (Swagger UI's inline setup). With a negative-lookahead matcher ("everything but api/…") the
 * game API lost 10–20 % of its throughput in `npm run bench` A/B runs, though its answers never
 * carried the page headers; with this list it is back at the numbers from before the proxy
 * covered pages (docs/reports/performance.md).
 */
export const config = {
  matcher: ["/", "/login", "/invite/:path*", "/projects", "/projects/:path*", "/tokens", "/account", "/operators", "/play", "/play/:path*"],
};
