import type { NextAuthOptions } from "next-auth";
import { getServerSession } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { AppError } from "../errors";
import type { SessionOperator } from "../trpc/init";
import { currentOperator, dashboardSecret, verifyOperator } from "./operators";

/**
 * next-auth 4 for operators: the Credentials provider over verifyOperator, JWT sessions in an
 * httpOnly, SameSite=Lax cookie (Secure over https), 8 hours, renewed while used (rolling).
 * Every request re-reads the operator (a removed operator or a lost admin flag applies at once).
 */
const SESSION_SECONDS = 8 * 3600;

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
            return { id: operator.id, email: operator.email, name: operator.name };
          } catch (error) {
            if (error instanceof AppError && error.code === "INVALID_CREDENTIALS") return null;
            throw error; // 429 budgets and outages surface as a sign-in error, not as a wrong password
          }
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) token.sub = user.id;
        return token;
      },
      session({ session, token }) {
        return { ...session, operatorId: token.sub };
      },
    },
  };
}

/** The signed-in operator of a server component or route handler, or null. */
export async function signedInOperator(): Promise<SessionOperator | null> {
  const session = (await getServerSession(authOptions())) as { operatorId?: string } | null;
  return session?.operatorId ? currentOperator(session.operatorId) : null;
}
