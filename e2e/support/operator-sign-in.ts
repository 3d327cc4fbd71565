import { randomBytes } from "node:crypto";
import { prisma } from "@/server/db";
import { createOperatorToken } from "@/server/identity/operator-tokens";
import { hashPassword } from "@/server/passwords";

const cookiesOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(";")[0] ?? "");

export type SignInAnswer = { session: string | null; url: string | null; status: number };

/**
 * Signs in through next-auth's credentials callback as the dashboard's form does (CSRF token,
 * `json: true`); answers the session cookie (null when refused) and the URL next-auth sends the
 * browser to next.
 */
export async function operatorSignIn(
  baseUrl: string,
  o: { email: string; password: string; callbackUrl?: string; address?: string },
): Promise<SignInAnswer> {
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const form: Record<string, string> = { csrfToken, email: o.email, password: o.password, json: "true" };
  if (o.callbackUrl !== undefined) form.callbackUrl = o.callbackUrl;
  const res = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Cookie: cookiesOf(csrf).join("; "),
      "X-Forwarded-For": o.address ?? `198.51.100.${1 + Math.floor(Math.random() * 250)}`,
    },
    body: new URLSearchParams(form),
  });
  const session = cookiesOf(res).find((c) => c.startsWith("next-auth.session-token=")) ?? null;
  const body = (await res.json().catch(() => null)) as { url?: string } | null;
  return { session, url: body?.url ?? res.headers.get("location"), status: res.status };
}

/** A new operator (not an instance admin) and an owner-role access token of theirs, for tRPC calls with `Authorization: Bearer`. */
export async function operatorTokenForTests(): Promise<string> {
  const email = `tok-${randomBytes(4).toString("hex")}@studio.test`;
  const passwordHash = await hashPassword(randomBytes(16).toString("hex"));
  const op = await prisma().operator.create({ data: { email, name: email, passwordHash }, select: { id: true } });
  const { token } = await createOperatorToken({
    operator: { id: op.id, isInstanceAdmin: false },
    name: "tests",
    role: "OWNER",
    projectIds: null,
    instanceAdmin: false,
  });
  return token;
}
