import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { createOperatorToken } from "@/server/identity/operator-tokens";
import { upsertOperator } from "@/server/services/operators";
import { baseUrl } from "../support/api";
import { makeProject } from "../support/fixtures";
import { operatorSignIn } from "../support/operator-sign-in";

/**
 * Every operator door resolves its caller with `operatorContext` (server/http/operator-context.ts)
 * and applies its one cross-site rule: a request with the session cookie that another site started
 * (`Sec-Fetch-Site: cross-site`, or an `Origin` of another host) is refused; a request with an
 * access token is not subject to it.
 */
const PASSWORD = "a long operator passphrase 9";
let projectId = "";
let projectName = "";
let cookie = "";
let token = "";

beforeAll(async () => {
  const project = await makeProject();
  projectId = project.projectId;
  projectName = (await prisma().project.findUniqueOrThrow({ where: { id: projectId }, select: { name: true } })).name;
  const email = `doors-${randomBytes(4).toString("hex")}@studio.test`;
  const op = await upsertOperator({ email, name: email, password: PASSWORD });
  await prisma().projectMember.create({ data: { projectId, operatorId: op.id, role: "OWNER" } });
  cookie = (await operatorSignIn(baseUrl(), { email, password: PASSWORD })).session ?? "";
  token = (
    await createOperatorToken({
      operator: { ...op, isInstanceAdmin: false },
      name: "doors",
      role: "OWNER",
      projectIds: null,
      instanceAdmin: false,
    })
  ).token;
});

type Door = { name: string; method: "GET" | "POST"; path: () => string; body?: () => string };
const DOORS: Door[] = [
  { name: "a tRPC query", method: "GET", path: () => `/api/trpc/projects.get?input=${encodeURIComponent(JSON.stringify({ projectId }))}` },
  {
    name: "a tRPC mutation",
    method: "POST",
    path: () => "/api/trpc/projects.rename",
    body: () => JSON.stringify({ projectId, name: projectName }),
  },
  { name: "a download", method: "GET", path: () => `/api/dashboard/projects/${projectId}/exports/audit` },
];

const CROSS_SITE: Array<[string, Record<string, string>]> = [
  ["Sec-Fetch-Site: cross-site", { "Sec-Fetch-Site": "cross-site" }],
  ["an Origin of another host", { Origin: "https://evil.example" }],
];

function send(door: Door, headers: Record<string, string>): Promise<Response> {
  return fetch(`${baseUrl()}${door.path()}`, {
    method: door.method,
    redirect: "manual",
    headers: { ...(door.body ? { "Content-Type": "application/json" } : {}), ...headers },
    body: door.body?.(),
  });
}

describe("the cross-site rule on every operator door", () => {
  it.each(DOORS)("$name with the session cookie from this site is let through (200)", async (door) => {
    const res = await send(door, { Cookie: cookie, "Sec-Fetch-Site": "same-origin" });
    expect(res.status).toBe(200);
  });

  it.each(DOORS.flatMap((door) => CROSS_SITE.map(([how, headers]) => ({ ...door, how, headers }))))(
    "$name with the session cookie and $how is refused (403 FORBIDDEN)",
    async (door) => {
      const res = await send(door, { Cookie: cookie, ...door.headers });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: { code: "FORBIDDEN", message: "Cross-site request refused.", details: {} } });
    },
  );

  it.each(DOORS)("$name with an access token is not subject to the cookie rule (200 from another site)", async (door) => {
    const res = await send(door, { Authorization: `Bearer ${token}`, "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" });
    expect(res.status).toBe(200);
  });

  it("the project pages with the session cookie from this site show the project", async () => {
    const res = await fetch(`${baseUrl()}/projects/${projectId}/audit`, { headers: { Cookie: cookie, "Sec-Fetch-Site": "same-origin" } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(projectName);
    expect(html).not.toContain("You followed a link from another site");
  });

  it("the project pages with the session cookie and Sec-Fetch-Site: cross-site show a link to the project instead of the project", async () => {
    const res = await fetch(`${baseUrl()}/projects/${projectId}/audit`, { headers: { Cookie: cookie, "Sec-Fetch-Site": "cross-site" } });
    const html = await res.text();
    expect(html).toContain("You followed a link from another site");
    expect(html).not.toContain(projectName);
  });
});
