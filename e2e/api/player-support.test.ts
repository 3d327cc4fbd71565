import { randomUUID } from "node:crypto";
import type { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import { pool, prisma } from "@/server/db";
import type { SessionOperator } from "@/server/identity/operator";
import { createCurrency } from "@/server/services/economy/definitions";
import { api } from "../support/api";
import { anonymousPlayer, makeProject, type TestProject } from "../support/fixtures";
import { caller, newOperator } from "../support/operators";

/** Player support on the dashboard: search and filters, bulk ban and grant (audited per player), display names, saves. */
const appCodeOf = async (call: Promise<unknown>) =>
  call.then(
    () => "passed",
    (error: unknown) => ((error as TRPCError).cause as { code?: string } | undefined)?.code ?? "",
  );

let project: TestProject;
let admin: SessionOperator;
const ids: Record<string, string> = {};

beforeAll(async () => {
  project = await makeProject();
  admin = await newOperator("ADMIN", project.projectId);
  const { rows } = await pool().query<{ id: string; display_name: string }>(
    `INSERT INTO players (id, project_id, display_name, email, password_hash, created_at, last_login_at, updated_at, banned_at)
     VALUES ('0190aaaa-0000-7000-8000-000000000001', $1, 'Ada Lovelace', 'ada@support.test', 'x', '2026-01-05', '2026-03-01', now(), NULL),
            ('0190aaaa-0000-7000-8000-000000000002', $1, 'adam', 'adam@support.test', NULL, '2026-01-10', NULL, now(), now()),
            ('0190bbbb-0000-7000-8000-000000000003', $1, 'Grace', NULL, NULL, '2026-02-01', '2026-02-02', now(), NULL),
            ('0190bbbb-0000-7000-8000-000000000004', $1, 'Linus', NULL, NULL, '2026-02-15', NULL, now(), NULL)
     ON CONFLICT DO NOTHING RETURNING id, display_name`,
    [project.projectId],
  );
  for (const r of rows) ids[r.display_name] = r.id;
  await prisma().identity.create({
    data: { projectId: project.projectId, playerId: ids.Grace as string, provider: "steam", subject: "7656" },
  });
});

const search = async (input: Record<string, unknown>) => {
  const page = await caller(admin).players.search({ projectId: project.projectId, sort: "oldest", ...input });
  const { total } = await caller(admin).players.count({ projectId: project.projectId, ...input });
  return { names: page.players.map((p) => p.displayName), total };
};

describe("player search and filters", () => {
  it("matches the start of an e-mail or an id (any case), part of a display name, or a linked identity", async () => {
    expect(await search({ query: "ADA@" })).toEqual({ names: ["Ada Lovelace"], total: 1 });
    expect(await search({ query: "ada" })).toEqual({ names: ["Ada Lovelace", "adam"], total: 2 });
    expect(await search({ query: "0190BBBB" })).toEqual({ names: ["Grace", "Linus"], total: 2 });
    expect(await search({ query: "0190aaaa-0000-7000-8000-000000000002" })).toEqual({ names: ["adam"], total: 1 });
    expect(await search({ query: "love" })).toEqual({ names: ["Ada Lovelace"], total: 1 });
    expect(await search({ query: "7656" })).toEqual({ names: ["Grace"], total: 1 });
    expect(await search({ query: "support.test" })).toEqual({ names: [], total: 0 }); // the middle of an e-mail is not its start
    expect(await search({ query: "%" })).toEqual({ names: [], total: 0 });
  });

  it("filters by ban, e-mail, sign-in, created and last-seen ranges; the total counts every match, not the page", async () => {
    expect(await search({ banned: "banned" })).toEqual({ names: ["adam"], total: 1 });
    expect((await search({ banned: "active" })).total).toBe(3);
    expect((await search({ email: "without" })).names).toEqual(["Grace", "Linus"]);
    expect((await search({ provider: "email" })).names).toEqual(["Ada Lovelace"]);
    expect((await search({ provider: "steam" })).names).toEqual(["Grace"]);
    expect((await search({ provider: "anonymous" })).names).toEqual(["Linus"]);
    expect((await search({ createdFrom: "2026-01-06T00:00:00.000Z", createdTo: "2026-02-15T00:00:00.000Z" })).names).toEqual([
      "adam",
      "Grace",
    ]);
    expect((await search({ lastSeenFrom: "2026-02-01T00:00:00.000Z" })).names).toEqual(["Ada Lovelace", "Grace"]);
    expect((await search({ query: "ada", email: "with", banned: "active" })).names).toEqual(["Ada Lovelace"]);
    const page = await caller(admin).players.search({ projectId: project.projectId, limit: 1 });
    expect([page.players.length, page.hasMore]).toEqual([1, true]);
    expect(await caller(admin).players.count({ projectId: project.projectId })).toEqual({ total: 4 });
  });
});

describe("bulk actions", () => {
  it("a bulk ban bans each selected player as a single ban does (sessions ended), one audit row each with the one reason", async () => {
    const p1 = await anonymousPlayer(project.clientKey);
    const p2 = await anonymousPlayer(project.clientKey);
    const other = await makeProject();
    const theirs = await anonymousPlayer(other.clientKey);
    const batch = randomUUID();
    const outcomes = await caller(admin).players.bulkBan({
      projectId: project.projectId,
      playerIds: [p1.playerId, p2.playerId, theirs.playerId],
      batch,
      reason: "botting",
    });
    expect(outcomes).toEqual([
      { playerId: p1.playerId, outcome: "done" },
      { playerId: p2.playerId, outcome: "done" },
      { playerId: theirs.playerId, outcome: "failed", code: "PLAYER_NOT_FOUND", message: "Player not found." },
    ]);
    const audit = await prisma().auditEntry.findMany({
      where: { projectId: project.projectId, action: "player.ban", target: { in: [p1.playerId, p2.playerId] } },
    });
    expect(audit.map((a) => a.after)).toEqual([
      // As a single ban's row: what the ban did to the player's board entries (none here).
      { reason: "botting", until: null, batch, entries: { hidden: 0, removed: 0 } },
      { reason: "botting", until: null, batch, entries: { hidden: 0, removed: 0 } },
    ]);
    expect(await prisma().session.count({ where: { playerId: { in: [p1.playerId, p2.playerId] }, revokedAt: null } })).toBe(0);
    const refresh = await api("POST", "/api/v1/auth/refresh", { key: project.clientKey, body: { refreshToken: p1.refreshToken } });
    expect(refresh.status).not.toBe(200);
    expect((await prisma().player.findUniqueOrThrow({ where: { id: theirs.playerId } })).bannedAt).toBeNull();
  });

  it("a bulk grant writes one ledger row and one audit row per player; the same batch sent again grants nothing twice", async () => {
    await createCurrency({ projectId: project.projectId, input: { id: "gems", name: "Gems", initialBalance: 0, maxBalance: 15 } });
    const a = (await anonymousPlayer(project.clientKey)).playerId;
    const b = (await anonymousPlayer(project.clientKey)).playerId;
    const c = (await anonymousPlayer(project.clientKey)).playerId;
    await pool().query(
      "INSERT INTO wallets (project_id, player_id, currency_id, balance, initial_balance) VALUES ($1, $2, 'gems', 10, 0)",
      [project.projectId, c],
    );
    const input = {
      projectId: project.projectId,
      playerIds: [a, b, c],
      batch: randomUUID(),
      reason: "outage",
      currencies: [{ currencyId: "gems", amount: 10 }],
    };
    const first = await caller(admin).players.bulkGrant(input);
    expect(first.map((o) => [o.playerId, o.outcome, o.code])).toEqual([
      [a, "done", undefined],
      [b, "done", undefined],
      [c, "failed", "CURRENCY_MAX_EXCEEDED"],
    ]);
    const again = await caller(admin).players.bulkGrant(input);
    expect(again.map((o) => o.outcome)).toEqual(["already", "already", "failed"]);
    const ledger = await pool().query<{ player_id: string; reason: string; actor_kind: string }>(
      "SELECT player_id, reason, actor_kind FROM economy_transactions WHERE project_id = $1 AND player_id = ANY($2::uuid[]) ORDER BY id",
      [project.projectId, [a, b, c]],
    );
    expect(ledger.rows).toEqual([
      { player_id: a, reason: "outage", actor_kind: "operator" },
      { player_id: b, reason: "outage", actor_kind: "operator" },
    ]);
    expect(
      await prisma().auditEntry.count({ where: { projectId: project.projectId, action: "economy.grant", target: { in: [a, b, c] } } }),
    ).toBe(2);
    const wallets = await pool().query<{ balance: string }>(
      "SELECT balance FROM wallets WHERE player_id = ANY($1::uuid[]) ORDER BY balance",
      [[a, b]],
    );
    expect(wallets.rows.map((w) => w.balance)).toEqual(["10", "10"]);
  });

  it("a viewer's bulk ban is FORBIDDEN and bans nobody", async () => {
    const viewer = await newOperator("VIEWER", project.projectId);
    const p = await anonymousPlayer(project.clientKey);
    expect(
      await appCodeOf(
        caller(viewer).players.bulkBan({ projectId: project.projectId, playerIds: [p.playerId], batch: randomUUID(), reason: "x" }),
      ),
    ).toBe("FORBIDDEN");
    expect((await prisma().player.findUniqueOrThrow({ where: { id: p.playerId } })).bannedAt).toBeNull();
  });
});

describe("display names and saves", () => {
  it("an admin sets a display name with the API's rules, audited with before and after; a bad name is refused", async () => {
    const p = (await anonymousPlayer(project.clientKey)).playerId;
    await caller(admin).players.setDisplayName({ projectId: project.projectId, playerId: p, displayName: "  Nova  " });
    expect((await prisma().player.findUniqueOrThrow({ where: { id: p } })).displayName).toBe("Nova");
    const entry = await prisma().auditEntry.findFirstOrThrow({
      where: { projectId: project.projectId, action: "player.display-name", target: p },
    });
    expect([entry.before, entry.after]).toEqual([{ displayName: null }, { displayName: "Nova" }]);
    expect(
      await appCodeOf(caller(admin).players.setDisplayName({ projectId: project.projectId, playerId: p, displayName: "x".repeat(33) })),
    ).toBe("VALIDATION_ERROR");
    expect(
      await appCodeOf(caller(admin).players.setDisplayName({ projectId: project.projectId, playerId: p, displayName: "a\u202Eb" })),
    ).toBe("VALIDATION_ERROR");
    const other = await makeProject();
    const theirs = (await anonymousPlayer(other.clientKey)).playerId;
    expect(
      await appCodeOf(caller(admin).players.setDisplayName({ projectId: project.projectId, playerId: theirs, displayName: "Hijack" })),
    ).toBe("PLAYER_NOT_FOUND");
  });

  it("a viewer reads a save's contents; another project's save is SAVE_NOT_FOUND", async () => {
    const p = await anonymousPlayer(project.clientKey);
    const put = await api("PUT", "/api/v1/saves/slot-1", {
      key: project.clientKey,
      token: p.accessToken,
      body: { data: { level: 3, items: ["sword"] } },
    });
    expect(put.status).toBeLessThan(300);
    const viewer = await newOperator("VIEWER", project.projectId);
    const save = await caller(viewer).players.save({ projectId: project.projectId, playerId: p.playerId, key: "slot-1" });
    expect(save.data).toEqual({ level: 3, items: ["sword"] });
    const other = await makeProject();
    expect(
      await appCodeOf(
        caller(await newOperator("OWNER", other.projectId)).players.save({
          projectId: other.projectId,
          playerId: p.playerId,
          key: "slot-1",
        }),
      ),
    ).toBe("SAVE_NOT_FOUND");
  });
});
