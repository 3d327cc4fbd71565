import { randomBytes } from "node:crypto";
import { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { AppError } from "@/server/errors";
import type { SessionOperator } from "@/server/identity/operator";
import { createOperatorToken, operatorForToken } from "@/server/identity/operator-tokens";
import { upsertOperator } from "@/server/services/operators";
import type { Access } from "@/server/trpc/init";
import { appRouter } from "@/server/trpc/router";
import { makeProject } from "../support/fixtures";

/**
 * The role matrix, generated from the router: every procedure, called as every kind of caller,
 * must be let through or refused exactly as the access its builder declares (server/trpc/init.ts
 * `Access`). The call carries only a project id, so a caller who gets past the checks meets the
 * input schema (or a harmless read) — never a change to anything that matters. A new procedure
 * is in the matrix the moment it is in the router; a new procedure anyone may call without
 * signing in must also be added to PUBLIC_PROCEDURES, on purpose.
 */
type Actor = "signedOut" | "stranger" | "viewer" | "admin" | "owner" | "instanceAdmin" | "scopedViewerToken" | "instanceAdminToken";
type Outcome = "pass" | "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND";
const ACTORS: Actor[] = ["signedOut", "stranger", "viewer", "admin", "owner", "instanceAdmin", "scopedViewerToken", "instanceAdminToken"];
const RANK = { VIEWER: 0, ADMIN: 1, OWNER: 2 } as const;

/** The only procedures callers who have not signed in may reach: an invite link's details and accepting it (the link's token is the credential). */
const PUBLIC_PROCEDURES = ["members.accept", "members.invite"];
const ACCESS_KINDS: Access[] = [
  "public",
  "operator",
  "session",
  "unscoped",
  "instanceAdmin",
  "project:VIEWER",
  "project:ADMIN",
  "project:OWNER",
];

/** An instance admin's token has the owner role on all projects; the scoped viewer token, the viewer role on one project. */
const TOKENS: Actor[] = ["scopedViewerToken", "instanceAdminToken"];
const INSTANCE_ADMINS: Actor[] = ["instanceAdmin", "instanceAdminToken"];

function expected(access: Access, actor: Actor): Outcome {
  if (access === "public") return "pass";
  if (actor === "signedOut") return "UNAUTHORIZED";
  switch (access) {
    case "operator":
      return "pass";
    case "session":
      return TOKENS.includes(actor) ? "FORBIDDEN" : "pass";
    case "unscoped":
      return actor === "scopedViewerToken" ? "FORBIDDEN" : "pass";
    case "instanceAdmin":
      return INSTANCE_ADMINS.includes(actor) ? "pass" : "FORBIDDEN";
    default: {
      const minimum = access.slice("project:".length) as keyof typeof RANK;
      if (actor === "stranger") return "NOT_FOUND";
      if (actor === "owner" || INSTANCE_ADMINS.includes(actor)) return "pass";
      const role = actor === "admin" ? "ADMIN" : "VIEWER"; // the scoped token is capped at viewer
      return RANK[role] >= RANK[minimum] ? "pass" : "FORBIDDEN";
    }
  }
}

function outcomeOf(error: unknown): Outcome {
  if (!(error instanceof TRPCError)) throw error;
  const app = error.cause instanceof AppError ? error.cause : null;
  if (app?.code === "MISSING_TOKEN") return "UNAUTHORIZED";
  if (app?.code === "FORBIDDEN") return "FORBIDDEN";
  if (app?.code === "NOT_FOUND" && app.message === "Project not found.") return "NOT_FOUND";
  return "pass"; // past the checks: the input schema or the service answered
}

const procedures = Object.entries(
  appRouter._def.procedures as unknown as Record<string, { _def: { meta?: { access?: Access }; type: string } }>,
);

let projectId = "";
const callers = new Map<Actor, SessionOperator | null>();

beforeAll(async () => {
  projectId = (await makeProject()).projectId;
  const op = async (role: "VIEWER" | "ADMIN" | "OWNER" | null, isInstanceAdmin = false): Promise<SessionOperator> => {
    const email = `matrix-${randomBytes(4).toString("hex")}@studio.test`;
    const created = await upsertOperator({ email, name: email, password: "a long operator passphrase 9", isInstanceAdmin });
    if (role) await prisma().projectMember.create({ data: { projectId, operatorId: created.id, role } });
    return { ...created, isInstanceAdmin };
  };
  const tokenOwner = await op("OWNER");
  const token = await createOperatorToken({
    operator: tokenOwner,
    name: "matrix",
    role: "VIEWER",
    projectIds: [projectId],
    instanceAdmin: false,
  });
  callers.set("signedOut", null);
  callers.set("stranger", await op(null));
  callers.set("viewer", await op("VIEWER"));
  callers.set("admin", await op("ADMIN"));
  callers.set("owner", await op("OWNER"));
  callers.set("instanceAdmin", await op(null, true));
  callers.set("scopedViewerToken", { ...tokenOwner, token: { id: token.id, role: "VIEWER", projectIds: [projectId] } });
  // Resolved as the tRPC route resolves a presented token (server/identity/operator-tokens.ts).
  const admin = await op(null, true);
  const adminToken = await createOperatorToken({
    operator: admin,
    name: "matrix-admin",
    role: "OWNER",
    projectIds: null,
    instanceAdmin: true,
  });
  callers.set("instanceAdminToken", await operatorForToken(adminToken.token));
});

describe("the role matrix", () => {
  it("every procedure declares one of the known access kinds (built from the builders in server/trpc/init.ts)", () => {
    expect(procedures.length).toBeGreaterThan(50);
    const undeclared = procedures.filter(([, p]) => !ACCESS_KINDS.includes(p._def.meta?.access as Access)).map(([path]) => path);
    expect(undeclared).toEqual([]);
  });

  it("the procedures anyone may call without signing in are exactly the allow-list", () => {
    const open = procedures.filter(([, p]) => p._def.meta?.access === "public").map(([path]) => path);
    expect(open.sort()).toEqual(PUBLIC_PROCEDURES);
  });

  it("the instance admin's token resolves as an instance admin with the owner role on all projects", () => {
    expect(callers.get("instanceAdminToken")).toMatchObject({ isInstanceAdmin: true, token: { role: "OWNER", projectIds: null } });
  });

  it("no project procedure lets a viewer change anything: every project mutation needs admin or owner", () => {
    const viewerMutations = procedures.filter(([, p]) => p._def.type === "mutation" && p._def.meta?.access === "project:VIEWER");
    expect(viewerMutations.map(([path]) => path)).toEqual([]);
  });

  it.each(procedures.map(([path]) => path))("%s answers every kind of caller as its access says", async (path) => {
    const procedure = procedures.find(([p]) => p === path)?.[1];
    const access = procedure?._def.meta?.access as Access;
    const seen: Record<string, Outcome> = {};
    const want: Record<string, Outcome> = {};
    for (const actor of ACTORS) {
      const caller = appRouter.createCaller({ operator: callers.get(actor) ?? null, requestId: `matrix-${actor}` });
      const fn = path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], caller) as (
        i: unknown,
      ) => Promise<unknown>;
      seen[actor] = await fn({ projectId }).then(
        () => "pass" as const,
        (error: unknown) => outcomeOf(error),
      );
      want[actor] = expected(access, actor);
    }
    expect(seen).toEqual(want);
  });
});
