import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { PlayerActor } from "@/server/actor";
import { pool, transaction } from "@/server/db";
import { claimIdempotencyKey, requestHash } from "@/server/http/idempotency";
import { createLeaderboard, resetLeaderboard, updateLeaderboard } from "@/server/services/leaderboards/definitions";
import { getLeaderboardPage, getPeriodPage, listPeriods, removeEntry, submitScore } from "@/server/services/leaderboards/entries";
import type { CreateLeaderboard, Entry } from "@/server/services/leaderboards/schemas";
import { banPlayer } from "@/server/services/players/bans";
import { type ApiOptions, api, definitionCachesExpired, expectError, sessionCachesExpired, untilAnswered } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";

type Page = { id: string; total: number; offset: number; limit: number; resetsAt: string | null; entries: Entry[] };
type Submitted = Entry & { updated: boolean };

let project: TestProject;
beforeAll(async () => {
  project = await makeProject();
});

const boardId = () => `b-${randomBytes(4).toString("hex")}`;
async function board(input: Omit<CreateLeaderboard, "id" | "name"> & { name?: string }): Promise<string> {
  const id = boardId();
  await createLeaderboard({ projectId: project.projectId, input: { id, name: input.name ?? id, ...input } });
  return id;
}
const as = (p: TestPlayer): ApiOptions => ({ key: project.clientKey, token: p.accessToken });
const submit = (id: string, p: TestPlayer, score: unknown, extra: ApiOptions = {}) =>
  api<Submitted>("POST", `/api/v1/leaderboards/${id}/scores`, { ...as(p), body: { score }, ...extra });
const page = (id: string, offset = 0, limit = 100) =>
  api<Page>("GET", `/api/v1/leaderboards/${id}?offset=${offset}&limit=${limit}`, { key: project.clientKey });
const players = (n: number) => Promise.all(Array.from({ length: n }, () => anonymousPlayer(project.clientKey)));

/** What the board should hold after a sequence of submits: the operator's model, ties by who reached the score first. */
function model(operator: string, sortOrder: string, submits: Array<[number, number]>): Array<{ who: number; score: number }> {
  const state = new Map<number, { score: number; reached: number }>();
  submits.forEach(([who, value], i) => {
    const old = state.get(who);
    let next: number;
    if (operator === "increment") next = (old?.score ?? 0) + value;
    else if (operator === "decrement") next = (old?.score ?? 0) - value;
    else if (operator === "latest" || !old) next = value;
    else next = (sortOrder === "desc" ? value > old.score : value < old.score) ? value : old.score;
    if (!old || next !== old.score) state.set(who, { score: next, reached: i });
  });
  const dir = sortOrder === "desc" ? -1 : 1;
  return [...state.entries()]
    .sort(([, a], [, b]) => dir * (a.score - b.score) || a.reached - b.reached)
    .map(([who, s]) => ({ who, score: s.score }));
}

