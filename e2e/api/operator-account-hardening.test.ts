import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { createOperatorToken } from "@/server/identity/operator-tokens";
import { upsertOperator } from "@/server/services/operators";
import { baseUrl } from "../support/api";

/**
 * What a stolen dashboard session can do to an account, and what the account's access tokens
 * survive: through the real sign-in flow and tRPC over HTTP.
 */
const PASSWORD = "a long operator passphrase 9";

async function newOperator(isInstanceAdmin = false) {
  const email = `harden-${randomBytes(4).toString("hex")}@studio.test`;
  return { ...(await upsertOperator({ email, name: email, password: PASSWORD, isInstanceAdmin })), isInstanceAdmin };
}

const cookiesOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(";")[0] ?? "");
// Each sign-in from its own address: the failed-login budgets are per address too.
const someAddress = () => `198.51.100.${1 + Math.floor(Math.random() * 250)}`;

async function signIn(email: string, password = PASSWORD): Promise<string> {
  const csrf = await fetch(`${baseUrl()}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch(`${baseUrl()}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Cookie: cookiesOf(csrf).join("; "),
      "X-Forwarded-For": someAddress(),
    },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
  });
  const session = cookiesOf(res).find((c) => c.startsWith("next-auth.session-token="));
  if (!session) throw new Error(`sign-in of ${email} refused`);
  return session;
}

async function call(auth: { cookie?: string; token?: string }, type: "query" | "mutation", path: string, input?: unknown) {
  const headers: Record<string, string> = { Origin: baseUrl() };
  if (auth.cookie) headers.Cookie = auth.cookie;
  if (auth.token) headers.Authorization = `Bearer ${auth.token}`;
  const res =
    type === "query"
      ? await fetch(`${baseUrl()}/api/trpc/${path}`, { headers })
      : await fetch(`${baseUrl()}/api/trpc/${path}`, {
          method: "POST",
          headers: { ...headers, "Content-Type": "application/json" },
          body: JSON.stringify(input ?? null),
        });
  const body = (await res.json()) as { result?: { data: unknown }; error?: { data: { appCode: string; code: string } } };
  return { status: res.status, data: body.result?.data, appCode: body.error?.data.appCode, trpcCode: body.error?.data.code };
}

const tokenFor = async (op: { id: string; isInstanceAdmin: boolean }) =>
  (await createOperatorToken({ operator: op, name: "automation", role: "OWNER", projectIds: null, instanceAdmin: false })).token;

describe("changing the dashboard password", () => {
  it("L5: after 5 wrong current passwords the 6th try is refused (429 RATE_LIMITED) even with the right one, and audited", async () => {
    const op = await newOperator();
    const cookie = await signIn(op.email);
    for (let i = 0; i < 5; i++) {
      const wrong = await call({ cookie }, "mutation", "account.changePassword", { currentPassword: `guess ${i}`, newPassword: "x" });
      expect(wrong.appCode).toBe("VALIDATION_ERROR");
    }
    const sixth = await call({ cookie }, "mutation", "account.changePassword", {
      currentPassword: PASSWORD,
      newPassword: "a brand new passphrase 42",
    });
    expect({ status: sixth.status, appCode: sixth.appCode, trpcCode: sixth.trpcCode }).toEqual({
      status: 429,
      appCode: "RATE_LIMITED",
      trpcCode: "TOO_MANY_REQUESTS",
    });
    expect(await prisma().auditEntry.count({ where: { target: op.id, action: "operator.password-limited" } })).toBe(1);
    // The password did not change: the old one still signs in.
    await signIn(op.email);
  }, 90_000);
});

describe("operator access tokens and account actions", () => {
  it("a password change revokes the operator's access tokens", async () => {
    const op = await newOperator();
    const cookie = await signIn(op.email);
    const token = await tokenFor(op);
    expect((await call({ token }, "query", "projects.list")).status).toBe(200);
    const changed = await call({ cookie }, "mutation", "account.changePassword", {
      currentPassword: PASSWORD,
      newPassword: "another long passphrase 77",
    });
    expect(changed.data).toMatchObject({ revokedTokens: 1 });
    expect((await call({ token }, "query", "projects.list")).appCode).toBe("INVALID_TOKEN");
  });

  it("'sign out everywhere' revokes the operator's access tokens", async () => {
    const op = await newOperator();
    const cookie = await signIn(op.email);
    const token = await tokenFor(op);
    expect((await call({ cookie }, "mutation", "account.signOutEverywhere")).data).toEqual({ ended: 1, revokedTokens: 1 });
    expect((await call({ token }, "query", "projects.list")).appCode).toBe("INVALID_TOKEN");
  });

  it("re-enabling a disabled operator does not bring their access tokens back", async () => {
    const admin = await newOperator(true);
    const op = await newOperator();
    const adminCookie = await signIn(admin.email);
    const token = await tokenFor(op);
    for (const disabled of [true, false]) {
      const res = await call({ cookie: adminCookie }, "mutation", "operators.setDisabled", { operatorId: op.id, disabled });
      expect(res.status).toBe(200);
    }
    expect((await call({ token }, "query", "projects.list")).appCode).toBe("INVALID_TOKEN");
    // The operator is back: a new sign-in works.
    await signIn(op.email);
  });
});
