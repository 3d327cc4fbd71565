import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { createOperatorToken } from "@/server/identity/operator-tokens";
import { upsertOperator } from "@/server/services/operators";
import { baseUrl } from "../support/api";
import { makeProject } from "../support/fixtures";

/**
 * Operator dashboard sessions end on the server: a copied session cookie stops working after
 * sign-out, "sign out everywhere", a password change or the operator being disabled — the
 * next-auth sign-in flow over HTTP, as a browser runs it.
 */
const PASSWORD = "a long operator passphrase 9";

async function newOperator(isInstanceAdmin = false) {
  const email = `sess-${randomBytes(4).toString("hex")}@studio.test`;
  const op = await upsertOperator({ email, name: email, password: PASSWORD, isInstanceAdmin });
  return { ...op, isInstanceAdmin };
}

const cookiesOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(";")[0] ?? "");
// Each sign-in from its own address: the failed-login budgets are per address too.
const someAddress = () => `198.51.100.${1 + Math.floor(Math.random() * 250)}`;

/** Signs in as a browser does (CSRF token, credentials form); answers the session cookie, or null when refused. */
async function signIn(email: string, password = PASSWORD): Promise<string | null> {
  const csrf = await fetch(`${baseUrl()}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch(`${baseUrl()}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Cookie: cookiesOf(csrf).join("; "),
      "X-Forwarded-For": someAddress(),
      "User-Agent": "sessions-test",
    },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
  });
  const session = cookiesOf(res).find((c) => c.startsWith("next-auth.session-token="));
  return session ?? null;
}

async function signOut(cookie: string): Promise<void> {
  const csrf = await fetch(`${baseUrl()}/api/auth/csrf`, { headers: { Cookie: cookie } });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch(`${baseUrl()}/api/auth/signout`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: [cookie, ...cookiesOf(csrf)].join("; ") },
    body: new URLSearchParams({ csrfToken, json: "true" }),
  });
  expect(res.status).toBeLessThan(400);
}

