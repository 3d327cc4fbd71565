import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { pool, prisma } from "@/server/db";
import { createCurrency, createItem, createPurchase } from "@/server/services/economy/definitions";
import { createLeaderboard, resetLeaderboard } from "@/server/services/leaderboards/definitions";
import { setProjectDataSettings } from "@/server/services/projects";
import { type ApiOptions, type ApiResponse, api, expectError } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";

/**
 * Account deletion (DELETE /players/me) and export (GET /players/me/export) against the real
 * database: what a deletion leaves (nothing of the player, in any table that refers to players),
 * what it corrects (leaderboard ranks and counts), what it refuses, and what an export holds.
 */
let project: TestProject;
const BOARD = "lc-board";
const PASSWORD = "a long unusual passphrase 7";
const as = (p: TestPlayer, key = project.clientKey): ApiOptions => ({ key, token: p.accessToken });

beforeAll(async () => {
  project = await makeProject();
  await setUpEconomyAndBoard(project.projectId);
});

async function setUpEconomyAndBoard(projectId: string): Promise<void> {
  await createCurrency({ projectId, input: { id: "coins", name: "Coins", initialBalance: 100, maxBalance: 1_000_000 } });
  await createItem({ projectId, input: { id: "potion", name: "Potion", maxStack: 1_000 } });
  await createPurchase({
    projectId,
    input: { id: "buy-potion", name: "Potion", costs: [{ currencyId: "coins", amount: 1 }], rewards: [{ itemId: "potion", quantity: 1 }] },
  });
  await createLeaderboard({ projectId, input: { id: BOARD, name: "Board", sortOrder: "desc", operator: "best" } });
}

async function emailPlayer(key = project.clientKey): Promise<TestPlayer & { email: string }> {
  const email = `lc-${randomBytes(4).toString("hex")}@example.com`;
  const res = await api<TestPlayer>("POST", "/api/v1/auth/email/register", {
    key,
    body: { email, password: PASSWORD, displayName: "Lena" },
  });
  expect(res.status).toBe(200);
  return { ...res.body, email };
}

/** Rows in every table the player can own: data of each visibility, a save, a score, balances, inventory, ledger, idempotency. */
async function fillAccount(p: TestPlayer, of: TestProject = project): Promise<void> {
  const me = as(p, of.clientKey);
  expect((await api("PUT", "/api/v1/players/me/data/private-key", { ...me, body: { value: { hp: 1 } } })).status).toBe(201);
  expect((await api("PUT", "/api/v1/players/me/data/public-key", { ...me, body: { value: "hi", visibility: "public" } })).status).toBe(201);
  expect(
    (
      await api("PUT", "/api/v1/players/me/data/protected-key", {
        key: of.serverKey,
        headers: { "X-Player-Id": p.playerId },
        body: { value: 7, visibility: "protected" },
      })
    ).status,
  ).toBe(201);
  expect((await api("PUT", "/api/v1/saves/slot-1", { ...me, body: { data: { level: 4 }, meta: { label: "one" } } })).status).toBe(201);
  expect((await api("POST", `/api/v1/leaderboards/${BOARD}/scores`, { ...me, body: { score: 50 } })).status).toBe(200);
  expect((await api("GET", "/api/v1/economy/currencies", me)).status).toBe(200);
  const bought = await api("POST", "/api/v1/economy/purchase", {
    ...me,
    headers: { "Idempotency-Key": `buy-${p.playerId}` },
    body: { purchaseId: "buy-potion" },
  });
  expect(bought.status).toBe(200);
}

/**
 * Every table with a foreign key to players or a player_id column, read from the catalog. One
 * such table may keep rows of a deleted player by design: webhook_events keeps the player.deleted
 * event and events still pending delivery, without personal fields ("DELETE /players/me: webhook
 * events" below); this file's main project has no webhook endpoint, so it stores no event.
 */
async function playerTables(): Promise<Array<{ table: string; column: string }>> {
  const { rows } = await pool().query<{ table: string; column: string }>(
    `SELECT DISTINCT c.conrelid::regclass::text AS table, a.attname AS column
       FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey)
      WHERE c.contype = 'f' AND c.confrelid = 'players'::regclass
     UNION
     SELECT table_name AS table, column_name AS column FROM information_schema.columns
      WHERE table_schema = current_schema() AND column_name = 'player_id'
     ORDER BY 1`,
  );
  return rows;
}

