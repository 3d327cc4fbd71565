import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { createOperatorToken } from "@/server/identity/operator-tokens";
import { createCurrency, createItem, createPurchase, updateItem } from "@/server/services/economy/definitions";
import { upsertIdentityProvider } from "@/server/services/identity-providers";
import { createLeaderboard } from "@/server/services/leaderboards/definitions";
import { api, baseUrl } from "../support/api";
import { cli } from "../support/cli";
import { anonymousPlayer, makeProject, type TestProject } from "../support/fixtures";
import { newOperatorWith } from "../support/operators";

/**
 * Configuration as code over HTTP: export, dry run, apply through /api/trpc with operator access
 * tokens (Bearer gbo_…), the token's scope and role, and the `npm run admin` CLI end to end.
 */
type Doc = {
  $schema?: string;
  version: number;
  leaderboards: Array<Record<string, unknown> & { id: string }>;
  currencies: Array<Record<string, unknown> & { id: string }>;
  items: Array<Record<string, unknown> & { id: string }>;
  purchases: Array<Record<string, unknown> & { id: string }>;
  identityProviders: Array<Record<string, unknown> & { id: string }>;
};
type Refusal = { kind: string; id: string; action: string; code: string; message: string };
type Warning = { kind: string; id: string; field: string; max: number; players: number; message: string };
type KindDiff = {
  created: Array<{ id: string }>;
  changed: Array<{ id: string; fields: Array<{ field: string }> }>;
  deleted: Array<{ id: string }>;
};
type Plan = { diff: Record<string, KindDiff>; refusals: Refusal[]; warnings: Warning[]; changes: number; diffHash: string };
type TrpcError = { message: string; data: { code: string; appCode: string; details: Record<string, unknown> } };

