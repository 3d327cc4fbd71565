import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { pool } from "@/server/db";
import { createLeaderboard, loadLeaderboard } from "@/server/services/leaderboards/definitions";
import { currentPeriod } from "@/server/services/leaderboards/entries";
import { encodeMember, indexKeys } from "@/server/services/leaderboards/rank-index";
import type { Entry } from "@/server/services/leaderboards/schemas";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";
import { type StartedApp, startApp } from "../support/global-setup";
import { logLine, logLines } from "../support/launch.mjs";
import { type PrivateRedis, privateRedis } from "../support/redis-server";

type Page = { total: number; entries: Entry[] };

/** The order Postgres holds: what every read must match, index or not. */
async function truth(projectId: string, boardId: string): Promise<Array<{ playerId: string; score: number }>> {
  const board = await loadLeaderboard(projectId, boardId);
  const { rows } = await pool().query<{ player_id: string; score: number }>(
    "SELECT player_id, score FROM leaderboard_entries WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3 ORDER BY sort_key, seq",
    [projectId, boardId, currentPeriod(board).period],
  );
  return rows.map((r) => ({ playerId: r.player_id, score: r.score }));
}

async function keysOf(projectId: string, boardId: string) {
  return indexKeys(projectId, boardId, currentPeriod(await loadLeaderboard(projectId, boardId)).period);
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function client(baseUrl: string, key: string) {
  const call = async <T>(method: string, p: string, token?: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}${p}`, {
      method,
      headers: {
        "X-API-Key": key,
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...(body ? { "Content-Type": "application/json" } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  return {
    page: (id: string) => call<Page>("GET", `/api/v1/leaderboards/${id}?limit=100`),
    submit: (id: string, p: TestPlayer, score: number) =>
      call<Entry>("POST", `/api/v1/leaderboards/${id}/scores`, p.accessToken, { score }),
    mine: (id: string, p: TestPlayer) =>
      call<Entry & { above: Entry[]; below: Entry[] }>("GET", `/api/v1/leaderboards/${id}/player?range=2`, p.accessToken),
  };
}

describe("the order-preserving member encoding", () => {
  it("sorts like (sort_key, seq) for negative, zero, fractional and huge values", () => {
    const keys = [-(2 ** 53), -1e9, -1.5, -1, -0.25, 0, 1e-300, 0.25, 1, 1.5, 1e9, 2 ** 53];
    const members = keys.flatMap((k) => [encodeMember(k, 7n, "p"), encodeMember(k, 12n, "p")]);
    expect([...members].sort()).toEqual(members);
    expect(encodeMember(-0, 1n, "p")).toBe(encodeMember(0, 1n, "p"));
  });
});

// The suite's app has the index when the suite runs with REDIS_URL (CI always does).
describe.runIf(inject("redisUrl") !== "")("the Redis rank index of the suite's app", () => {
  let project: TestProject;
  let redis: Redis;
  beforeAll(async () => {
    project = await makeProject();
    redis = new Redis(inject("redisUrl"));
  });
  afterAll(() => redis.disconnect());

  it("serves the same ranks as Postgres, and flushed it is rebuilt with the same ranks", async () => {
    const api = client(inject("baseUrl"), project.clientKey);
    const id = `idx-${Date.now()}`;
    await createLeaderboard({ projectId: project.projectId, input: { id, name: id, sortOrder: "desc", operator: "best" } });
    const ps = await Promise.all(Array.from({ length: 40 }, () => anonymousPlayer(project.clientKey)));
    for (const [i, p] of ps.entries()) await api.submit(id, p, (i * 13) % 7);
    const k = await keysOf(project.projectId, id);
    const expected = (await truth(project.projectId, id)).map((e, i) => ({ ...e, rank: i + 1 }));
    const shown = async () => (await api.page(id)).body.entries.map((e) => ({ playerId: e.playerId, score: e.score, rank: e.rank }));

    await api.page(id); // a read finds no complete index and starts the rebuild
    await until(async () => (await redis.exists(k.ready)) === 1, "the index to be built");
    expect(await redis.zcard(k.set)).toBe(40);
    expect(await shown()).toEqual(expected);

    await redis.del(k.set, k.members, k.ready); // flushed
    expect(await shown()).toEqual(expected); // served by Postgres meanwhile
    await until(async () => (await redis.exists(k.ready)) === 1, "the index to be rebuilt");
    expect(await shown()).toEqual(expected);
    const middle = ps.find((p) => p.playerId === expected[20]?.playerId) as TestPlayer;
    const mine = (await api.mine(id, middle)).body;
    expect(mine.rank).toBe(21);
    expect(mine.above.map((e) => e.rank)).toEqual([19, 20]);
    expect(mine.below.map((e) => e.playerId)).toEqual([expected[21]?.playerId, expected[22]?.playerId]);

    // Submits after the rebuild move the index like Postgres.
    const last = ps.find((p) => p.playerId === expected[39]?.playerId) as TestPlayer;
    const top = await api.submit(id, last, 100);
    expect(top.body.rank).toBe(1);
    expect(await shown()).toEqual((await truth(project.projectId, id)).map((e, i) => ({ ...e, rank: i + 1 })));
  });

  it("a rebuild lock another process holds is left alone until its lease lapses, then a read rebuilds and releases it", async () => {
    const api = client(inject("baseUrl"), project.clientKey);
    const id = `lease-${Date.now()}`;
    await createLeaderboard({ projectId: project.projectId, input: { id, name: id, sortOrder: "desc", operator: "best" } });
    const p = await anonymousPlayer(project.clientKey);
    await api.submit(id, p, 5);
    const k = await keysOf(project.projectId, id);
    await until(async () => (await redis.exists(k.ready)) === 1, "the submit's read to build the index");
    await redis.set(k.lock, "another-process", "PX", 1_500); // a holder that died mid-rebuild
    await redis.del(k.ready);
    expect((await api.page(id)).body.entries.map((e) => e.playerId)).toEqual([p.playerId]); // Postgres answers
    expect(await redis.get(k.lock)).toBe("another-process");
    expect(await redis.exists(k.ready)).toBe(0);
    await until(async () => {
      await api.page(id);
      return (await redis.exists(k.ready)) === 1;
    }, "a read after the lease to rebuild the index");
    await until(async () => (await redis.exists(k.lock)) === 0, "the rebuild to release its lock");
  });
});

describe("a Redis outage during submits (a private redis-server the test stops)", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "gb-lb-redis-"));
  let redis: PrivateRedis;
  let app: StartedApp;
  let project: TestProject;
  beforeAll(async () => {
    redis = await privateRedis();
    app = await startApp({
      DATABASE_URL: inject("databaseUrl"),
      JWT_SECRET: inject("jwtSecret"),
      DATA_DIR: dataDir,
      SEED_DEMO: "false",
      REDIS_URL: redis.url,
      TRUST_PROXY: "true",
    });
    project = await makeProject();
  });
  afterAll(async () => {
    await app?.stop();
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("a read Redis did not answer in time (paused past the timeout) misses no update: the index stays ready", async () => {
    const api = client(app.baseUrl, project.clientKey);
    const probe = redis.client();
    const id = `paused-${Date.now()}`;
    await createLeaderboard({ projectId: project.projectId, input: { id, name: id, sortOrder: "desc", operator: "best" } });
    const ps = await Promise.all(Array.from({ length: 3 }, () => anonymousPlayer(project.clientKey)));
    for (const [i, p] of ps.entries()) await api.submit(id, p, i + 1);
    const k = await keysOf(project.projectId, id);
    await until(async () => {
      await api.page(id);
      return (await probe.exists(k.ready)) === 1;
    }, "the index");
    const expected = (await truth(project.projectId, id)).map((e) => e.playerId);

    await probe.call("CLIENT", "PAUSE", "1500", "ALL");
    const during = await api.page(id);
    expect(during.body.entries.map((e) => e.playerId)).toEqual(expected); // from Postgres
    await logLine(app, "the failed read's line", (l) => l.msg === "rank index unavailable, serving from Postgres");
    await probe.ping(); // answered once the pause ends
    expect((await api.page(id)).body.entries.map((e) => e.playerId)).toEqual(expected);
    await logLine(app, "the recovery's line", (l) => l.msg === "the rank index is reachable again; no update was missed");
    expect(await probe.exists(k.ready)).toBe(1);
    expect(logLines(app.output()).some((l) => l.msg === "the rank index is reachable again; indexes are rebuilt as they are read")).toBe(
      false,
    );
    probe.disconnect();
  });

  it("loses no submit: increments keep counting while Redis is down, and reads rebuild the index once it returns", async () => {
    const api = client(app.baseUrl, project.clientKey);
    const probe = redis.client();
    probe.on("error", () => {}); // it reconnects by itself after the restart
    const id = `outage-${Date.now()}`;
    await createLeaderboard({ projectId: project.projectId, input: { id, name: id, sortOrder: "desc", operator: "increment" } });
    const ps = await Promise.all(Array.from({ length: 5 }, () => anonymousPlayer(project.clientKey)));
    const accepted = new Map<string, number>();
    const fire = async (round: number) => {
      const results = await Promise.all(ps.map((p, i) => api.submit(id, p, i + 1 + round)));
      for (const [i, r] of results.entries()) {
        expect(r.status).toBe(200);
        const p = ps[i] as TestPlayer;
        accepted.set(p.playerId, (accepted.get(p.playerId) ?? 0) + i + 1 + round);
      }
    };
    await fire(0);
    await api.page(id);
    await until(async () => (await probe.exists((await keysOf(project.projectId, id)).ready)) === 1, "the index");
    const stopping = redis.stop();
    await Promise.all([fire(1), fire(2), stopping]);
    await fire(3);
    const duringOutage = await api.page(id);
    expect(duringOutage.status).toBe(200);
    await redis.start(); // empty: the index is gone
    await fire(4);
    const expected = [...accepted.entries()].sort(([, a], [, b]) => b - a).map(([playerId, score]) => ({ playerId, score }));
    expect(await truth(project.projectId, id)).toEqual(expected);
    await until(
      async () => {
        const page = (await api.page(id)).body;
        return JSON.stringify(page.entries.map((e) => ({ playerId: e.playerId, score: e.score }))) === JSON.stringify(expected);
      },
      "the API to show every accepted submit",
      60_000,
    );
    // A read without the ready marker starts the rebuild, so keep reading until it is done: a read
    // made while the app's Redis client was still reconnecting (with a back-off, slower on a busy
    // machine) started none, and waiting without reads then timed out.
    await until(
      async () => {
        await api.page(id);
        return (await probe.exists((await keysOf(project.projectId, id)).ready)) === 1;
      },
      "the rebuilt index",
      60_000,
    );
    const page = (await api.page(id)).body;
    expect(page.total).toBe(5);
    expect(page.entries.map((e) => ({ playerId: e.playerId, score: e.score }))).toEqual(expected);
    probe.disconnect();
  }, 120_000);
});