/** The player's rows per table (and the players row itself). */
async function rowsOf(playerId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const t of [...(await playerTables()), { table: "players", column: "id" }]) {
    const { rows } = await pool().query<{ n: number }>(`SELECT count(*)::int AS n FROM "${t.table}" WHERE "${t.column}" = $1::uuid`, [
      playerId,
    ]);
    counts[`${t.table}.${t.column}`] = rows[0]?.n ?? 0;
  }
  return counts;
}

/** As rowsOf, without the active days: the usage flush writes those every few seconds, whenever it runs. */
async function ownedRows(playerId: string): Promise<Record<string, number>> {
  const { "player_active_days.player_id": _flushed, ...rest } = await rowsOf(playerId);
  return rest;
}

const deleteAccount = (p: TestPlayer, body?: unknown, key = project.clientKey) =>
  api("DELETE", "/api/v1/players/me", { ...as(p, key), ...(body === undefined ? {} : { body }) });

describe("DELETE /players/me", () => {
  it("leaves no row of the player in any table that refers to players or has a player_id column", async () => {
    const p = await emailPlayer();
    await fillAccount(p);
    // A sign-in with the password remembers the address (login_known_ips).
    const login = await api("POST", "/api/v1/auth/email/login", { key: project.clientKey, body: { email: p.email, password: PASSWORD } });
    expect(login.status).toBe(200);
    await prisma().identity.create({
      data: { projectId: project.projectId, playerId: p.playerId, provider: "steam", subject: `s-${p.playerId}` },
    });
    // A usage flush may not have run yet: the active day is written as the flush would.
    await pool().query("INSERT INTO player_active_days (project_id, day, player_id) VALUES ($1, current_date, $2) ON CONFLICT DO NOTHING", [
      project.projectId,
      p.playerId,
    ]);
    const before = await rowsOf(p.playerId);
    const tables = Object.keys(before);
    for (const t of [
      "sessions.player_id",
      "identities.player_id",
      "player_data.player_id",
      "player_saves.player_id",
      "login_known_ips.player_id",
    ])
      expect(before[t], t).toBeGreaterThan(0);
    for (const t of ["leaderboard_entries.player_id", "wallets.player_id", "inventory.player_id", "economy_transactions.player_id"])
      expect(before[t], t).toBeGreaterThan(0);
    for (const t of ["idempotency_keys.player_id", "player_active_days.player_id", "players.id"]) expect(before[t], t).toBeGreaterThan(0);

    expect((await deleteAccount(p, { password: PASSWORD })).status).toBe(204);

    const after = await rowsOf(p.playerId);
    expect(Object.keys(after)).toEqual(tables);
    expect(Object.entries(after).filter(([, n]) => n > 0)).toEqual([]);
  });

  it("refuses a wrong or missing password with 401 INVALID_CREDENTIALS and changes nothing", async () => {
    const p = await emailPlayer();
    await fillAccount(p);
    const before = await ownedRows(p.playerId);
    expectError(await deleteAccount(p, { password: "not the passphrase" }), 401, "INVALID_CREDENTIALS");
    expectError(await deleteAccount(p), 401, "INVALID_CREDENTIALS");
    expectError(await deleteAccount(p, {}), 401, "INVALID_CREDENTIALS");
    expect(await ownedRows(p.playerId)).toEqual(before);
    expect((await api("GET", "/api/v1/players/me", as(p))).status).toBe(200);
  });

  it("an anonymous player deletes with no body; its access token and refresh token are refused afterwards", async () => {
    const p = await anonymousPlayer(project.clientKey);
    await fillAccount(p);
    expect((await deleteAccount(p)).status).toBe(204);
    const res = await api("GET", "/api/v1/players/me", as(p));
    expectError(res, 401, "INVALID_TOKEN");
    expect(res.body).toMatchObject({ error: { details: { reason: "revoked" } } });
    expectError(
      await api("POST", "/api/v1/auth/refresh", { key: project.clientKey, body: { refreshToken: p.refreshToken } }),
      401,
      "INVALID_TOKEN",
    );
  });

  it("an anonymous player may send an empty object as the body", async () => {
    const p = await anonymousPlayer(project.clientKey);
    expect((await deleteAccount(p, {})).status).toBe(204);
    expect(await prisma().player.count({ where: { id: p.playerId } })).toBe(0);
  });

  it("the signed-out e-mail account cannot sign in again", async () => {
    const p = await emailPlayer();
    expect((await deleteAccount(p, { password: PASSWORD })).status).toBe(204);
    expectError(
      await api("POST", "/api/v1/auth/email/login", { key: project.clientKey, body: { email: p.email, password: PASSWORD } }),
      401,
      "INVALID_CREDENTIALS",
    );
  });

  it("a server key acting as an e-mail player deletes it without a password", async () => {
    const p = await emailPlayer();
    const res = await api("DELETE", "/api/v1/players/me", { key: project.serverKey, headers: { "X-Player-Id": p.playerId } });
    expect(res.status).toBe(204);
    expect(await prisma().player.count({ where: { id: p.playerId } })).toBe(0);
  });

  it("a server key acting as a banned player deletes it (a data-subject right), though other calls for it stay refused", async () => {
    const p = await anonymousPlayer(project.clientKey);
    await pool().query("UPDATE players SET banned_at = now() WHERE id = $1", [p.playerId]);
    const acting = { key: project.serverKey, headers: { "X-Player-Id": p.playerId } };
    expectError(await api("GET", "/api/v1/players/me/data", acting), 403, "PLAYER_BANNED");
    expect((await api("DELETE", "/api/v1/players/me", acting)).status).toBe(204);
    expect(await prisma().player.count({ where: { id: p.playerId } })).toBe(0);
  });

  it("deleting another player's account is 403 FORBIDDEN and changes nothing", async () => {
    const p = await anonymousPlayer(project.clientKey);
    const victim = await anonymousPlayer(project.clientKey);
    expectError(await api("DELETE", `/api/v1/players/${victim.playerId}`, as(p)), 403, "FORBIDDEN");
    expect(await prisma().player.count({ where: { id: victim.playerId } })).toBe(1);
  });

  it("leaves another player's rows untouched", async () => {
    const p = await anonymousPlayer(project.clientKey);
    const bystander = await anonymousPlayer(project.clientKey);
    await fillAccount(p);
    await fillAccount(bystander);
    const before = await ownedRows(bystander.playerId);
    const data = await api("GET", "/api/v1/players/me/data", as(bystander));
    expect((await deleteAccount(p)).status).toBe(204);
    expect(await ownedRows(bystander.playerId)).toEqual(before);
    expect((await api("GET", "/api/v1/players/me/data", as(bystander))).body).toEqual(data.body);
  });

  it("writes an audit row naming the player by id, with counts and without e-mail or display name", async () => {
    const p = await emailPlayer();
    await fillAccount(p);
    expect((await deleteAccount(p, { password: PASSWORD })).status).toBe(204);
    const row = await prisma().auditEntry.findFirstOrThrow({
      where: { projectId: project.projectId, action: "player.delete", target: p.playerId },
    });
    expect(row.operatorId).toBeNull();
    expect(row.after).toMatchObject({ by: "player", dataKeys: 3, saves: 1, leaderboardEntries: 1, ledgerKept: false });
    const text = JSON.stringify(row);
    expect(text).not.toContain(p.email);
    expect(text).not.toContain("Lena");
  });
});