describe("POST /leaderboards/{id}/scores and GET /leaderboards/{id}: operators and sort orders", () => {
  const SUBMITS: Array<[number, number]> = [
    [0, 10],
    [1, 20],
    [0, 5],
    [2, 20],
    [1, 15],
    [2, 30],
    [0, 30],
  ];
  for (const operator of ["best", "latest", "increment", "decrement"] as const) {
    for (const sortOrder of ["desc", "asc"] as const) {
      it(`${operator} / ${sortOrder}: ranks follow the operator, ties by who reached the score first`, async () => {
        const id = await board({ sortOrder, operator });
        const ps = await players(3);
        for (const [who, value] of SUBMITS) {
          const res = await submit(id, ps[who] as TestPlayer, value);
          expect(res.status).toBe(200);
        }
        const res = await page(id);
        expect(res.status).toBe(200);
        const expected = model(operator, sortOrder, SUBMITS);
        expect(res.body.total).toBe(3);
        expect(res.body.entries.map((e) => ({ playerId: e.playerId, score: e.score, rank: e.rank }))).toEqual(
          expected.map((e, i) => ({ playerId: (ps[e.who] as TestPlayer).playerId, score: e.score, rank: i + 1 })),
        );
      });
    }
  }

  it("best: a worse or equal score answers the stored entry with updated: false; a better one updated: true with its rank", async () => {
    const id = await board({ sortOrder: "desc", operator: "best" });
    const [a, b] = (await players(2)) as [TestPlayer, TestPlayer];
    expect((await submit(id, a, 50)).body).toMatchObject({ score: 50, rank: 1, updated: true, playerId: a.playerId });
    expect((await submit(id, b, 60)).body).toMatchObject({ score: 60, rank: 1, updated: true });
    expect((await submit(id, a, 40)).body).toMatchObject({ score: 50, rank: 2, updated: false });
    expect((await submit(id, a, 50)).body).toMatchObject({ score: 50, rank: 2, updated: false });
    expect((await submit(id, a, 70)).body).toMatchObject({ score: 70, rank: 1, updated: true });
  });

  it("equal scores rank by who reached them first, and re-submitting the same score keeps the place", async () => {
    const id = await board({ sortOrder: "desc", operator: "best" });
    const ps = await players(3);
    for (const p of ps) await submit(id, p, 100);
    await submit(id, ps[0] as TestPlayer, 100);
    const res = await page(id);
    expect(res.body.entries.map((e) => e.playerId)).toEqual(ps.map((p) => p.playerId));
    expect(res.body.entries.map((e) => e.rank)).toEqual([1, 2, 3]);
  });

  it("shows display names from the players' profiles and keeps metadata", async () => {
    const id = await board({ sortOrder: "desc", operator: "best" });
    const [a] = (await players(1)) as [TestPlayer];
    await api("PATCH", "/api/v1/players/me", { ...as(a), body: { displayName: "Ada" } });
    const res = await submit(id, a, 5, { body: { score: 5, metadata: { level: "1-2", character: "mage" } } });
    expect(res.body).toMatchObject({ displayName: "Ada", metadata: { level: "1-2", character: "mage" } });
    expect((await page(id)).body.entries[0]).toMatchObject({ displayName: "Ada", metadata: { level: "1-2", character: "mage" } });
  });
});

