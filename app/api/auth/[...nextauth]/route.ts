import NextAuth from "next-auth";
import { boundedRequest } from "@/server/http/body";
import { authOptions } from "@/server/identity/next-auth";

/** Sign-in forms and CSRF posts are a few hundred bytes: anything over 64 KiB is refused while streaming, before next-auth parses it. */
const AUTH_BODY_LIMIT_BYTES = 64 * 1024;

const handler = async (incoming: Request, ctx: { params: Promise<{ nextauth: string[] }> }) => {
  const req = await boundedRequest(incoming, AUTH_BODY_LIMIT_BYTES);
  return req instanceof Response ? req : NextAuth(authOptions())(req, ctx);
};

export { handler as GET, handler as POST };