describe("DELETE /players/me: leaderboards", () => {
  it("the players behind move up: ranks, total, period count, rank buckets and around-me are corrected", async () => {
    const local = await makeProject();
    await createLeaderboard({ projectId: local.projectId, input: { id: "ranks", name: "Ranks", sortOrder: "desc", operator: "best" } });
    const [first, second, third] = [
      await anonymousPlayer(local.clientKey),
      await anonymousPlayer(local.clientKey),
      await anonymousPlayer(local.clientKey),
    ];
    for (const [p, score] of [
      [first, 300],
      [second, 200],
      [third, 100],
    ] as const) {
      expect(
        (await api("POST", "/api/v1/leaderboards/ranks/scores", { key: local.clientKey, token: p.accessToken, body: { score } })).status,
      ).toBe(200);
    }
    expect((await api("DELETE", "/api/v1/players/me", { key: local.clientKey, token: first.accessToken })).status).toBe(204);

    const page = await api<{ total: number; entries: Array<{ rank: number; playerId: string }> }>("GET", "/api/v1/leaderboards/ranks", {
      key: local.clientKey,
    });
    expect(page.body.total).toBe(2);
    expect(page.body.entries.map((e) => [e.rank, e.playerId])).toEqual([
      [1, second.playerId],
      [2, third.playerId],
    ]);
    const around = await api<{ rank: number; above: Array<{ playerId: string }> }>("GET", "/api/v1/leaderboards/ranks/player?range=5", {
      key: local.clientKey,
      token: third.accessToken,
    });
    expect(around.body.rank).toBe(2);
    expect(around.body.above.map((e) => e.playerId)).toEqual([second.playerId]);
    const { rows } = await pool().query<{ entries: number; buckets: number; actual: number }>(
      `SELECT p.entries,
              (SELECT coalesce(sum(b.entries), 0)::int FROM leaderboard_rank_buckets b
                WHERE b.project_id = p.project_id AND b.leaderboard_id = p.leaderboard_id AND b.period = p.period) AS buckets,
              (SELECT count(*)::int FROM leaderboard_entries e
                WHERE e.project_id = p.project_id AND e.leaderboard_id = p.leaderboard_id AND e.period = p.period) AS actual
         FROM leaderboard_periods p WHERE p.project_id = $1 AND p.leaderboard_id = 'ranks'`,
      [local.projectId],
    );
    expect(rows).toEqual([{ entries: 2, buckets: 2, actual: 2 }]);
  });
});