describe("bounds, writability, bans and bad input", () => {
  it("refuses scores outside minScore/maxScore with 422 SCORE_OUT_OF_RANGE and stores nothing", async () => {
    const id = await board({ sortOrder: "desc", operator: "best", minScore: 0, maxScore: 1000 });
    const [a] = (await players(1)) as [TestPlayer];
    expectError(await submit(id, a, -1), 422, "SCORE_OUT_OF_RANGE");
    expectError(await submit(id, a, 1000.5), 422, "SCORE_OUT_OF_RANGE");
    expect((await page(id)).body.total).toBe(0);
    expect((await submit(id, a, 1000)).status).toBe(200);
  });

  it("increment boards check the resulting score: a submit past maxScore changes nothing", async () => {
    const id = await board({ sortOrder: "desc", operator: "increment", minScore: 0, maxScore: 10 });
    const [a] = (await players(1)) as [TestPlayer];
    expect((await submit(id, a, 8)).body.score).toBe(8);
    expectError(await submit(id, a, 3), 422, "SCORE_OUT_OF_RANGE");
    expectError(await submit(id, a, -9), 422, "SCORE_OUT_OF_RANGE");
    expect((await page(id)).body.entries[0]?.score).toBe(8);
  });

  it("a decrement board with minScore 0 refuses a first decrement (it would start below 0)", async () => {
    const id = await board({ sortOrder: "desc", operator: "decrement", minScore: 0 });
    const [a] = (await players(1)) as [TestPlayer];
    expectError(await submit(id, a, 1), 422, "SCORE_OUT_OF_RANGE");
    expect((await page(id)).body.total).toBe(0);
  });

  it("server-only boards refuse client keys (403 CLIENT_WRITE_FORBIDDEN) and accept a server key with X-Player-Id", async () => {
    const id = await board({ sortOrder: "desc", operator: "best", clientWritable: false });
    const [a] = (await players(1)) as [TestPlayer];
    expectError(await submit(id, a, 5), 403, "CLIENT_WRITE_FORBIDDEN");
    const res = await api<Submitted>("POST", `/api/v1/leaderboards/${id}/scores`, {
      key: project.serverKey,
      headers: { "X-Player-Id": a.playerId },
      body: { score: 5 },
    });
    expect(res.status).toBe(200);
    expect(res.body.playerId).toBe(a.playerId);
    const read = await api<Entry>("GET", `/api/v1/leaderboards/${id}/player`, {
      key: project.serverKey,
      headers: { "X-Player-Id": a.playerId },
    });
    expect(read.body).toMatchObject({ playerId: a.playerId, score: 5, rank: 1 });
  });

  it("a banned player cannot submit (403 PLAYER_BANNED)", async () => {
    const id = await board({ sortOrder: "desc", operator: "best" });
    const [a] = (await players(1)) as [TestPlayer];
    await banPlayer({ projectId: project.projectId, playerId: a.playerId, reason: "cheating" });
    await sessionCachesExpired();
    expectError(await submit(id, a, 5), 403, "PLAYER_BANNED");
    expect((await page(id)).body.total).toBe(0);
  });

  it("rejects wrong types, huge numbers, oversized metadata and unknown fields with 400 and stores nothing", async () => {
    const id = await board({ sortOrder: "desc", operator: "best" });
    const [a] = (await players(1)) as [TestPlayer];
    for (const body of [
      { score: "10" },
      { score: null },
      {},
      { score: 1e300 },
      { score: 2 ** 53 + 2 },
      { score: 1, metadata: "x" },
      { score: 1, metadata: { blob: "x".repeat(1100) } },
      { score: 1, rank: 1 },
      [1],
    ]) {
      expectError(await submit(id, a, 0, { body }), 400, "VALIDATION_ERROR");
    }
    expectError(await submit(id, a, 0, { body: "{not json" }), 400, "INVALID_JSON");
    expect((await page(id)).body.total).toBe(0);
  });

  it("unknown boards, another project's boards, bad slugs and bad paging answer 404 / 400", async () => {
    const other = await makeProject();
    const theirs = boardId();
    await createLeaderboard({ projectId: other.projectId, input: { id: theirs, name: "theirs", sortOrder: "desc", operator: "best" } });
    const [a] = (await players(1)) as [TestPlayer];
    expectError(await page(theirs), 404, "LEADERBOARD_NOT_FOUND");
    expectError(await submit(theirs, a, 1), 404, "LEADERBOARD_NOT_FOUND");
    expectError(await api("GET", `/api/v1/leaderboards/${theirs}/player`, as(a)), 404, "LEADERBOARD_NOT_FOUND");
    expectError(await page("nope-nothing"), 404, "LEADERBOARD_NOT_FOUND");
    expectError(await api("GET", "/api/v1/leaderboards/Bad%20Slug", { key: project.clientKey }), 400, "VALIDATION_ERROR");
    const mine = await board({ sortOrder: "desc", operator: "best" });
    for (const q of ["limit=0", "limit=101", "offset=-1", "limit=abc", "extra=1"]) {
      expectError(await api("GET", `/api/v1/leaderboards/${mine}?${q}`, { key: project.clientKey }), 400, "VALIDATION_ERROR");
    }
    expectError(await api("GET", `/api/v1/leaderboards/${mine}/player`, as(a)), 404, "ENTRY_NOT_FOUND");
    expectError(await api("GET", `/api/v1/leaderboards/${mine}`), 401, "MISSING_API_KEY");
  });
});

