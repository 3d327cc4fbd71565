import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { pool, prisma } from "@/server/db";
import type { MemberRole } from "@/server/generated/prisma/enums";
import type { SessionOperator } from "@/server/identity/operator";
import { createOperatorToken } from "@/server/identity/operator-tokens";
import { adjustPlayerAs } from "@/server/services/economy/commands";
import { createCurrency } from "@/server/services/economy/definitions";
import { createLeaderboard, resetLeaderboard } from "@/server/services/leaderboards/definitions";
import { submitScore } from "@/server/services/leaderboards/entries";
import { api, baseUrl, definitionCachesExpired } from "../support/api";
import { anonymousPlayer, makeProject, type TestProject } from "../support/fixtures";
import { caller, ctx, newOperator } from "../support/operators";

/**
 * The dashboard's exports over HTTP (GET /api/dashboard/projects/:id/exports/:kind), called with
 * operator access tokens: who may export what, the files' shape, CSV escaping, streaming, audit.
 */
async function tokenOf(op: SessionOperator, role: MemberRole): Promise<string> {
  return (await createOperatorToken({ operator: op, name: "exports", role, projectIds: null, instanceAdmin: false })).token;
}
const get = (token: string | null, projectId: string, kind: string, query = "", headers: Record<string, string> = {}) =>
  fetch(`${baseUrl()}/api/dashboard/projects/${projectId}/exports/${kind}${query ? `?${query}` : ""}`, {
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
  });
const rowsOf = (csv: string) => csv.trimEnd().split("\r\n");

let project: TestProject;
let owner: SessionOperator;
let ownerToken: string;
let viewerToken: string;
let playerIds: string[] = [];

async function seedPlayers(projectId: string, n: number, name: (i: number) => string, email: (i: number) => string | null) {
  const { rows } = await pool().query<{ id: string }>(
    `INSERT INTO players (id, project_id, display_name, email, created_at, updated_at)
     SELECT gen_random_uuid(), $1, (SELECT $2::text[])[g], (SELECT $3::text[])[g], now() - ((1000 - g) || ' milliseconds')::interval, now()
       FROM generate_series(1, $4::int) g RETURNING id`,
    [projectId, Array.from({ length: n }, (_, i) => name(i + 1)), Array.from({ length: n }, (_, i) => email(i + 1)), n],
  );
  return rows.map((r) => r.id);
}

beforeAll(async () => {
  project = await makeProject();
  owner = await newOperator("OWNER", project.projectId);
  ownerToken = await tokenOf(owner, "OWNER");
  viewerToken = await tokenOf(await newOperator("VIEWER", project.projectId), "VIEWER");
  playerIds = await seedPlayers(
    project.projectId,
    4,
    (i) => ["Ada", '=HYPERLINK("http://evil")', 'Grace "Amazing", Hopper', "Linus"][i - 1] ?? "",
    (i) => (i % 2 === 1 ? `p${i}@export.test` : null),
  );
  await pool().query("UPDATE players SET password_hash = 'secret-hash', banned_at = now(), ban_reason = 'cheat' WHERE id = $1", [
    playerIds[3],
  ]);
});