describe("DELETE /players/me: the ledger", () => {
  it("goes with the player by default", async () => {
    const p = await anonymousPlayer(project.clientKey);
    await fillAccount(p);
    const ids = (await prisma().economyTransaction.findMany({ where: { playerId: p.playerId }, select: { id: true } })).map((t) => t.id);
    expect(ids.length).toBeGreaterThan(0);
    expect((await deleteAccount(p)).status).toBe(204);
    expect(await prisma().economyTransaction.count({ where: { id: { in: ids } } })).toBe(0);
  });

  it("stays detached from the player (no player id, idempotency key, request id or actor id) when the project keeps it", async () => {
    const local = await makeProject();
    await setUpEconomyAndBoard(local.projectId);
    await setProjectDataSettings({ projectId: local.projectId, keepLedgerOfDeletedPlayers: true });
    const p = await anonymousPlayer(local.clientKey);
    await fillAccount(p, local);
    const ids = (await prisma().economyTransaction.findMany({ where: { playerId: p.playerId }, select: { id: true } })).map((t) => t.id);
    expect(ids.length).toBe(1);
    expect((await api("DELETE", "/api/v1/players/me", { key: local.clientKey, token: p.accessToken })).status).toBe(204);
    const kept = await prisma().economyTransaction.findMany({ where: { id: { in: ids } } });
    expect(kept.map((t) => ({ player: t.playerId, key: t.idempotencyKey, request: t.requestId, actor: t.actorId, kind: t.kind }))).toEqual([
      { player: null, key: null, request: null, actor: null, kind: "PURCHASE" },
    ]);
    expect(kept[0]?.currencies).toEqual([{ id: "coins", delta: -1, balance: 99 }]);
    expect(await rowsOf(p.playerId)).toMatchObject({ "players.id": 0, "wallets.player_id": 0, "inventory.player_id": 0 });
  });
});

