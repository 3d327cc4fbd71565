import { type NextRequest, NextResponse } from "next/server";
import { getToken } from "next-auth/jwt";
import { dashboardSecret } from "@/server/auth/dashboard-secret";

/**
 * Sends visitors without a valid session to sign-in before a dashboard page renders. A redirect
 * only: the dashboard layout checks the operator again (a deleted operator's cookie still
 * decodes here) and every tRPC procedure checks on its own. The cookie is `__Secure-`-prefixed
 * when next-auth saw https (possibly behind a TLS-terminating proxy), so both names are tried.
 */
export async function proxy(request: NextRequest): Promise<NextResponse> {
  const secret = dashboardSecret();
  const token =
    (await getToken({ req: request, secret, secureCookie: false })) ?? (await getToken({ req: request, secret, secureCookie: true }));
  if (token?.sub) return NextResponse.next();
  const login = new URL("/login", request.url);
  login.searchParams.set("callbackUrl", `${request.nextUrl.pathname}${request.nextUrl.search}`);
  return NextResponse.redirect(login);
}

export const config = { matcher: ["/projects/:path*"] };