/** A tRPC call with a session cookie (or a bearer token): the HTTP status and the answer's data. */
async function call(auth: { cookie?: string; token?: string }, type: "query" | "mutation", path: string, input?: unknown) {
  const headers: Record<string, string> = { Origin: baseUrl() };
  if (auth.cookie) headers.Cookie = auth.cookie;
  if (auth.token) headers.Authorization = `Bearer ${auth.token}`;
  const res =
    type === "query"
      ? await fetch(`${baseUrl()}/api/trpc/${path}${input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`}`, {
          headers,
        })
      : await fetch(`${baseUrl()}/api/trpc/${path}`, {
          method: "POST",
          headers: { ...headers, "Content-Type": "application/json" },
          body: JSON.stringify(input ?? null),
        });
  const body = (await res.json()) as { result?: { data: unknown }; error?: { message: string; data: { appCode: string } } };
  return { status: res.status, data: body.result?.data, appCode: body.error?.data.appCode, message: body.error?.message ?? "" };
}

describe("operator sessions end on the server", () => {
  it("after sign-out a copied session cookie is refused (401)", async () => {
    const op = await newOperator();
    const cookie = (await signIn(op.email)) ?? "";
    expect(cookie).not.toBe("");
    expect((await call({ cookie }, "query", "projects.list")).status).toBe(200);
    const copy = cookie;
    await signOut(cookie);
    expect(await call({ cookie: copy }, "query", "projects.list")).toMatchObject({ status: 401 });
  });

  it("the operator's sessions are listed with the caller's own marked; 'sign out everywhere' ends all of them", async () => {
    const op = await newOperator();
    const [a, b] = [(await signIn(op.email)) ?? "", (await signIn(op.email)) ?? ""];
    const listed = await call({ cookie: a }, "query", "account.sessions");
    expect((listed.data as Array<{ current: boolean; userAgent: string }>).map((s) => [s.current, s.userAgent]).sort()).toEqual([
      [false, "sessions-test"],
      [true, "sessions-test"],
    ]);
    expect((await call({ cookie: a }, "mutation", "account.signOutEverywhere")).data).toEqual({ ended: 2, revokedTokens: 0 });
    expect((await call({ cookie: a }, "query", "projects.list")).status).toBe(401);
    expect((await call({ cookie: b }, "query", "projects.list")).status).toBe(401);
  });

  it("a password change ends the operator's other sessions, keeps this one, and the old password stops working", async () => {
    const op = await newOperator();
    const [a, b] = [(await signIn(op.email)) ?? "", (await signIn(op.email)) ?? ""];
    const wrong = await call({ cookie: a }, "mutation", "account.changePassword", { currentPassword: "nope", newPassword: "x" });
    expect(wrong.appCode).toBe("VALIDATION_ERROR");
    expect((await call({ cookie: b }, "query", "projects.list")).status).toBe(200); // a refused change ends nothing
    const fresh = "another long passphrase 77";
    const changed = await call({ cookie: a }, "mutation", "account.changePassword", { currentPassword: PASSWORD, newPassword: fresh });
    expect(changed.data).toEqual({ endedSessions: 1, revokedTokens: 0 });
    expect((await call({ cookie: a }, "query", "projects.list")).status).toBe(200);
    expect((await call({ cookie: b }, "query", "projects.list")).status).toBe(401);
    expect(await signIn(op.email)).toBeNull();
    expect(await signIn(op.email, fresh)).not.toBeNull();
    const activity = await call({ cookie: a }, "query", "account.activity");
    expect((activity.data as Array<{ action: string }>).map((e) => e.action)).toContain("operator.password");
  });

  it("an access token cannot list sessions or change the password (a dashboard session only)", async () => {
    const op = await newOperator();
    const { token } = await createOperatorToken({ operator: op, name: "t", role: "OWNER", projectIds: null, instanceAdmin: false });
    expect((await call({ token }, "query", "account.sessions")).appCode).toBe("FORBIDDEN");
    const change = await call({ token }, "mutation", "account.changePassword", {
      currentPassword: PASSWORD,
      newPassword: "zzz long pass 1",
    });
    expect(change.appCode).toBe("FORBIDDEN");
  });

  it("an operator access token past its expiry is refused (401 INVALID_TOKEN) where it was answered before", async () => {
    const op = await newOperator();
    const created = await createOperatorToken({
      operator: op,
      name: "t",
      role: "OWNER",
      projectIds: null,
      instanceAdmin: false,
      expiresInDays: 1,
    });
    expect((await call({ token: created.token }, "query", "projects.list")).status).toBe(200);
    // Its expiry passes (moved into the past where the app reads it, rather than waiting a day).
    await prisma().operatorToken.update({ where: { id: created.id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    const refused = await call({ token: created.token }, "query", "projects.list");
    expect([refused.status, refused.appCode]).toEqual([401, "INVALID_TOKEN"]);
  });

  it("an instance admin disables an operator: their session and token stop at once and they cannot sign in; enabling lets them back", async () => {
    const admin = await newOperator(true);
    const op = await newOperator();
    const adminCookie = (await signIn(admin.email)) ?? "";
    const cookie = (await signIn(op.email)) ?? "";
    const { token } = await createOperatorToken({ operator: op, name: "t", role: "OWNER", projectIds: null, instanceAdmin: false });
    const asOperator = await call({ cookie }, "mutation", "operators.setDisabled", { operatorId: admin.id, disabled: true });
    expect(asOperator.appCode).toBe("FORBIDDEN");
    expect((await call({ cookie: adminCookie }, "mutation", "operators.setDisabled", { operatorId: op.id, disabled: true })).status).toBe(
      200,
    );
    expect((await call({ cookie }, "query", "projects.list")).status).toBe(401);
    expect((await call({ token }, "query", "projects.list")).appCode).toBe("INVALID_TOKEN");
    expect(await signIn(op.email)).toBeNull();
    const listed = (await call({ cookie: adminCookie }, "query", "operators.list")).data as Array<{ id: string; disabled: boolean }>;
    expect(listed.find((o) => o.id === op.id)?.disabled).toBe(true);
    await call({ cookie: adminCookie }, "mutation", "operators.setDisabled", { operatorId: op.id, disabled: false });
    expect(await signIn(op.email)).not.toBeNull();
    expect(await prisma().auditEntry.count({ where: { target: op.id, action: { in: ["operator.disable", "operator.enable"] } } })).toBe(2);
  });

  it("an instance admin cannot disable themselves", async () => {
    const admin = await newOperator(true);
    const cookie = (await signIn(admin.email)) ?? "";
    expect((await call({ cookie }, "mutation", "operators.setDisabled", { operatorId: admin.id, disabled: true })).appCode).toBe(
      "FORBIDDEN",
    );
  });

  it("an instance admin removes an operator: session and token stop at once, memberships go, the e-mail is free, the audit trail keeps the id", async () => {
    const admin = await newOperator(true);
    const op = await newOperator();
    const { projectId } = await makeProject();
    await prisma().projectMember.create({ data: { projectId, operatorId: op.id, role: "ADMIN" } });
    const adminCookie = (await signIn(admin.email)) ?? "";
    const cookie = (await signIn(op.email)) ?? "";
    const { token } = await createOperatorToken({ operator: op, name: "t", role: "OWNER", projectIds: null, instanceAdmin: false });
    expect((await call({ cookie }, "mutation", "operators.remove", { operatorId: admin.id })).appCode).toBe("FORBIDDEN");
    expect((await call({ cookie: adminCookie }, "mutation", "operators.remove", { operatorId: op.id })).status).toBe(200);
    expect((await call({ cookie }, "query", "projects.list")).status).toBe(401);
    expect((await call({ token }, "query", "projects.list")).appCode).toBe("INVALID_TOKEN");
    expect(await signIn(op.email)).toBeNull();
    expect(await prisma().projectMember.count({ where: { operatorId: op.id } })).toBe(0);
    const listed = (await call({ cookie: adminCookie }, "query", "operators.list")).data as Array<{ id: string }>;
    expect(listed.some((o) => o.id === op.id)).toBe(false);
    const audit = await prisma().auditEntry.findFirstOrThrow({ where: { action: "operator.remove", target: op.id } });
    expect([audit.operatorId, audit.after]).toEqual([admin.id, { email: op.email, name: op.name }]);
    expect((await call({ cookie: adminCookie }, "mutation", "operators.remove", { operatorId: op.id })).appCode).toBe("NOT_FOUND");
    const again = await upsertOperator({ email: op.email, name: "back", password: PASSWORD });
    expect(again.id).not.toBe(op.id);
  });

  it("removing a project's only owner is refused (IN_USE, the project named) and changes nothing", async () => {
    const admin = await newOperator(true);
    const op = await newOperator();
    const { projectId } = await makeProject({ name: "Sole-owned" });
    await prisma().projectMember.create({ data: { projectId, operatorId: op.id, role: "OWNER" } });
    const adminCookie = (await signIn(admin.email)) ?? "";
    const refused = await call({ cookie: adminCookie }, "mutation", "operators.remove", { operatorId: op.id });
    expect(refused.appCode).toBe("IN_USE");
    expect(refused.message).toContain("Sole-owned");
    expect(await prisma().projectMember.count({ where: { operatorId: op.id } })).toBe(1);
    expect(await signIn(op.email)).not.toBeNull();
  });
});