describe("DELETE /players/me: webhook events", () => {
  it("deletes the player's finished and undelivered events; a pending one keeps the player id without the e-mail; player.deleted is stored", async () => {
    const local = await makeProject();
    // Disabled: events are stored without deliveries, and the deliveries below are the test's own.
    const endpoint = await pool().query<{ id: string }>(
      `INSERT INTO webhook_endpoints (id, project_id, url, event_types, enabled, disabled_reason, secret)
       VALUES (gen_random_uuid(), $1, 'https://hooks.example.com/lifecycle', $2, false, 'operator', 'whsec_test') RETURNING id`,
      [local.projectId, ["player.created", "player.signed_in", "player.email_linked", "player.deleted"]],
    );
    const endpointId = endpoint.rows[0]?.id as string;
    const p = await anonymousPlayer(local.clientKey);
    const email = `lc-hook-${randomBytes(4).toString("hex")}@example.com`;
    const linked = await api<TestPlayer>("POST", "/api/v1/auth/email/register", {
      key: local.clientKey,
      token: p.accessToken,
      body: { email, password: PASSWORD },
    });
    expect(linked.status).toBe(200);
    const events = async () =>
      (
        await pool().query<{ id: string; type: string; player_id: string | null; data: Record<string, unknown> }>(
          "SELECT id, type, player_id, data FROM webhook_events WHERE project_id = $1 ORDER BY id",
          [local.projectId],
        )
      ).rows;
    const before = await events();
    expect(before.map((e) => e.type)).toEqual(["player.created", "player.signed_in", "player.email_linked"]);
    expect(before[2]?.data).toEqual({ playerId: p.playerId, email });
    // player.created was delivered; player.email_linked waits for a retry; player.signed_in was never delivered.
    await pool().query(
      `INSERT INTO webhook_deliveries (id, project_id, endpoint_id, event_id, order_key, status, attempts, next_attempt_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $5, 'SUCCEEDED', 1, now()),
              (gen_random_uuid(), $1, $2, $4, $5, 'PENDING', 3, now() + interval '1 day')`,
      [local.projectId, endpointId, before[0]?.id, before[2]?.id, p.playerId],
    );

    const deleted = await api("DELETE", "/api/v1/players/me", {
      key: local.clientKey,
      token: linked.body.accessToken,
      body: { password: PASSWORD },
    });
    expect(deleted.status).toBe(204);

    const after = await events();
    expect(after.map((e) => [e.type, e.player_id, e.data])).toEqual([
      ["player.email_linked", p.playerId, { playerId: p.playerId, email: null }],
      ["player.deleted", p.playerId, { playerId: p.playerId }],
    ]);
    const mentions = await pool().query("SELECT 1 FROM webhook_events WHERE data::text ILIKE $1", [`%${email}%`]);
    expect(mentions.rowCount).toBe(0);
    const pending = await pool().query("SELECT status FROM webhook_deliveries WHERE endpoint_id = $1", [endpointId]);
    expect(pending.rows).toEqual([{ status: "PENDING" }]);
  });
});

describe("DELETE /players/me racing the player's own writes", () => {
  it("many parallel writes around the deletion: no 5xx, no orphan row, counts and buckets exact", async () => {
    for (let round = 0; round < 3; round++) {
      const p = await anonymousPlayer(project.clientKey);
      await fillAccount(p);
      const me = as(p);
      const writes = (i: number): Promise<ApiResponse> => {
        switch (i % 6) {
          case 0:
            return api("PUT", `/api/v1/players/me/data/k${i}`, { ...me, body: { value: i } });
          case 1:
            return api("PUT", `/api/v1/saves/s${i % 40}`, { ...me, body: { data: { i } } });
          case 2:
            return api("POST", `/api/v1/leaderboards/${BOARD}/scores`, { ...me, body: { score: 1000 + i } });
          case 3:
            return api("POST", "/api/v1/economy/purchase", { ...me, body: { purchaseId: "buy-potion" } });
          case 4:
            return api("POST", "/api/v1/economy/currencies/coins/add", {
              ...me,
              headers: { "Idempotency-Key": `r${round}-${i}` },
              body: { amount: 1 },
            });
          default:
            return api("PATCH", "/api/v1/players/me/data", { ...me, body: { set: { [`p${i}`]: { value: i } } } });
        }
      };
      const before = Array.from({ length: 20 }, (_, i) => writes(i));
      const deletion = deleteAccount(p);
      const afterwards = Array.from({ length: 20 }, (_, i) => writes(i + 20));
      const answers = await Promise.all([...before, deletion, ...afterwards]);
      expect((await deletion).status).toBe(204);
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s >= 500)).toEqual([]);
      for (const a of answers.filter((x) => x.status >= 400)) {
        expect(["INVALID_TOKEN", "PLAYER_NOT_FOUND"]).toContain((a.body as { error: { code: string } }).error.code);
      }
      expect(Object.entries(await rowsOf(p.playerId)).filter(([, n]) => n > 0)).toEqual([]);
      const { rows } = await pool().query<{ period: string; entries: number; buckets: number; actual: number }>(
        `SELECT p.period, p.entries,
                (SELECT coalesce(sum(b.entries), 0)::int FROM leaderboard_rank_buckets b
                  WHERE b.project_id = p.project_id AND b.leaderboard_id = p.leaderboard_id AND b.period = p.period) AS buckets,
                (SELECT count(*)::int FROM leaderboard_entries e
                  WHERE e.project_id = p.project_id AND e.leaderboard_id = p.leaderboard_id AND e.period = p.period) AS actual
           FROM leaderboard_periods p WHERE p.project_id = $1`,
        [project.projectId],
      );
      for (const r of rows) expect({ entries: r.entries, buckets: r.buckets }, r.period).toEqual({ entries: r.actual, buckets: r.actual });
    }
  }, 120_000);
});

