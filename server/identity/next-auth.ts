import type { NextAuthOptions } from "next-auth";
import { getServerSession } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { AppError } from "../errors";
import type { SessionOperator } from "./operator";
import { endOperatorSession, operatorForSession, SESSION_SECONDS, startOperatorSession } from "./operator-sessions";
import { dashboardSecret, verifyOperator } from "./operators";
import { safeRedirectPath } from "./safe-redirect";

/**
 * next-auth 4 for operators: the Credentials provider over verifyOperator, JWT sessions in an
 * httpOnly, SameSite=Lax cookie (Secure over https), 8 hours, renewed while used (rolling). The
 * JWT names a server-side session row (`sid`, server/identity/operator-sessions.ts) that every
 * request checks with the operator: sign-out, "sign out everywhere", a password change or a
 * disabled operator end it at once, whatever copies of the cookie exist.
 */

export function authOptions(): NextAuthOptions {
  return {
    secret: dashboardSecret(),
    session: { strategy: "jwt", maxAge: SESSION_SECONDS, updateAge: 15 * 60 },
    jwt: { maxAge: SESSION_SECONDS },
    pages: { signIn: "/login", error: "/login" },
    providers: [
      CredentialsProvider({
        name: "E-mail",
        credentials: { email: { label: "E-mail", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, req) {
          const email = typeof credentials?.email === "string" ? credentials.email : "";
          const password = typeof credentials?.password === "string" ? credentials.password : "";
          if (!email || !password || email.length > 320 || password.length > 1024) return null;
          const forwarded = req.headers?.["x-forwarded-for"];
          const ip = (Array.isArray(forwarded) ? forwarded.join(",") : (forwarded ?? "")).split(",").at(-1)?.trim() || "unknown";
          try {
            const operator = await verifyOperator({ email, password, ip });
            const userAgent = req.headers?.["user-agent"];
            const sid = await startOperatorSession({
              operatorId: operator.id,
              userAgent: typeof userAgent === "string" ? userAgent : null,
              ip,
            });
            return { id: operator.id, email: operator.email, name: operator.name, sid };
          } catch (error) {
            if (error instanceof AppError && error.code === "INVALID_CREDENTIALS") return null;
            throw error; // 429 budgets and outages surface as a sign-in error, not as a wrong password
          }
        },
      }),
    ],
    callbacks: {
      redirect({ url, baseUrl }) {
        return `${new URL(baseUrl).origin}${safeRedirectPath(url, baseUrl, "/projects")}`;
      },
      jwt({ token, user }) {
        if (user) {
          token.sub = user.id;
          token.sid = (user as { sid?: string }).sid;
        }
        return token;
      },
      session({ session, token }) {
        return { ...session, operatorId: token.sub, sessionId: token.sid };
      },
    },
    events: {
      async signOut({ token }) {
        if (typeof token?.sid === "string") await endOperatorSession({ sessionId: token.sid });
      },
    },
  };
}

/** The signed-in operator of a server component or route handler, or null. */
export async function signedInOperator(): Promise<SessionOperator | null> {
  const session = (await getServerSession(authOptions())) as { operatorId?: string; sessionId?: unknown } | null;
  // A cookie from before server-side sessions names none: it is signed out.
  if (!session?.operatorId || typeof session.sessionId !== "string") return null;
  return operatorForSession({ operatorId: session.operatorId, sessionId: session.sessionId });
}