describe("exports: the files", () => {
  it("an owner downloads the players as CSV: an attachment, one header, escaped cells, no secret column", async () => {
    const res = await get(ownerToken, project.projectId, "players", "format=csv");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="players-\d{4}-\d{2}-\d{2}\.csv"$/);
    const text = await res.text();
    const lines = rowsOf(text);
    expect(lines[0]).toBe("id,displayName,email,emailVerified,providers,createdAt,lastSeenAt,banned,bannedUntil,banReason");
    expect(lines).toHaveLength(5);
    expect(lines[1]).toMatch(new RegExp(`^${playerIds[0]},Ada,p1@export\\.test,false,,`));
    expect(lines[2]).toContain(`,"'=HYPERLINK(""http://evil"")",`); // quoted, quotes doubled, formula guarded
    expect(lines[3]).toContain(',"Grace ""Amazing"", Hopper",');
    expect(lines[4]).toMatch(/,true,,cheat$/);
    expect(text).not.toContain("secret-hash");
  });

  it("the players export as JSON is an array with the search's filters applied (banned, has e-mail, e-mail prefix)", async () => {
    const all = (await (await get(ownerToken, project.projectId, "players", "format=json")).json()) as Array<Record<string, unknown>>;
    expect(all.map((p) => p.id)).toEqual(playerIds);
    const banned = (await (await get(ownerToken, project.projectId, "players", "format=json&banned=banned")).json()) as Array<{
      id: string;
    }>;
    expect(banned.map((p) => p.id)).toEqual([playerIds[3]]);
    const withEmail = (await (await get(ownerToken, project.projectId, "players", "format=json&email=with")).json()) as Array<{
      id: string;
    }>;
    expect(withEmail.map((p) => p.id)).toEqual([playerIds[0], playerIds[2]]);
    const byPrefix = (await (await get(ownerToken, project.projectId, "players", "format=json&query=P3%40")).json()) as Array<{
      id: string;
    }>;
    expect(byPrefix.map((p) => p.id)).toEqual([playerIds[2]]);
  });

  it("a player's ledger: oldest first, the operator named by e-mail; another project's player is PLAYER_NOT_FOUND", async () => {
    await createCurrency({ projectId: project.projectId, input: { id: "coins", name: "Coins", initialBalance: 0 } });
    const playerId = playerIds[0] as string;
    for (const amount of [5, 7]) {
      await adjustPlayerAs(ctx(owner), {
        projectId: project.projectId,
        playerId,
        direction: "grant",
        currencies: [{ currencyId: "coins", amount }],
        items: [],
        reason: `grant ${amount}`,
      });
    }
    const res = await get(ownerToken, project.projectId, "ledger", `format=json&playerId=${playerId}`);
    expect(res.headers.get("content-disposition")).toContain(`ledger-${playerId}-`);
    const rows = (await res.json()) as Array<{ kind: string; reason: string; actor: string; currencies: unknown }>;
    expect(rows.map((r) => [r.kind, r.reason, r.actor])).toEqual([
      ["grant", "grant 5", owner.email],
      ["grant", "grant 7", owner.email],
    ]);
    expect(rows[0]?.currencies).toEqual([{ id: "coins", delta: 5, balance: 5 }]);
    const other = await makeProject();
    const [theirs] = await seedPlayers(
      other.projectId,
      1,
      () => "Theirs",
      () => null,
    );
    const refused = await get(ownerToken, project.projectId, "ledger", `playerId=${theirs}`);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ error: { code: "PLAYER_NOT_FOUND" } });
  });

  it("a leaderboard: the current period best first with ranks, and an archived period by name", async () => {
    const id = `b-${randomBytes(3).toString("hex")}`;
    await createLeaderboard({ projectId: project.projectId, input: { id, name: "Export board", sortOrder: "desc", operator: "best" } });
    const actor = (playerId: string) => ({ kind: "player" as const, projectId: project.projectId, playerId, via: "token" as const });
    await submitScore({ actor: actor(playerIds[0] as string), leaderboardId: id, score: 10 });
    await submitScore({ actor: actor(playerIds[1] as string), leaderboardId: id, score: 30 });
    const archived = (
      await pool().query<{ period: string }>("SELECT period FROM leaderboard_periods WHERE project_id = $1 AND leaderboard_id = $2", [
        project.projectId,
        id,
      ])
    ).rows[0]?.period;
    await resetLeaderboard({ projectId: project.projectId, id });
    await submitScore({ actor: actor(playerIds[2] as string), leaderboardId: id, score: 5 });
    const current = rowsOf(await (await get(viewerToken, project.projectId, "leaderboard", `leaderboardId=${id}`)).text());
    expect(current[0]).toBe("rank,playerId,displayName,score,metadata,updatedAt,period");
    expect(current).toHaveLength(2);
    expect(current[1]).toMatch(new RegExp(`^1,${playerIds[2]},"Grace ""Amazing"", Hopper",5,,`));
    const old = (await (
      await get(
        viewerToken,
        project.projectId,
        "leaderboard",
        `format=json&leaderboardId=${id}&period=${encodeURIComponent(archived ?? "")}`,
      )
    ).json()) as Array<{ rank: number; playerId: string; score: number }>;
    expect(old.map((e) => [e.rank, e.playerId, e.score])).toEqual([
      [1, playerIds[1], 30],
      [2, playerIds[0], 10],
    ]);
    const missing = await get(viewerToken, project.projectId, "leaderboard", `leaderboardId=${id}&period=nope`);
    expect(missing.status).toBe(404);
    expect((await get(viewerToken, project.projectId, "leaderboard", "leaderboardId=none")).status).toBe(404);
  });

  it("the export of 5,000 players is read as a stream: several chunks, the first before the last row was read", async () => {
    const big = await makeProject();
    const op = await newOperator("ADMIN", big.projectId);
    await seedPlayers(
      big.projectId,
      5_000,
      (i) => `Player ${i}`,
      (i) => `player${i}@stream.test`,
    );
    const res = await get(await tokenOf(op, "ADMIN"), big.projectId, "players", "format=csv");
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let chunks = 0;
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks += 1;
      text += decoder.decode(value, { stream: true });
    }
    expect(chunks).toBeGreaterThanOrEqual(5); // at least one chunk per page of 1,000 rows
    const lines = rowsOf(text);
    expect(lines).toHaveLength(5_001);
    expect(new Set(lines.map((l) => l.split(",")[0])).size).toBe(5_001); // no row twice across pages
  });
});