describe("DELETE /players/me: refused requests change nothing", () => {
  const refusals: Array<[string, (p: TestPlayer) => Promise<ApiResponse>, number, string]> = [
    ["no API key", (p) => api("DELETE", "/api/v1/players/me", { token: p.accessToken }), 401, "MISSING_API_KEY"],
    ["no bearer token", () => api("DELETE", "/api/v1/players/me", { key: project.clientKey }), 401, "MISSING_TOKEN"],
    ["malformed JSON", (p) => api("DELETE", "/api/v1/players/me", { ...as(p), body: '{"password": ' }), 400, "INVALID_JSON"],
    ["a password that is not a string", (p) => deleteAccount(p, { password: 12345678 }), 400, "VALIDATION_ERROR"],
    ["an unknown field", (p) => deleteAccount(p, { password: PASSWORD, force: true }), 400, "VALIDATION_ERROR"],
    ["a body over 2 MiB", (p) => deleteAccount(p, { password: "x".repeat(2 * 1024 * 1024 + 10) }), 413, "PAYLOAD_TOO_LARGE"],
    [
      "a body that is not JSON",
      (p) => api("DELETE", "/api/v1/players/me", { ...as(p), headers: { "Content-Type": "text/plain" }, body: "password" }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    ],
  ];
  for (const [name, send, status, code] of refusals) {
    it(`${name} → ${status} ${code}, the account stays`, async () => {
      const p = await emailPlayer();
      const before = await ownedRows(p.playerId);
      expectError(await send(p), status, code);
      expect(await ownedRows(p.playerId)).toEqual(before);
    });
  }

  it("another project's API key with the player's token → 401 INVALID_TOKEN (project), the account stays", async () => {
    const other = await makeProject();
    const p = await emailPlayer();
    const res = await deleteAccount(p, { password: PASSWORD }, other.clientKey);
    expectError(res, 401, "INVALID_TOKEN");
    expect(res.body).toMatchObject({ error: { details: { reason: "project" } } });
    expect(await prisma().player.count({ where: { id: p.playerId } })).toBe(1);
  });
});

type Export = {
  profile: { playerId: string; email: string | null; displayName: string | null };
  identities: Array<{ provider: string; subject: string }>;
  data: Array<{ key: string; value: unknown; visibility: string }>;
  saves: Array<{ key: string; data: unknown; meta: unknown }>;
  leaderboardEntries: Array<{ leaderboardId: string; period: string; current: boolean; score: number }>;
  balances: Array<{ currencyId: string; balance: number }>;
  inventory: Array<{ itemId: string; quantity: number }>;
  ledger: Array<{ kind: string; purchaseId: string | null }>;
  sessions: Array<{ id: string; revokedAt: string | null }>;
};

describe("GET /players/me/export", () => {
  let p: TestPlayer & { email: string };
  let other: TestPlayer;
  let doc: Export;
  let text: string;

  beforeAll(async () => {
    const local = project;
    p = await emailPlayer();
    other = await anonymousPlayer(local.clientKey);
    await fillAccount(p);
    await fillAccount(other);
    await prisma().identity.create({
      data: { projectId: local.projectId, playerId: p.playerId, provider: "steam", subject: "steam-76561" },
    });
    // An archived period: reset the board, wait until the app sees the new (empty) period, then score again.
    await resetLeaderboard({ projectId: local.projectId, id: BOARD });
    for (let tries = 0; ; tries++) {
      const page = await api<{ total: number }>("GET", `/api/v1/leaderboards/${BOARD}`, { key: local.clientKey });
      if (page.body.total === 0) break;
      expect(tries, "the app never saw the reset").toBeLessThan(500);
    }
    expect((await api("POST", `/api/v1/leaderboards/${BOARD}/scores`, { ...as(p), body: { score: 75 } })).status).toBe(200);
    const res = await api<Export>("GET", "/api/v1/players/me/export", as(p));
    expect(res.status).toBe(200);
    doc = res.body;
    text = res.text;
  });

  it("holds the profile with the e-mail and the linked identities", () => {
    expect(doc.profile).toMatchObject({ playerId: p.playerId, email: p.email, displayName: "Lena" });
    expect(doc.identities).toEqual([expect.objectContaining({ provider: "steam", subject: "steam-76561" })]);
  });

  it("holds every data key of every visibility with its value, and every save with its data", () => {
    expect(doc.data.map((d) => [d.key, d.visibility, d.value])).toEqual([
      ["private-key", "private", { hp: 1 }],
      ["protected-key", "protected", 7],
      ["public-key", "public", "hi"],
    ]);
    expect(doc.saves.map((s) => [s.key, s.data, s.meta])).toEqual([["slot-1", { level: 4 }, { label: "one" }]]);
  });

  it("holds the entries of the current and the archived period", () => {
    const mine = doc.leaderboardEntries.filter((e) => e.leaderboardId === BOARD);
    expect(mine.map((e) => [e.current, e.score]).sort()).toEqual([
      [false, 50],
      [true, 75],
    ]);
  });

  it("holds balances, inventory, the ledger and the sessions", () => {
    expect(doc.balances).toEqual([expect.objectContaining({ currencyId: "coins", balance: 99 })]);
    expect(doc.inventory).toEqual([expect.objectContaining({ itemId: "potion", quantity: 1 })]);
    expect(doc.ledger).toEqual([expect.objectContaining({ kind: "purchase", purchaseId: "buy-potion" })]);
    expect(doc.sessions.length).toBe(1);
  });

  it("holds nothing of another player and no secret: no hash, no token", async () => {
    expect(text).not.toContain(other.playerId);
    const hash = await prisma().player.findUniqueOrThrow({ where: { id: p.playerId }, select: { passwordHash: true } });
    expect(hash.passwordHash).toBeTruthy();
    expect(text).not.toContain(String(hash.passwordHash));
    expect(text).not.toContain("$argon2");
    expect(text).not.toContain(p.refreshToken);
    expect(text).not.toContain(p.accessToken);
    expect(text).not.toMatch(/hash"|password|token/i);
  });

  it("another player's export is 403 FORBIDDEN", async () => {
    expectError(await api("GET", `/api/v1/players/${p.playerId}/export`, as(other)), 403, "FORBIDDEN");
  });

  it("a server key acting as a banned player gets its export (a data-subject right)", async () => {
    const banned = await anonymousPlayer(project.clientKey);
    await pool().query("UPDATE players SET banned_at = now() WHERE id = $1", [banned.playerId]);
    const res = await api<Export>("GET", "/api/v1/players/me/export", {
      key: project.serverKey,
      headers: { "X-Player-Id": banned.playerId },
    });
    expect(res.status, res.text).toBe(200);
  });

  it("a server key acting as the player gets the same export", async () => {
    const res = await api<Export>("GET", "/api/v1/players/me/export", { key: project.serverKey, headers: { "X-Player-Id": p.playerId } });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBe(3);
  });
});