async function trpc<T>(
  token: string,
  kind: "query" | "mutation",
  procedure: string,
  input?: unknown,
): Promise<{ data?: T; error?: TrpcError }> {
  const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
  const url = `${baseUrl()}/api/trpc/${procedure}`;
  const res =
    kind === "query"
      ? await fetch(input === undefined ? url : `${url}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers })
      : await fetch(url, { method: "POST", headers, body: JSON.stringify(input ?? {}) });
  const body = (await res.json()) as { result?: { data: T }; error?: TrpcError };
  return body.error ? { error: body.error } : { data: body.result?.data as T };
}
const ok = async <T>(call: Promise<{ data?: T; error?: TrpcError }>): Promise<T> => {
  const { data, error } = await call;
  if (error) throw new Error(`refused: ${error.data.appCode} ${error.message}`);
  return data as T;
};
const refused = async (call: Promise<{ data?: unknown; error?: TrpcError }>) => {
  const { error } = await call;
  if (!error) throw new Error("the call was not refused");
  return { code: error.data.code, appCode: error.data.appCode };
};

let source: TestProject;
let target: TestProject;
let owner: Awaited<ReturnType<typeof newOperatorWith>>;
let ownerToken: { id: string; token: string };

beforeAll(async () => {
  source = await makeProject();
  target = await makeProject();
  const projectId = source.projectId;
  await createCurrency({ projectId, input: { id: "coins", name: "Coins", initialBalance: 100, maxBalance: 1_000_000 } });
  await createCurrency({ projectId, input: { id: "gems", name: "Gems", initialBalance: 0, clientWritable: false } });
  await createItem({ projectId, input: { id: "potion", name: "Potion" } });
  await createItem({ projectId, input: { id: "sword", name: "Sword", maxStack: 1 } });
  await createPurchase({
    projectId,
    input: {
      id: "buy-potion",
      name: "Buy a potion",
      costs: [{ currencyId: "coins", amount: 10 }],
      rewards: [{ itemId: "potion", quantity: 1 }],
    },
  });
  await createLeaderboard({
    projectId,
    input: { id: "high-scores", name: "High scores", sortOrder: "desc", operator: "best", minScore: 0 },
  });
  await createLeaderboard({
    projectId,
    input: {
      id: "speedrun",
      name: "Speedrun",
      sortOrder: "asc",
      operator: "best",
      minScore: 1,
      resetSchedule: "daily",
      clientWritable: false,
    },
  });
  await upsertIdentityProvider({
    projectId,
    provider: { id: "studio", issuer: "https://id.studio.test", jwksUrl: "https://203.0.113.10/.well-known/jwks.json", audience: "game" },
    allowPrivateNetwork: false,
  });
  owner = await newOperatorWith([
    [source.projectId, "OWNER"],
    [target.projectId, "OWNER"],
  ]);
  // The CLI test creates a project with this operator's token: an instance admin allowed them.
  await prisma().operator.update({ where: { id: owner.id }, data: { canCreateProjects: true } });
  ownerToken = await createOperatorToken({ operator: owner, name: "ci", role: "ADMIN", projectIds: null, instanceAdmin: false });
});

const exportOf = (token: string, projectId: string) => ok<Doc>(trpc(token, "query", "config.export", { projectId }));
const withoutSchema = ({ $schema: _s, ...doc }: Doc) => doc;

describe("export, dry run and apply into another project", () => {
  it("the served schema is the committed one, and an export validates against it", async () => {
    const served = await fetch(`${baseUrl()}/api/config-schema.json`);
    expect(served.status).toBe(200);
    const schema = await served.json();
    expect(schema).toEqual(JSON.parse(readFileSync("server/services/config/config-schema.json", "utf8")));
    const doc = await exportOf(ownerToken.token, source.projectId);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    expect(doc.$schema).toMatch(/\/api\/config-schema\.json$/);
    expect(doc.currencies.map((c) => c.id)).toEqual(["coins", "gems"]);
    expect(doc.purchases[0]).toEqual({
      id: "buy-potion",
      name: "Buy a potion",
      costs: [{ currencyId: "coins", amount: 10 }],
      rewards: [{ itemId: "potion", quantity: 1 }],
    });
    expect(JSON.stringify(doc)).not.toContain(source.projectId);
  });

  it("a dry run lists creates and changes nothing; apply creates everything in one go; the game API serves it", async () => {
    const doc = await exportOf(ownerToken.token, source.projectId);
    const plan = await ok<Plan>(trpc(ownerToken.token, "mutation", "config.dryRun", { projectId: target.projectId, document: doc }));
    expect(plan.refusals).toEqual([]);
    expect(plan.diff.currencies?.created.map((c) => c.id)).toEqual(["coins", "gems"]);
    expect(plan.diff.purchases?.created.map((c) => c.id)).toEqual(["buy-potion"]);
    expect(plan.diff.leaderboards?.created.map((c) => c.id)).toEqual(["high-scores", "speedrun"]);
    expect(plan.diff.identityProviders?.created.map((c) => c.id)).toEqual(["studio"]);
    expect(plan.changes).toBe(8);
    expect(await prisma().currency.count({ where: { projectId: target.projectId } })).toBe(0);

    const applied = await ok<Plan>(
      trpc(ownerToken.token, "mutation", "config.import", { projectId: target.projectId, document: doc, expectDiffHash: plan.diffHash }),
    );
    expect(applied.diffHash).toBe(plan.diffHash);
    expect(withoutSchema(await exportOf(ownerToken.token, target.projectId))).toEqual(withoutSchema(doc));
    const again = await ok<Plan>(trpc(ownerToken.token, "mutation", "config.dryRun", { projectId: target.projectId, document: doc }));
    expect(again.changes).toBe(0);

    const board = await api<{ name: string; sortOrder: string }>("GET", "/api/v1/leaderboards/speedrun", { key: target.clientKey });
    expect(board.status).toBe(200);
    expect(board.body).toMatchObject({ name: "Speedrun", sortOrder: "asc" });
    const player = await anonymousPlayer(target.clientKey);
    const bought = await api<{ balances: Array<{ id: string; balance: number }> }>("POST", "/api/v1/economy/purchase", {
      key: target.clientKey,
      token: player.accessToken,
      body: { purchaseId: "buy-potion" },
    });
    expect(bought.status).toBe(200);
    expect(bought.body.balances).toContainEqual({ id: "coins", balance: 90 });

    const audit = await prisma().auditEntry.findMany({ where: { projectId: target.projectId, action: "config.import" } });
    expect(audit.map((a) => [a.operatorId, a.tokenId])).toEqual([[owner.id, ownerToken.id]]);
    // audit.list names the token (the Audit page's "via token"), never its secret or hash.
    const listed = await ok<{ entries: Array<Record<string, unknown>> }>(
      trpc(ownerToken.token, "query", "audit.list", { projectId: target.projectId, action: "config.", limit: 10 }),
    );
    // The summary and one entry per definition the import changed, each naming the token.
    expect(listed.entries.length).toBeGreaterThan(1);
    expect(new Set(listed.entries.map((e) => `${e.tokenId} ${e.tokenName}`))).toEqual(new Set([`${ownerToken.id} ci`]));
    expect(ownerToken.token.startsWith(String(listed.entries[0]?.tokenPrefix))).toBe(true);
    expect(JSON.stringify(listed)).not.toContain(ownerToken.token);
  });

  it("refusals (a held currency deleted, a fixed field changed, an unknown currency) show in the dry run and apply changes nothing", async () => {
    const before = await exportOf(ownerToken.token, target.projectId);
    const doc: Doc = structuredClone(before);
    doc.currencies = doc.currencies.filter((c) => c.id !== "coins"); // a player of the previous test holds 90
    doc.purchases = [
      { id: "buy-gem", name: "Buy a gem", costs: [{ currencyId: "diamonds", amount: 1 }], rewards: [{ currencyId: "gems", amount: 1 }] },
    ];
    doc.leaderboards = doc.leaderboards.map((b) => (b.id === "high-scores" ? { ...b, sortOrder: "asc" } : b));
    doc.items = doc.items.map((i) => (i.id === "sword" ? { ...i, name: "Great sword" } : i));
    // Not http(s): refused even where private networks are allowed (the suite allows them for its key server).
    doc.identityProviders.push({ id: "local", issuer: "x", jwksUrl: "ftp://127.0.0.1/jwks", audience: "game", algorithms: ["RS256"] });
    const plan = await ok<Plan>(trpc(ownerToken.token, "mutation", "config.dryRun", { projectId: target.projectId, document: doc }));
    expect(plan.refusals.map((r) => [r.kind, r.id, r.action, r.code])).toEqual([
      ["currencies", "coins", "delete", "IN_USE"],
      ["purchases", "buy-gem", "create", "VALIDATION_ERROR"],
      ["leaderboards", "high-scores", "change", "VALIDATION_ERROR"],
      ["identityProviders", "local", "create", "VALIDATION_ERROR"],
    ]);
    expect(plan.diff.items?.changed).toEqual([{ id: "sword", fields: [{ field: "name", before: "Sword", after: "Great sword" }] }]);
    expect(await refused(trpc(ownerToken.token, "mutation", "config.import", { projectId: target.projectId, document: doc }))).toEqual({
      code: "CONFLICT",
      appCode: "IN_USE",
    });
    expect(await exportOf(ownerToken.token, target.projectId)).toEqual(before);
  });

  it("a purchase whose rewards are exactly its costs is refused in the dry run (the economy's own rule); a free one is not", async () => {
    const doc: Doc = structuredClone(await exportOf(ownerToken.token, target.projectId));
    const coins = [{ currencyId: "coins", amount: 1 }];
    doc.purchases = [
      ...doc.purchases,
      { id: "loop", name: "Loop", costs: coins, rewards: coins },
      { id: "daily-gift", name: "Daily gift", costs: [], rewards: [{ itemId: "potion", quantity: 1 }] },
    ];
    const plan = await ok<Plan>(trpc(ownerToken.token, "mutation", "config.dryRun", { projectId: target.projectId, document: doc }));
    expect(plan.refusals).toEqual([
      {
        kind: "purchases",
        id: "loop",
        action: "create",
        code: "VALIDATION_ERROR",
        message: "The rewards are the same as the costs: buying it would change nothing.",
      },
    ]);
  });

  it("a max lowered below what players hold is a warning with their count in the dry run, not a refusal", async () => {
    const doc: Doc = structuredClone(await exportOf(ownerToken.token, target.projectId));
    doc.currencies = doc.currencies.map((c) => (c.id === "coins" ? { ...c, initialBalance: 0, maxBalance: 50 } : c));
    const plan = await ok<Plan>(trpc(ownerToken.token, "mutation", "config.dryRun", { projectId: target.projectId, document: doc }));
    const above = await prisma().wallet.count({ where: { projectId: target.projectId, currencyId: "coins", balance: { gt: 50 } } });
    expect(above).toBeGreaterThan(0); // a player of an earlier test holds 90
    expect(plan.refusals).toEqual([]);
    expect(plan.warnings).toEqual([
      {
        kind: "currencies",
        id: "coins",
        field: "maxBalance",
        max: 50,
        players: above,
        message: expect.stringContaining("new maxBalance of 50"),
      },
    ]);
  });

  it("apply of a reviewed diff that went stale is refused (VERSION_CONFLICT) and changes nothing", async () => {
    const doc = await exportOf(ownerToken.token, target.projectId);
    doc.items = doc.items.map((i) => (i.id === "potion" ? { ...i, maxStack: 99 } : i));
    const plan = await ok<Plan>(trpc(ownerToken.token, "mutation", "config.dryRun", { projectId: target.projectId, document: doc }));
    await updateItem({ projectId: target.projectId, id: "sword", input: { name: "Renamed meanwhile" } });
    const stale = { projectId: target.projectId, document: doc, expectDiffHash: plan.diffHash };
    expect(await refused(trpc(ownerToken.token, "mutation", "config.import", stale))).toEqual({
      code: "PRECONDITION_FAILED",
      appCode: "VERSION_CONFLICT",
    });
    expect((await prisma().item.findFirstOrThrow({ where: { projectId: target.projectId, id: "potion" } })).maxStack).toBeNull();
    const fresh = await ok<Plan>(trpc(ownerToken.token, "mutation", "config.import", { projectId: target.projectId, document: doc }));
    expect(fresh.diff.items?.changed.map((c) => c.id)).toEqual(["potion", "sword"]);
  });
});

describe("report reasons", () => {
  type WithReasons = Doc & { reportReasons?: string[] };
  let project: TestProject;
  const reasonsNow = async () =>
    (await prisma().moderationSettings.findUnique({ where: { projectId: project.projectId } }))?.reportReasons ?? null;
  const report = async (reason: string) => {
    const [reporter, reported] = [await anonymousPlayer(project.clientKey), await anonymousPlayer(project.clientKey)];
    return api<{ error?: { code: string } }>("POST", `/api/v1/players/${reported.playerId}/report`, {
      key: project.clientKey,
      token: reporter.accessToken,
      body: { reason },
    });
  };

  beforeAll(async () => {
    project = await makeProject();
    await prisma().projectMember.create({ data: { projectId: project.projectId, operatorId: owner.id, role: "OWNER" } });
  });

  it("are exported in order (the defaults while the project never set its own), and the export imports as no change", async () => {
    const doc = (await exportOf(ownerToken.token, project.projectId)) as WithReasons;
    expect(doc.reportReasons).toEqual(["cheating", "abuse", "offensive_name", "spam", "other"]);
    const plan = await ok<Plan>(trpc(ownerToken.token, "mutation", "config.dryRun", { projectId: project.projectId, document: doc }));
    expect(plan.changes).toBe(0);
  });

  it("a dry run shows added, removed and moved reasons and changes nothing; apply sets the list the game's reports accept, audited per reason", async () => {
    const doc = (await exportOf(ownerToken.token, project.projectId)) as WithReasons;
    doc.reportReasons = ["hacking", "cheating", "abuse", "offensive_name", "other"];
    const plan = await ok<Plan>(trpc(ownerToken.token, "mutation", "config.dryRun", { projectId: project.projectId, document: doc }));
    expect(plan.refusals).toEqual([]);
    expect(plan.diff.reportReasons).toEqual({
      created: [{ id: "hacking", after: { id: "hacking", position: 0 } }],
      changed: [
        { id: "abuse", fields: [{ field: "position", before: 1, after: 2 }] },
        { id: "cheating", fields: [{ field: "position", before: 0, after: 1 }] },
        { id: "offensive_name", fields: [{ field: "position", before: 2, after: 3 }] },
      ],
      deleted: [{ id: "spam", before: { id: "spam", position: 3 } }],
    });
    expect(await reasonsNow()).toBeNull();
    expect((await report("hacking")).body.error?.code).toBe("VALIDATION_ERROR");

    const applied = await ok<Plan>(
      trpc(ownerToken.token, "mutation", "config.import", { projectId: project.projectId, document: doc, expectDiffHash: plan.diffHash }),
    );
    expect(applied.changes).toBe(5);
    expect(await reasonsNow()).toEqual(doc.reportReasons);
    expect(((await exportOf(ownerToken.token, project.projectId)) as WithReasons).reportReasons).toEqual(doc.reportReasons);
    expect((await report("hacking")).status).toBe(202);
    const spam = await report("spam");
    expect([spam.status, spam.body.error?.code]).toEqual([400, "VALIDATION_ERROR"]);
    const audit = await prisma().auditEntry.findMany({
      where: { projectId: project.projectId, action: { startsWith: "config.import.report-reason." } },
      orderBy: { target: "asc" },
    });
    expect(audit.map((a) => [a.action, a.target])).toEqual([
      ["config.import.report-reason.change", "report-reason:abuse"],
      ["config.import.report-reason.change", "report-reason:cheating"],
      ["config.import.report-reason.create", "report-reason:hacking"],
      ["config.import.report-reason.change", "report-reason:offensive_name"],
      ["config.import.report-reason.delete", "report-reason:spam"],
    ]);
  });

  it("a document without the section leaves the reasons as they are", async () => {
    const { reportReasons: _r, ...doc } = (await exportOf(ownerToken.token, project.projectId)) as WithReasons;
    const before = await reasonsNow();
    const plan = await ok<Plan>(trpc(ownerToken.token, "mutation", "config.import", { projectId: project.projectId, document: doc }));
    expect(plan.diff.reportReasons).toEqual({ created: [], changed: [], deleted: [] });
    expect(await reasonsNow()).toEqual(before);
  });

  it("an empty list, a reason listed twice, a malformed one or more than 20 are refused (VALIDATION_ERROR) and change nothing", async () => {
    const doc = (await exportOf(ownerToken.token, project.projectId)) as WithReasons;
    const before = await reasonsNow();
    for (const reportReasons of [[], ["cheating", "cheating"], ["Cheating!"], Array.from({ length: 21 }, (_, i) => `reason-${i}`)]) {
      for (const procedure of ["config.dryRun", "config.import"])
        expect(
          await refused(
            trpc(ownerToken.token, "mutation", procedure, { projectId: project.projectId, document: { ...doc, reportReasons } }),
          ),
          `${procedure} ${JSON.stringify(reportReasons)}`,
        ).toEqual({ code: "BAD_REQUEST", appCode: "VALIDATION_ERROR" });
    }
    expect(await reasonsNow()).toEqual(before);
  });
});

describe("concurrent imports", () => {
  it("two applies of the same document at once: one creates everything, the other recomputes and finds nothing to do", async () => {
    const fresh = await makeProject();
    await prisma().projectMember.create({ data: { projectId: fresh.projectId, operatorId: owner.id, role: "OWNER" } });
    const doc = await exportOf(ownerToken.token, source.projectId);
    const both = await Promise.all(
      [1, 2].map(() => ok<Plan>(trpc(ownerToken.token, "mutation", "config.import", { projectId: fresh.projectId, document: doc }))),
    );
    expect(both.map((p) => p.changes).sort()).toEqual([0, 8]);
    expect(withoutSchema(await exportOf(ownerToken.token, fresh.projectId))).toEqual(withoutSchema(doc));
    expect(await prisma().auditEntry.count({ where: { projectId: fresh.projectId, action: "config.import" } })).toBe(1);
  });
});

describe("limited-time boards in the document", () => {
  it("a window imports (any offset; exported in UTC) and round-trips unchanged; an end before the start is refused in the dry run", async () => {
    const fresh = await makeProject();
    await prisma().projectMember.create({ data: { projectId: fresh.projectId, operatorId: owner.id, role: "OWNER" } });
    const base = withoutSchema(await exportOf(ownerToken.token, fresh.projectId));
    const cup = {
      id: "weekend-cup",
      name: "Weekend cup",
      sortOrder: "desc",
      operator: "best",
      minScore: null,
      maxScore: null,
      resetSchedule: null,
      clientWritable: true,
      startsAt: "2030-05-04T12:00:00+02:00",
      endsAt: "2030-05-06T10:00:00Z",
    };
    const backwards = { ...cup, id: "backwards", startsAt: "2030-05-06T10:00:00Z", endsAt: "2030-05-04T10:00:00Z" };
    const refusedPlan = await ok<Plan>(
      trpc(ownerToken.token, "mutation", "config.dryRun", { projectId: fresh.projectId, document: { ...base, leaderboards: [backwards] } }),
    );
    expect(refusedPlan.refusals.map((r) => [r.kind, r.id, r.code, r.message])).toEqual([
      ["leaderboards", "backwards", "VALIDATION_ERROR", "The end (endsAt) must be after the start (startsAt)."],
    ]);

    const doc = { ...base, leaderboards: [cup] };
    await ok<Plan>(trpc(ownerToken.token, "mutation", "config.import", { projectId: fresh.projectId, document: doc }));
    const exported = await exportOf(ownerToken.token, fresh.projectId);
    expect(exported.leaderboards).toEqual([
      { ...cup, startsAt: "2030-05-04T10:00:00.000Z", endsAt: "2030-05-06T10:00:00.000Z", scoreEvents: false, rewards: [] },
    ]);
    const again = await ok<Plan>(trpc(ownerToken.token, "mutation", "config.dryRun", { projectId: fresh.projectId, document: exported }));
    expect(again.changes).toBe(0);
    const board = await api<{ startsAt: string; endsAt: string }>("GET", "/api/v1/leaderboards/weekend-cup", { key: fresh.clientKey });
    expect(board.body).toMatchObject({ startsAt: "2030-05-04T10:00:00.000Z", endsAt: "2030-05-06T10:00:00.000Z" });
  });
});

describe("operator access tokens", () => {
  it("a viewer member cannot import even with an owner-role token (the lower role wins), but may export", async () => {
    const viewer = await newOperatorWith([[target.projectId, "VIEWER"]]);
    const { token } = await createOperatorToken({ operator: viewer, name: "v", role: "OWNER", projectIds: null, instanceAdmin: false });
    const doc = await exportOf(token, target.projectId);
    expect(await refused(trpc(token, "mutation", "config.dryRun", { projectId: target.projectId, document: doc }))).toEqual({
      code: "FORBIDDEN",
      appCode: "FORBIDDEN",
    });
  });

  it("a viewer-role token of an owner reads but cannot change anything", async () => {
    const { token } = await createOperatorToken({ operator: owner, name: "ro", role: "VIEWER", projectIds: null, instanceAdmin: false });
    const doc = await exportOf(token, target.projectId);
    expect((await refused(trpc(token, "mutation", "config.import", { projectId: target.projectId, document: doc }))).code).toBe(
      "FORBIDDEN",
    );
    const key = { projectId: target.projectId, kind: "SERVER", name: "forged" };
    expect((await refused(trpc(token, "mutation", "projects.createKey", key))).code).toBe("FORBIDDEN");
    expect((await refused(trpc(token, "mutation", "projects.create", { name: "forged" }))).code).toBe("FORBIDDEN");
    expect(await prisma().apiKey.count({ where: { projectId: target.projectId, name: "forged" } })).toBe(0);
    const projects = await ok<Array<{ id: string; role: string }>>(trpc(token, "query", "projects.list"));
    expect(projects.find((p) => p.id === target.projectId)?.role).toBe("VIEWER");
  });

  it("a token for project A does not see project B (NOT_FOUND, not listed)", async () => {
    const { token } = await createOperatorToken({
      operator: owner,
      name: "a-only",
      role: "OWNER",
      projectIds: [source.projectId],
      instanceAdmin: false,
    });
    await exportOf(token, source.projectId);
    expect(await refused(trpc(token, "query", "config.export", { projectId: target.projectId }))).toEqual({
      code: "NOT_FOUND",
      appCode: "NOT_FOUND",
    });
    expect((await ok<Array<{ id: string }>>(trpc(token, "query", "projects.list"))).map((p) => p.id)).toEqual([source.projectId]);
  });

  it("a revoked or unknown token is refused (INVALID_TOKEN); a token cannot mint tokens; only the hash is stored", async () => {
    const created = await createOperatorToken({
      operator: owner,
      name: "short-lived",
      role: "ADMIN",
      projectIds: null,
      instanceAdmin: false,
    });
    expect(created.token.startsWith("gbo_")).toBe(true);
    expect(await prisma().operatorToken.count({ where: { tokenHash: Buffer.from(created.token) } })).toBe(0);
    const mint = { name: "child", role: "ADMIN", projectIds: null };
    expect((await refused(trpc(created.token, "mutation", "tokens.create", mint))).code).toBe("FORBIDDEN");
    await ok(trpc(created.token, "mutation", "tokens.revoke", { tokenId: created.id }));
    expect(await refused(trpc(created.token, "query", "projects.list"))).toEqual({ code: "UNAUTHORIZED", appCode: "INVALID_TOKEN" });
    expect(await refused(trpc(`gbo_${randomBytes(30).toString("base64url")}`, "query", "projects.list"))).toEqual({
      code: "UNAUTHORIZED",
      appCode: "INVALID_TOKEN",
    });
    expect((await prisma().operatorToken.findUniqueOrThrow({ where: { id: created.id } })).revokedAt).not.toBeNull();
  });

  it("changes made with a token are audited with its id: economy, leaderboards and providers", async () => {
    const projectId = target.projectId;
    const stamp = randomBytes(3).toString("hex");
    await ok(trpc(ownerToken.token, "mutation", "economy.createCurrency", { projectId, currency: { id: `t${stamp}`, name: "T" } }));
    const board = { id: `b${stamp}`, name: "B", sortOrder: "desc", operator: "best" };
    await ok(trpc(ownerToken.token, "mutation", "leaderboards.create", { projectId, board }));
    const provider = { id: `p${stamp}`, issuer: "https://id.studio.test", jwksUrl: "https://203.0.113.10/jwks", audience: "game" };
    await ok(trpc(ownerToken.token, "mutation", "providers.save", { projectId, provider }));
    const rows = await prisma().auditEntry.findMany({
      where: { projectId, target: { in: [`t${stamp}`, `b${stamp}`, `p${stamp}`] } },
      orderBy: { id: "asc" },
    });
    expect(rows.map((r) => [r.action, r.tokenId])).toEqual([
      ["economy.currency.create", ownerToken.id],
      ["leaderboard.create", ownerToken.id],
      ["provider.save", ownerToken.id],
    ]);
  });

  it("a token lists and revokes only itself: a scoped viewer token cannot see or revoke its operator's other tokens", async () => {
    const viewerToken = await createOperatorToken({
      operator: owner,
      name: "scoped-viewer",
      role: "VIEWER",
      projectIds: [source.projectId],
      instanceAdmin: false,
    });
    const listed = await ok<Array<{ id: string }>>(trpc(viewerToken.token, "query", "tokens.list"));
    expect(listed.map((t) => t.id)).toEqual([viewerToken.id]);
    expect(await refused(trpc(viewerToken.token, "mutation", "tokens.revoke", { tokenId: ownerToken.id }))).toEqual({
      code: "NOT_FOUND",
      appCode: "NOT_FOUND",
    });
    expect((await prisma().operatorToken.findUniqueOrThrow({ where: { id: ownerToken.id } })).revokedAt).toBeNull();
    expect(await prisma().auditEntry.count({ where: { action: "token.revoke", target: ownerToken.id } })).toBe(0);
  });
});

describe("npm run admin (server/cli/admin.mjs) against the app", () => {
  it("lists and creates projects, exports, dry-runs and applies an import, creates a key; plan set needs an instance admin", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "gb-admin-"));
    const file = path.join(dir, "config.json");
    const listed = await cli(["projects", "list"], ownerToken.token);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((p) => p.id)).toEqual(expect.arrayContaining([source.projectId]));

    const exported = await cli(["config", "export", "--project", source.projectId, "--out", file], ownerToken.token);
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8")).version).toBe(1);

    const created = await cli(["projects", "create", "--name", `cli-${randomBytes(3).toString("hex")}`], ownerToken.token);
    expect(created.code, created.stderr).toBe(0);
    const projectId = (JSON.parse(created.stdout) as { id: string }).id;

    const dry = await cli(["config", "import", "--project", projectId, "--file", file, "--dry-run"], ownerToken.token);
    expect(dry.code, dry.stderr).toBe(0);
    expect((JSON.parse(dry.stdout) as Plan).changes).toBe(8);
    expect(await prisma().purchase.count({ where: { projectId } })).toBe(0);
    const applied = await cli(["config", "import", "--project", projectId, "--file", file], ownerToken.token);
    expect(applied.code, applied.stderr).toBe(0);
    expect(await prisma().purchase.count({ where: { projectId } })).toBe(1);

    const key = await cli(["keys", "create", "--project", projectId, "--kind", "server", "--name", "ci"], ownerToken.token);
    expect(key.code, key.stderr).toBe(0);
    expect((JSON.parse(key.stdout) as { key: string }).key).toMatch(/^gb_server_/);

    const plan = await cli(["plan", "set", "--project", projectId, "--plan", "pro"], ownerToken.token);
    expect(plan.code).toBe(1);
    expect(plan.stdout).toBe("");
    expect(JSON.parse(plan.stderr)).toMatchObject({ error: { code: "FORBIDDEN", httpStatus: 403 } });

    const admin = await newOperatorWith([], true);
    const adminToken = await createOperatorToken({ operator: admin, name: "ops", role: "OWNER", projectIds: null, instanceAdmin: true });
    const set = await cli(["plan", "set", "--project", projectId, "--plan", "enterprise", "--limit", "5000"], adminToken.token);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ plan: "ENTERPRISE", customRateLimit: 5000 });
  });

  it("errors are JSON on stderr with a non-zero exit: a bad document, a refused token, a missing token", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "gb-admin-"));
    const file = path.join(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ version: 1, leaderboards: [] }));
    const bad = await cli(["config", "import", "--project", source.projectId, "--file", file, "--dry-run"], ownerToken.token);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stderr)).toMatchObject({ error: { code: "VALIDATION_ERROR" } });
    const unknown = await cli(["projects", "list"], "gbo_unknown");
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ error: { code: "INVALID_TOKEN" } });
    const missing = await cli(["projects", "list"], "");
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stderr)).toMatchObject({ error: { code: "USAGE" } });
  });
});