describe("exports: who may export", () => {
  it("a viewer exports the leaderboard and the audit log, but not players or a ledger (403 FORBIDDEN in the product's error shape)", async () => {
    const players = await get(viewerToken, project.projectId, "players");
    expect(players.status).toBe(403);
    expect(await players.json()).toEqual({ error: { code: "FORBIDDEN", message: "This needs the admin role.", details: {} } });
    expect((await get(viewerToken, project.projectId, "ledger", `playerId=${playerIds[0]}`)).status).toBe(403);
    expect((await get(viewerToken, project.projectId, "audit")).status).toBe(200);
  });

  it("another project's operator and a non-member get 404; no credentials 401; a cross-site request 403; an unknown kind 404", async () => {
    const other = await makeProject();
    const stranger = await tokenOf(await newOperator("OWNER", other.projectId), "OWNER");
    const refused = await get(stranger, project.projectId, "players");
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ error: { code: "NOT_FOUND", message: "Project not found." } });
    expect((await get(await tokenOf(await newOperator(null, project.projectId), "OWNER"), project.projectId, "audit")).status).toBe(404);
    const signedOut = await get(null, project.projectId, "audit");
    expect(signedOut.status).toBe(401);
    expect(await signedOut.json()).toMatchObject({ error: { code: "MISSING_TOKEN" } });
    expect((await get("gbo_not-a-token", project.projectId, "audit")).status).toBe(401);
    expect((await get(null, project.projectId, "audit", "", { "Sec-Fetch-Site": "cross-site" })).status).toBe(403);
    expect((await get(ownerToken, project.projectId, "secrets")).status).toBe(404);
    const invalid = await get(ownerToken, project.projectId, "players", "banned=maybe");
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ error: { code: "VALIDATION_ERROR" } });
  });

  it("every export is audited as export.<kind> with its filters, never the search text; a refused one is not", async () => {
    const before = await prisma().auditEntry.count({ where: { projectId: project.projectId, action: { startsWith: "export." } } });
    await (await get(ownerToken, project.projectId, "players", "format=json&query=p1%40export.test&email=with")).text();
    await (await get(viewerToken, project.projectId, "players")).text();
    const entries = await prisma().auditEntry.findMany({
      where: { projectId: project.projectId, action: { startsWith: "export." } },
      orderBy: { id: "desc" },
    });
    expect(entries.length).toBe(before + 1);
    expect(entries[0]).toMatchObject({ action: "export.players", operatorId: owner.id });
    expect(entries[0]?.after).toEqual({ format: "json", banned: "any", email: "with", search: "(text)" });
    expect(JSON.stringify(entries[0])).not.toContain("p1@export.test");
  });
});