describe("limited-time boards (startsAt / endsAt)", () => {
  const HOUR = 3_600_000;
  const at = (ms: number) => new Date(Date.now() + ms).toISOString();
  type Windowed = Page & { startsAt: string | null; endsAt: string | null };

  it("a board that has not started refuses scores with 409 LEADERBOARD_NOT_OPEN naming the window, stores nothing, and reads work", async () => {
    const startsAt = at(24 * HOUR);
    const endsAt = at(48 * HOUR);
    const id = await board({ sortOrder: "desc", operator: "best", startsAt, endsAt });
    const [a] = (await players(1)) as [TestPlayer];
    const res = await submit(id, a, 10);
    expectError(res, 409, "LEADERBOARD_NOT_OPEN");
    const error = (res.body as unknown as { error: { message: string; details: Record<string, unknown> } }).error;
    expect(error.message).toBe(`This leaderboard has not started: it accepts scores from ${startsAt} until ${endsAt} (UTC).`);
    expect(error.details).toMatchObject({ startsAt, endsAt });
    const read = await api<Windowed>("GET", `/api/v1/leaderboards/${id}`, { key: project.clientKey });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ total: 0, startsAt, endsAt });
  });

  it("a board whose end has passed refuses scores and changes nothing; its entries stay readable", async () => {
    const id = await board({ sortOrder: "desc", operator: "best", startsAt: at(-HOUR), endsAt: at(HOUR) });
    const [a, b] = (await players(2)) as [TestPlayer, TestPlayer];
    expect((await submit(id, a, 10)).status).toBe(200);
    const endsAt = at(-60_000);
    await updateLeaderboard({ projectId: project.projectId, id, input: { endsAt } });
    await definitionCachesExpired();
    const late = await submit(id, a, 99);
    expectError(late, 409, "LEADERBOARD_NOT_OPEN");
    expect((late.body as unknown as { error: { message: string } }).error.message).toMatch(
      /^This leaderboard has ended: it accepts scores from .* until /,
    );
    expectError(await submit(id, b, 5), 409, "LEADERBOARD_NOT_OPEN");
    const read = await page(id);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ total: 1, endsAt });
    expect(read.body.entries.map((e) => [e.playerId, e.score])).toEqual([[a.playerId, 10]]);
  });

  it("an open-ended window (startsAt only, in the past) accepts scores; a board without a window answers null for both", async () => {
    const id = await board({ sortOrder: "desc", operator: "best", startsAt: at(-HOUR) });
    const plain = await board({ sortOrder: "desc", operator: "best" });
    const [a] = (await players(1)) as [TestPlayer];
    expect((await submit(id, a, 3)).status).toBe(200);
    expect((await api<Windowed>("GET", `/api/v1/leaderboards/${plain}`, { key: project.clientKey })).body).toMatchObject({
      startsAt: null,
      endsAt: null,
    });
  });

  it("a window that ends before it starts is refused with VALIDATION_ERROR and changes nothing", async () => {
    const id = boardId();
    const input = { id, name: id, sortOrder: "desc", operator: "best", startsAt: at(2 * HOUR), endsAt: at(HOUR) } as const;
    await expect(createLeaderboard({ projectId: project.projectId, input })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
      message: "The end (endsAt) must be after the start (startsAt).",
    });
    expectError(await page(id), 404, "LEADERBOARD_NOT_FOUND");
    const kept = await board({ sortOrder: "desc", operator: "best", startsAt: at(2 * HOUR) });
    await expect(updateLeaderboard({ projectId: project.projectId, id: kept, input: { endsAt: at(HOUR) } })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
    });
    const { rows } = await pool().query("SELECT ends_at FROM leaderboards WHERE project_id = $1 AND id = $2", [project.projectId, kept]);
    expect(rows).toEqual([{ ends_at: null }]);
  });
});

