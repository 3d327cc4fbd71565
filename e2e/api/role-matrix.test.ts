import { randomBytes } from "node:crypto";
import { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma, transaction } from "@/server/db";
import { AppError } from "@/server/errors";
import type { SessionOperator } from "@/server/identity/operator";
import { createOperatorToken, operatorForToken } from "@/server/identity/operator-tokens";
import { upsertOperator } from "@/server/services/operators";
import type { Access, Meta } from "@/server/trpc/init";
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

/**
 * The procedure's role and the service's role agree. A project procedure declares its minimum
 * role (`projectProcedure("ADMIN")`) and its service declares it again (`authorize` /
 * `runCommand`'s `minimum`): the CLI, the download route and jobs reach the services without the
 * procedure, so the service's check is the one that counts. Each project or instance-admin
 * procedure's resolver — the service call, without the procedure's check — is called as a
 * viewer, an admin, an owner and an instance admin, inside a transaction that is rolled back
 * (the input is only the project id, so a service that lets the caller through meets missing
 * fields, or changes nothing that outlives the call), and must let through or refuse exactly as
 * the procedure's declared access says.
 */
const SERVICE_CALLERS: Actor[] = ["viewer", "admin", "owner", "instanceAdmin"];
const ROLLED_BACK = new Error("rolled back");

type Resolver = (opts: { ctx: unknown; input: unknown; type: string; path: string; signal: undefined }) => Promise<unknown>;

/**
 * Services that read a field of their input before the caller is checked get that field (any
 * value the schema accepts): without it they would throw before reaching the check.
 */
const SERVICE_INPUTS: Record<string, Record<string, unknown>> = {
  "members.add": { email: "agreement@studio.test", role: "VIEWER" },
  "leaderboards.create": { board: { id: "agreement" } },
  "store.setSettings": { input: { store: "apple", settings: { bundleId: "com.example.agreement", environments: "production" } } },
};

/** A refusal for the caller's role (the messages `authorize` and the account rule give), not a business rule's FORBIDDEN. */
const ROLE_REFUSAL = /^(This needs the [a-z]+ role\.|Only instance admins\b.* may do this\.)$/;

function serviceOutcomeOf(error: unknown): Outcome {
  if (!(error instanceof AppError)) return "pass"; // past the checks: a missing field broke the service
  if (error.code === "MISSING_TOKEN") return "UNAUTHORIZED";
  if (error.code === "FORBIDDEN" && ROLE_REFUSAL.test(error.message)) return "FORBIDDEN";
  if (error.code === "NOT_FOUND" && error.message === "Project not found.") return "NOT_FOUND";
  return "pass";
}

async function serviceOutcome(resolver: Resolver, path: string, type: string, actor: Actor): Promise<Outcome> {
  let outcome: Outcome = "pass";
  await transaction(async () => {
    const ctx = { operator: callers.get(actor) ?? null, requestId: `agreement-${actor}` };
    const input = { projectId, ...SERVICE_INPUTS[path] };
    // Called inside then(): a service that throws before returning its promise is answered too.
    outcome = await Promise.resolve()
      .then(() => resolver({ ctx, input, type, path, signal: undefined }))
      .then(
        () => "pass" as const,
        (error: unknown) => serviceOutcomeOf(error),
      );
    throw ROLLED_BACK;
  }).catch((error: unknown) => {
    if (error !== ROLLED_BACK) throw error;
  });
  return outcome;
}

const guarded = procedures.filter(([, p]) => {
  const access = p._def.meta?.access;
  return access === "instanceAdmin" || access?.startsWith("project:");
});

describe("the services agree with the procedures' declared roles", () => {
  it("every project and instance-admin procedure is in the comparison", () => {
    expect(guarded.length).toBeGreaterThan(60);
  });

  it.each(guarded.map(([path]) => path))("%s: its service alone refuses and lets through as the procedure declares", async (path) => {
    const procedure = guarded.find(([p]) => p === path)?.[1] as unknown as { _def: { meta: Meta; type: string; resolver: Resolver } };
    const seen: Record<string, Outcome> = {};
    const want: Record<string, Outcome> = {};
    for (const actor of SERVICE_CALLERS) {
      seen[actor] = await serviceOutcome(procedure._def.resolver, path, procedure._def.type, actor);
      want[actor] = expected(procedure._def.meta.access, actor);
    }
    expect(seen).toEqual(want);
  });
});