describe("exports: experiment assignments", () => {
  const experiment = (id: string, name: string) => ({
    projectId: project.projectId,
    id,
    name,
    variants: [
      { id: "a", name: "A", weight: 1, values: {} },
      { id: "b", name: "B", weight: 1, values: {} },
    ],
    reason: "test",
  });
  const assign = (experimentId: string, playerId: string, variant: string, at: string) =>
    pool().query(
      "INSERT INTO experiment_assignments (project_id, experiment_id, player_id, variant, assigned_at) VALUES ($1, $2, $3, $4, $5)",
      [project.projectId, experimentId, playerId, variant, at],
    );

  beforeAll(async () => {
    const rc = caller(owner).remoteConfig;
    await rc.upsertExperiment(experiment("exp-color", "=Color test"));
    await rc.upsertExperiment(experiment("exp-price", "Price, again"));
    const [p0, p1] = playerIds as [string, string];
    await assign("exp-price", p0, "b", "2026-11-01T10:00:00.000Z");
    await assign("exp-color", p1, "a", "2026-11-02T10:00:00.000Z");
    await assign("exp-color", p0, "b", "2026-11-03T10:00:00.000Z");
  });

  it("an owner downloads every assignment as CSV (by experiment, then player; names escaped) and one experiment's as JSON", async () => {
    const res = await get(ownerToken, project.projectId, "experiment-assignments");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="experiment-assignments-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = rowsOf(await res.text());
    const [p0, p1] = playerIds as [string, string];
    const color = [
      [p0, "b", "2026-11-03T10:00:00.000Z"],
      [p1, "a", "2026-11-02T10:00:00.000Z"],
    ].sort((x, y) => ((x[0] ?? "") < (y[0] ?? "") ? -1 : 1));
    expect(lines).toEqual([
      "experimentId,experimentName,variant,playerId,assignedAt",
      ...color.map(([player, variant, at]) => `exp-color,'=Color test,${variant},${player},${at}`),
      `exp-price,"Price, again",b,${p0},2026-11-01T10:00:00.000Z`,
    ]);
    const one = await get(ownerToken, project.projectId, "experiment-assignments", "format=json&experimentId=exp-price");
    expect(one.headers.get("content-disposition")).toContain("experiment-assignments-exp-price-");
    expect(await one.json()).toEqual([
      { experimentId: "exp-price", experimentName: "Price, again", variant: "b", playerId: p0, assignedAt: "2026-11-01T10:00:00.000Z" },
    ]);
    const audit = await prisma().auditEntry.findFirst({
      where: { projectId: project.projectId, action: "export.experiment-assignments", target: "exp-price" },
    });
    expect(audit?.after).toEqual({ format: "json", experimentId: "exp-price" });
  });

  it("a viewer is refused (403); an unknown experiment is 404 and a bad query 400, neither audited", async () => {
    expect((await get(viewerToken, project.projectId, "experiment-assignments")).status).toBe(403);
    const before = await prisma().auditEntry.count({ where: { projectId: project.projectId, action: "export.experiment-assignments" } });
    const missing = await get(ownerToken, project.projectId, "experiment-assignments", "experimentId=nope");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "NOT_FOUND" } });
    const bad = await get(ownerToken, project.projectId, "experiment-assignments", "format=xml");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "VALIDATION_ERROR" } });
    expect(await prisma().auditEntry.count({ where: { projectId: project.projectId, action: "export.experiment-assignments" } })).toBe(
      before,
    );
  });

  it("a player's own export lists their assignments (as GET /config made them), and no one else's", async () => {
    const rc = caller(owner).remoteConfig;
    await rc.upsertKey({ projectId: project.projectId, key: "tint", type: "string", defaultValue: "red", reason: "test" });
    await rc.upsertExperiment({
      ...experiment("exp-tint", "Tint"),
      variants: [
        { id: "blue", name: "Blue", weight: 1, values: { tint: "blue" } },
        { id: "green", name: "Green", weight: 1, values: { tint: "green" } },
      ],
    });
    await rc.setExperimentStatus({ projectId: project.projectId, id: "exp-tint", status: "running", reason: "test" });
    await definitionCachesExpired();
    const player = await anonymousPlayer(project.clientKey);
    const config = await api<{ assignments: Record<string, string> }>("GET", "/api/v1/config", {
      key: project.clientKey,
      token: player.accessToken,
    });
    const variant = config.body.assignments["exp-tint"];
    expect(["blue", "green"]).toContain(variant);
    const res = await api<{ experimentAssignments: Array<Record<string, unknown>> }>("GET", "/api/v1/players/me/export", {
      key: project.clientKey,
      token: player.accessToken,
    });
    expect(res.status).toBe(200);
    expect(res.body.experimentAssignments).toEqual([
      { experimentId: "exp-tint", experimentName: "Tint", variant, assignedAt: expect.any(String) },
    ]);
  });
});