describe("concurrency and idempotency", () => {
  it("200 parallel increments from one player sum exactly", async () => {
    const id = await board({ sortOrder: "desc", operator: "increment" });
    const [a] = (await players(1)) as [TestPlayer];
    const amounts = Array.from({ length: 200 }, (_, i) => (i % 7) + 1);
    const results = await Promise.all(amounts.map((n) => untilAnswered(() => submit(id, a, n))));
    expect(results.map((r) => r.status).every((s) => s === 200)).toBe(true);
    const sum = amounts.reduce((x, y) => x + y, 0);
    expect((await page(id)).body.entries[0]?.score).toBe(sum);
    expect(Math.max(...results.map((r) => r.body.score))).toBe(sum);
  });

  it("a retried increment with the same Idempotency-Key and body is replayed, not counted twice", async () => {
    const id = await board({ sortOrder: "desc", operator: "increment" });
    const [a] = (await players(1)) as [TestPlayer];
    const headers = { "Idempotency-Key": `inc-${randomBytes(4).toString("hex")}` };
    const first = await submit(id, a, 5, { headers });
    const again = await submit(id, a, 5, { headers });
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expectError(await submit(id, a, 6, { headers }), 422, "IDEMPOTENCY_KEY_REUSED");
    expect((await page(id)).body.entries[0]?.score).toBe(5);
    // Keys are per player: another player may use the same key.
    const [b] = (await players(1)) as [TestPlayer];
    expect((await submit(id, b, 5, { headers })).headers.get("idempotent-replayed")).toBeNull();
  });

  it("the same key sent 30 times in parallel changes the score once; the others replay or answer 409 IDEMPOTENCY_IN_PROGRESS", async () => {
    const id = await board({ sortOrder: "desc", operator: "increment" });
    const [a] = (await players(1)) as [TestPlayer];
    const headers = { "Idempotency-Key": `par-${randomBytes(4).toString("hex")}` };
    const results = await Promise.all(Array.from({ length: 30 }, () => submit(id, a, 3, { headers })));
    for (const r of results) {
      if (r.status === 200) continue;
      expectError(r, 409, "IDEMPOTENCY_IN_PROGRESS");
    }
    expect(results.filter((r) => r.status === 200 && !r.headers.get("idempotent-replayed"))).toHaveLength(1);
    expect((await page(id)).body.entries[0]?.score).toBe(3);
  });

  it("answers 409 IDEMPOTENCY_IN_PROGRESS while a claim is in flight; once its transaction is gone, the retry runs at once", async () => {
    const id = await board({ sortOrder: "desc", operator: "increment", maxScore: 10 });
    const [a] = (await players(1)) as [TestPlayer];
    const key = `flight-${randomBytes(4).toString("hex")}`;
    const scope = {
      projectId: project.projectId,
      playerId: a.playerId,
      key,
      requestHash: requestHash("POST", `/api/v1/leaderboards/${id}/scores`, { score: 2 }),
    };
    // The first request, as another instance runs it: its claim is held in its open transaction.
    let finish: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let claimed: () => void = () => undefined;
    const claimedNow = new Promise<void>((resolve) => {
      claimed = resolve;
    });
    const first = transaction(async () => {
      await claimIdempotencyKey(scope);
      claimed();
      await held;
      throw new Error("the first request's process died"); // its transaction rolls back, claim included
    }).catch(() => "rolled back");
    await claimedNow;
    expectError(await submit(id, a, 2, { headers: { "Idempotency-Key": key } }), 409, "IDEMPOTENCY_IN_PROGRESS");
    expect((await page(id)).body.total).toBe(0);
    finish();
    expect(await first).toBe("rolled back");
    const retried = await submit(id, a, 2, { headers: { "Idempotency-Key": key } });
    expect([retried.status, retried.headers.get("idempotent-replayed")]).toEqual([200, null]);
    expect((await page(id)).body.entries.map((e) => e.score)).toEqual([2]);
  });

  it("an incomplete claim committed by an earlier version's crashed process does not block the retry", async () => {
    const id = await board({ sortOrder: "desc", operator: "increment", maxScore: 10 });
    const [a] = (await players(1)) as [TestPlayer];
    const key = `leftover-${randomBytes(4).toString("hex")}`;
    await pool().query("INSERT INTO idempotency_keys (project_id, player_id, key, request_hash) VALUES ($1, $2, $3, $4)", [
      project.projectId,
      a.playerId,
      key,
      requestHash("POST", `/api/v1/leaderboards/${id}/scores`, { score: 3 }),
    ]);
    const retried = await submit(id, a, 3, { headers: { "Idempotency-Key": key } });
    expect([retried.status, retried.headers.get("idempotent-replayed")]).toEqual([200, null]);
    const replayed = await submit(id, a, 3, { headers: { "Idempotency-Key": key } });
    expect([replayed.status, replayed.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
    expect((await page(id)).body.entries.map((e) => e.score)).toEqual([3]);
  });

  it("a refused request leaves no claim: its retry runs again", async () => {
    const id = await board({ sortOrder: "desc", operator: "increment", maxScore: 10 });
    const [a] = (await players(1)) as [TestPlayer];
    // Out of range: refused, changed nothing, not recorded — the retry runs again.
    const refusedKey = { "Idempotency-Key": `refused-${randomBytes(4).toString("hex")}` };
    expectError(await submit(id, a, 11, { headers: refusedKey }), 422, "SCORE_OUT_OF_RANGE");
    await updateLeaderboard({ projectId: project.projectId, id, input: { maxScore: 100 } });
    await definitionCachesExpired();
    const retried = await submit(id, a, 11, { headers: refusedKey });
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expectError(await submit(id, a, 1, { headers: { "Idempotency-Key": "bad key with spaces" } }), 400, "VALIDATION_ERROR");
  });
});

describe("reading a board", () => {
  let id: string;
  let ps: TestPlayer[];
  beforeAll(async () => {
    id = await board({ sortOrder: "desc", operator: "best" });
    ps = await players(57);
    // Scores with many ties: 57 players over 10 distinct scores.
    for (const [i, p] of ps.entries()) await submit(id, p, (i * 7) % 10);
  });

  it("paging through the board gives each player exactly once, with consecutive ranks", async () => {
    const seen: Entry[] = [];
    for (let offset = 0; ; offset += 10) {
      const res = await page(id, offset, 10);
      expect(res.body.total).toBe(57);
      seen.push(...res.body.entries);
      if (res.body.entries.length < 10) break;
    }
    expect(seen.map((e) => e.rank)).toEqual(Array.from({ length: 57 }, (_, i) => i + 1));
    expect(new Set(seen.map((e) => e.playerId)).size).toBe(57);
    const scores = seen.map((e) => e.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
  });

  it("around-player neighbours at the top, in the middle and at the bottom", async () => {
    const all = (await page(id, 0, 100)).body.entries;
    const byRank = (rank: number) => all[rank - 1] as Entry;
    const at = async (rank: number) => {
      const p = ps.find((x) => x.playerId === byRank(rank).playerId) as TestPlayer;
      const res = await api<Entry & { above: Entry[]; below: Entry[] }>("GET", `/api/v1/leaderboards/${id}/player?range=3`, as(p));
      expect(res.status).toBe(200);
      return res.body;
    };
    const top = await at(1);
    expect(top.rank).toBe(1);
    expect(top.above).toEqual([]);
    expect(top.below.map((e) => e.rank)).toEqual([2, 3, 4]);
    const middle = await at(30);
    expect(middle.above.map((e) => e.rank)).toEqual([27, 28, 29]);
    expect(middle.below.map((e) => e.rank)).toEqual([31, 32, 33]);
    expect([...middle.above, middle, ...middle.below].map((e) => e.playerId)).toEqual(all.slice(26, 33).map((e) => e.playerId));
    const bottom = await at(57);
    expect(bottom.above.map((e) => e.rank)).toEqual([54, 55, 56]);
    expect(bottom.below).toEqual([]);
    const plain = await api<Entry>("GET", `/api/v1/leaderboards/${id}/player`, as(ps[0] as TestPlayer));
    expect(plain.body).not.toHaveProperty("above");
    for (const q of ["range=0", "range=51", "range=x"]) {
      expectError(await api("GET", `/api/v1/leaderboards/${id}/player?${q}`, as(ps[0] as TestPlayer)), 400, "VALIDATION_ERROR");
    }
  });

  it("removing an entry (operator) moves everyone below it up one rank", async () => {
    const before = (await page(id, 0, 100)).body.entries;
    const removed = before[4] as Entry;
    await removeEntry({ projectId: project.projectId, leaderboardId: id, playerId: removed.playerId });
    const after = (await page(id, 0, 100)).body;
    expect(after.total).toBe(56);
    expect(after.entries.map((e) => e.playerId)).toEqual(before.filter((e) => e.playerId !== removed.playerId).map((e) => e.playerId));
    expect(after.entries.map((e) => e.rank)).toEqual(Array.from({ length: 56 }, (_, i) => i + 1));
    await expect(removeEntry({ projectId: project.projectId, leaderboardId: id, playerId: removed.playerId })).rejects.toMatchObject({
      code: "ENTRY_NOT_FOUND",
    });
  });
});

describe("periods", () => {
  const actorOf = (p: TestPlayer): PlayerActor => ({ kind: "player", projectId: project.projectId, playerId: p.playerId, via: "token" });

  it("a daily board moves to a new, empty period at midnight UTC and archives the old one", async () => {
    const id = await board({ sortOrder: "desc", operator: "increment", resetSchedule: "daily" });
    const [a, b] = (await players(2)) as [TestPlayer, TestPlayer];
    const before = new Date("2031-03-14T23:59:59.999Z");
    const after = new Date("2031-03-15T00:00:00.000Z");
    await submitScore({ actor: actorOf(a), leaderboardId: id, score: 5, now: before });
    await submitScore({ actor: actorOf(b), leaderboardId: id, score: 3, now: before });
    const old = await getLeaderboardPage({ projectId: project.projectId, leaderboardId: id, offset: 0, limit: 10, now: before });
    expect(old.total).toBe(2);
    expect(old.resetsAt).toBe("2031-03-15T00:00:00.000Z");
    const fresh = await getLeaderboardPage({ projectId: project.projectId, leaderboardId: id, offset: 0, limit: 10, now: after });
    expect(fresh).toMatchObject({ total: 0, entries: [], resetsAt: "2031-03-16T00:00:00.000Z" });
    const next = await submitScore({ actor: actorOf(b), leaderboardId: id, score: 1, now: after });
    expect(next).toMatchObject({ score: 1, rank: 1 }); // a new period: the increment starts from zero
    const periods = await listPeriods({ projectId: project.projectId, leaderboardId: id, now: after });
    expect(periods.map((p) => ({ entries: p.entries, current: p.current }))).toEqual([
      { entries: 1, current: true },
      { entries: 2, current: false },
    ]);
    const archived = await getPeriodPage({
      projectId: project.projectId,
      leaderboardId: id,
      period: (periods[1] as { period: string }).period,
      offset: 0,
      limit: 10,
    });
    expect(archived.entries.map((e) => [e.playerId, e.score, e.rank])).toEqual([
      [a.playerId, 5, 1],
      [b.playerId, 3, 2],
    ]);
  });

  it("reset now archives the current period: the API shows an empty board, the archive keeps the entries", async () => {
    const id = await board({ sortOrder: "desc", operator: "best" });
    const [a] = (await players(1)) as [TestPlayer];
    await submit(id, a, 9);
    await resetLeaderboard({ projectId: project.projectId, id });
    await definitionCachesExpired();
    expect((await page(id)).body).toMatchObject({ total: 0, entries: [] });
    expectError(await api("GET", `/api/v1/leaderboards/${id}/player`, as(a)), 404, "ENTRY_NOT_FOUND");
    const periods = await listPeriods({ projectId: project.projectId, leaderboardId: id });
    expect(periods).toHaveLength(1);
    expect(periods[0]).toMatchObject({ entries: 1, current: false });
    expect((await submit(id, a, 4)).body).toMatchObject({ score: 4, rank: 1, updated: true });
  });
});
