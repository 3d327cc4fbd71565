import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Deployment, missingBinaries, mixedLoad, startDeployment } from "../load/deploy.mjs";

/**
 * The README's multi-instance deployment, for real: two app instances (separate processes)
 * behind HAProxy (round robin), on one Postgres database reached through PgBouncer in
 * transaction-pooling mode, and one Redis — all private child processes (e2e/load/deploy.mjs).
 * Changes made on one instance, or by a third process through the services (as the dashboard
 * of any instance would), must reach the other at once: they are published over Redis, and each
 * instance drops its cached entry when the message arrives.
 */
const missing = missingBinaries();
if (missing.length && process.env.CI) {
  throw new Error(`CI runs the deployment test: install ${missing.join(", ")} (apt-get install -y ${missing.join(" ")}; .ci/run does)`);
}
if (missing.length) console.warn(`[deployment] skipped: ${missing.join(", ")} not installed (apt-get install -y ${missing.join(" ")})`);

/** The default, left unset: a plan change or key revocation is published over Redis and must show long before it. */
const API_KEY_CACHE_TTL_SECONDS = 30;
/**
 * The default, left unset on the instances. A logout or ban is published over Redis, so it must
 * show on the other instance at once, long before an entry of this age expires.
 */
const SESSION_CACHE_TTL_SECONDS = 30;
/** "At once" for a change heard over Redis: one message, a poll interval, a busy machine; far below the TTL. */
const HEARD_MS = 3_000;

type Res = { status: number; headers: Headers; body: Record<string, unknown>; servedBy: string | null };

async function call(baseUrl: string, method: string, path: string, o: { key?: string; token?: string; body?: unknown } = {}): Promise<Res> {
  const headers: Record<string, string> = {};
  if (o.key) headers["X-API-Key"] = o.key;
  if (o.token) headers.Authorization = `Bearer ${o.token}`;
  if (o.body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await res.text();
  const body = text && res.headers.get("content-type")?.includes("json") ? (JSON.parse(text) as Record<string, unknown>) : {};
  return { status: res.status, headers: res.headers, body, servedBy: res.headers.get("x-served-by") };
}

/** Polls `probe` every 100 ms until it is true; the time it took, in ms. */
async function timeUntil(probe: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (!(await probe())) {
    if (performance.now() - started > timeoutMs) throw new Error(`not seen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return performance.now() - started;
}

/**
 * Polls every base URL (100 ms apart) until `seen(base)` is true for it; per base, the ms it
 * took. Fails when one is not seen within `withinMs`.
 */
async function timeUntilOnEach(bases: string[], seen: (base: string) => Promise<boolean>, withinMs: number): Promise<number[]> {
  const ms = await Promise.all(bases.map((base) => timeUntil(() => seen(base), withinMs)));
  for (const m of ms) expect(m).toBeLessThanOrEqual(withinMs);
  return ms.map(Math.round);
}

describe.skipIf(missing.length > 0)("two instances behind HAProxy, on PgBouncer (transaction pooling) and Redis", () => {
  let deployment: Deployment;
  let a: string;
  let b: string;
  const saved = { ...process.env };
  // The services this file calls run in this process, on the deployment's database and Redis.
  let services: {
    makeProject: typeof import("../support/fixtures").makeProject;
    banPlayer: typeof import("@/server/services/players/bans").banPlayer;
    setProjectPlan: typeof import("@/server/services/projects").setProjectPlan;
    createApiKey: typeof import("@/server/services/projects").createApiKey;
    revokeApiKey: typeof import("@/server/services/projects").revokeApiKey;
    createLeaderboard: typeof import("@/server/services/leaderboards/definitions").createLeaderboard;
  };

  beforeAll(async () => {
    deployment = await startDeployment({
      instances: 2,
      env: {
        RATE_LIMIT_WINDOW_SECONDS: "60",
        // Exact budget counts need the store's answers, not fail-opens of a busy machine.
        RATE_LIMIT_STORE_TIMEOUT_MS: "1000",
      },
    });
    [a, b] = deployment.instances.map((i) => i.baseUrl) as [string, string];
    process.env.DATABASE_URL = deployment.databaseUrl;
    process.env.REDIS_URL = deployment.redisUrl;
    process.env.JWT_SECRET = deployment.jwtSecret;
    const fixtures = await import("../support/fixtures");
    const bans = await import("@/server/services/players/bans");
    const projects = await import("@/server/services/projects");
    const boards = await import("@/server/services/leaderboards/definitions");
    services = { ...fixtures, ...bans, ...projects, ...boards };
  }, 240_000);

  afterAll(async () => {
    const { pool } = await import("@/server/db");
    await pool()
      .end()
      .catch(() => undefined);
    await deployment?.stop();
    for (const name of ["DATABASE_URL", "REDIS_URL", "JWT_SECRET"]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it("HAProxy spreads requests over both instances", async () => {
    const served = [];
    for (let i = 0; i < 6; i++) served.push((await call(deployment.baseUrl, "GET", "/api/health")).servedBy);
    expect(new Set(served)).toEqual(new Set(["app1", "app2"]));
  });

  it("one budget per project across instances: a Free project gets exactly 100 answers through both, then 429 with the contract's headers", async () => {
    const free = await services.makeProject({ plan: "FREE" });
    // The budget is a 60 s sliding window: all 130 requests must fall into one window.
    const msLeft = 60_000 - (Date.now() % 60_000);
    if (msLeft < 15_000) await new Promise((r) => setTimeout(r, msLeft + 100));
    const results: Res[] = [];
    // Eight at a time through HAProxy: both instances draw on the one Redis budget concurrently.
    for (let i = 0; i < 130; i += 8) {
      const batch = Array.from({ length: Math.min(8, 130 - i) }, () =>
        call(deployment.baseUrl, "GET", "/api/v1/auth/anonymous", { key: free.serverKey }),
      );
      results.push(...(await Promise.all(batch)));
    }
    const allowed = results.filter((r) => r.status === 405);
    const refused = results.filter((r) => r.status === 429);
    expect({ allowed: allowed.length, refused: refused.length }).toEqual({ allowed: 100, refused: 30 });
    // Each instance gave some of the 100 and refused some of the 30.
    for (const name of ["app1", "app2"]) {
      expect(allowed.some((r) => r.servedBy === name)).toBe(true);
      expect(refused.some((r) => r.servedBy === name)).toBe(true);
    }
    // One counter: every remaining value from 99 to 0 was handed out exactly once.
    const remaining = allowed.map((r) => Number(r.headers.get("x-ratelimit-remaining"))).sort((x, y) => y - x);
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
    for (const limited of refused) {
      expect(limited.body).toMatchObject({ error: { code: "RATE_LIMITED", details: { limit: 100, windowSeconds: 60, scope: "project" } } });
      const { retryAfterSeconds } = (limited.body.error as { details: { retryAfterSeconds: number } }).details;
      expect(limited.headers.get("retry-after")).toBe(String(retryAfterSeconds));
      expect(limited.headers.get("x-ratelimit-limit")).toBe("100");
      expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(Number(limited.headers.get("x-ratelimit-reset")) * 1000).toBeGreaterThan(Date.now() - 1000);
      expect(limited.headers.get("ratelimit-policy")).toBe(`"project";q=100;w=60`);
      expect(limited.headers.get("ratelimit")).toMatch(/^"project";r=0;t=\d+$/);
      expect(limited.headers.get("x-request-id")).toBeTruthy();
    }
  }, 90_000);

  it(`a logout on instance A reaches instance B at once (within ${HEARD_MS} ms; its cached entry would live ${SESSION_CACHE_TTL_SECONDS} s)`, async () => {
    const project = await services.makeProject();
    const signIn = await call(a, "POST", "/api/v1/auth/anonymous", { key: project.clientKey });
    expect(signIn.status).toBe(200);
    const token = signIn.body.accessToken as string;
    const me = (base: string) => call(base, "GET", "/api/v1/players/me", { key: project.clientKey, token });
    // B has the session cached as live.
    expect((await me(b)).status).toBe(200);
    expect((await me(a)).status).toBe(200);
    expect((await call(a, "POST", "/api/v1/auth/logout", { key: project.clientKey, token })).status).toBe(204);
    expect((await me(a)).status).toBe(401); // the instance that made it forgets at once
    const ms = await timeUntil(async () => (await me(b)).status === 401, HEARD_MS);
    console.log(`[deployment] logout on A refused on B after ${Math.round(ms)} ms (TTL ${SESSION_CACHE_TTL_SECONDS} s)`);
    expect(ms).toBeLessThanOrEqual(HEARD_MS);
  });

  it(`a ban made by a third process reaches both instances at once (within ${HEARD_MS} ms; cached entries would live ${SESSION_CACHE_TTL_SECONDS} s)`, async () => {
    const project = await services.makeProject();
    const signIn = await call(a, "POST", "/api/v1/auth/anonymous", { key: project.clientKey });
    const token = signIn.body.accessToken as string;
    const me = (base: string) => call(base, "GET", "/api/v1/players/me", { key: project.clientKey, token });
    expect([(await me(a)).status, (await me(b)).status]).toEqual([200, 200]);
    // Banned by a third process (the dashboard of any instance does the same): it publishes the revocation on Redis.
    await services.banPlayer({ projectId: project.projectId, playerId: signIn.body.playerId as string, reason: "cheating" });
    const refusedOn = async (base: string) => [401, 403].includes((await me(base)).status);
    const ms = await timeUntilOnEach([a, b], refusedOn, HEARD_MS);
    console.log(`[deployment] ban refused on A after ${ms[0]} ms, on B after ${ms[1]} ms (TTL ${SESSION_CACHE_TTL_SECONDS} s)`);
    // A fresh sign-in is refused as banned through either instance.
    for (const base of [a, b]) {
      const again = await call(base, "POST", "/api/v1/auth/refresh", {
        key: project.clientKey,
        body: { refreshToken: signIn.body.refreshToken },
      });
      expect([401, 403]).toContain(again.status);
    }
  });

  it(`a plan change reaches both instances at once (within ${HEARD_MS} ms; cached keys would live ${API_KEY_CACHE_TTL_SECONDS} s)`, async () => {
    const project = await services.makeProject({ plan: "FREE" });
    const limitOn = async (base: string) =>
      (await call(base, "GET", "/api/v1/auth/anonymous", { key: project.serverKey })).headers.get("x-ratelimit-limit");
    expect([await limitOn(a), await limitOn(b)]).toEqual(["100", "100"]);
    await services.setProjectPlan({ projectId: project.projectId, plan: "PRO" });
    const changedOn = async (base: string) => (await limitOn(base)) !== "100";
    const ms = await timeUntilOnEach([a, b], changedOn, HEARD_MS);
    console.log(`[deployment] plan change seen on A after ${ms[0]} ms, on B after ${ms[1]} ms (TTL ${API_KEY_CACHE_TTL_SECONDS} s)`);
    expect(await limitOn(a)).toBe(await limitOn(b));
  });

  it(`an API key revocation reaches both instances at once (within ${HEARD_MS} ms; cached keys would live ${API_KEY_CACHE_TTL_SECONDS} s)`, async () => {
    const project = await services.makeProject();
    const key = await services.createApiKey({ projectId: project.projectId, kind: "CLIENT", name: "to revoke" });
    // A sign-in: answered only for a valid key (a 405 or 404 is answered whatever the key).
    const signIn = (base: string) => call(base, "POST", "/api/v1/auth/anonymous", { key: key.key });
    expect([(await signIn(a)).status, (await signIn(b)).status]).toEqual([200, 200]);
    await services.revokeApiKey({ projectId: project.projectId, keyId: key.id });
    // Each instance is polled until its first refusal only: refused requests count against the
    // keyless per-IP budget (60), which further polls would spend.
    const refusals: Res[] = [];
    const refusedOn = async (base: string) => {
      const res = await signIn(base);
      if (res.status === 200) return false;
      refusals.push(res);
      return true;
    };
    const ms = await timeUntilOnEach([a, b], refusedOn, HEARD_MS);
    console.log(`[deployment] key revocation refused on A after ${ms[0]} ms, on B after ${ms[1]} ms (TTL ${API_KEY_CACHE_TTL_SECONDS} s)`);
    for (const refusal of refusals)
      expect({ status: refusal.status, body: refusal.body }).toMatchObject({ status: 401, body: { error: { code: "INVALID_API_KEY" } } });
  });

  it("leaderboard: scores submitted through HAProxy give identical ranks and top-N on both instances, from the Redis rank index, matching Postgres", async () => {
    const project = await services.makeProject();
    await services.createLeaderboard({
      projectId: project.projectId,
      input: { id: "arena", name: "Arena", sortOrder: "desc", operator: "best", minScore: 0 },
    });
    const players: Array<{ playerId: string; accessToken: string }> = [];
    for (let i = 0; i < 24; i++) {
      const signIn = await call(deployment.baseUrl, "POST", "/api/v1/auth/anonymous", { key: project.clientKey });
      expect(signIn.status).toBe(200);
      players.push(signIn.body as { playerId: string; accessToken: string });
    }
    // Ties (i % 7) ordered by who reached the score first; submitted concurrently through both instances.
    await Promise.all(
      players.map(async (p, i) => {
        const res = await call(deployment.baseUrl, "POST", "/api/v1/leaderboards/arena/scores", {
          key: project.clientKey,
          token: p.accessToken,
          body: { score: 1_000 + (i % 7) * 10 },
        });
        expect(res.status).toBe(200);
      }),
    );
    const { rows } = await deployment.sql(
      "SELECT player_id FROM leaderboard_entries WHERE project_id = $1 AND leaderboard_id = 'arena' ORDER BY sort_key, seq",
      [project.projectId],
    );
    const truth = rows.map((r: { player_id: string }) => r.player_id);
    expect(truth).toHaveLength(24);

    const view = async (base: string) => {
      const top = await call(base, "GET", "/api/v1/leaderboards/arena?limit=10", { key: project.clientKey });
      expect(top.status).toBe(200);
      const own = await Promise.all(
        players.map(async (p) => {
          const res = await call(base, "GET", "/api/v1/leaderboards/arena/player?range=1", {
            key: project.clientKey,
            token: p.accessToken,
          });
          expect(res.status).toBe(200);
          return { playerId: p.playerId, rank: res.body.rank, score: res.body.score };
        }),
      );
      return { top: top.body, own };
    };
    // A first read on each instance finds no index yet: Postgres answers and one instance
    // rebuilds the index in the background. Once it is complete, both read their ranks from it.
    await Promise.all([view(a), view(b)]);
    const redis = new Redis(deployment.redisUrl);
    try {
      await timeUntil(async () => {
        const [ready] = await redis.keys(`lb:{${project.projectId}:arena:*}:ready`);
        const [set] = await redis.keys(`lb:{${project.projectId}:arena:*}:z`);
        return Boolean(ready && set && (await redis.zcard(set)) === 24);
      }, 10_000);
    } finally {
      redis.disconnect();
    }
    const [fromA, fromB] = [await view(a), await view(b)];
    expect(fromA).toEqual(fromB);
    const topIds = (fromA.top.entries as Array<{ playerId: string; rank: number }>).map((e) => e.playerId);
    expect(topIds).toEqual(truth.slice(0, 10));
    for (const o of fromA.own) expect(o.rank).toBe(truth.indexOf(o.playerId) + 1);
  }, 60_000);

  it("no errors under load: 250 mixed reads and writes (50 of each kind, 3 at a time each) through HAProxy answer only 2xx (or 429), never 5xx", async () => {
    const project = await services.makeProject();
    await services.createLeaderboard({
      projectId: project.projectId,
      input: { id: "load", name: "Load", sortOrder: "desc", operator: "best", minScore: 0 },
    });
    const sessions: Array<{ accessToken: string }> = [];
    for (let i = 0; i < 6; i++) {
      const signIn = await call(deployment.baseUrl, "POST", "/api/v1/auth/anonymous", { key: project.clientKey });
      const token = signIn.body.accessToken as string;
      const put = await call(deployment.baseUrl, "PUT", "/api/v1/players/me/data/profile", {
        key: project.clientKey,
        token,
        body: { value: {} },
      });
      expect(put.status).toBe(201);
      sessions.push({ accessToken: token });
    }
    // A number of requests, not a time: on a busy machine 6 s once held only 182.
    const result = await mixedLoad(deployment.baseUrl, { key: project.clientKey, sessions, board: "load", amount: 50 });
    console.log(
      `[deployment] mixed load through HAProxy: ${result.requests} requests, statuses ${JSON.stringify(result.statuses)}, socket errors ${result.errors}, time-outs ${result.timeouts}`,
    );
    for (const run of result.runs) console.log(`[deployment]   ${run.name}: ${run.requests} requests ${JSON.stringify(run.statuses)}`);
    const unexpected = Object.entries(result.statuses).filter(([code]) => !(code.startsWith("2") || code === "429"));
    expect(unexpected).toEqual([]);
    expect({ errors: result.errors, timeouts: result.timeouts }).toEqual({ errors: 0, timeouts: 0 });
    expect(result.requests).toBeGreaterThanOrEqual(250);
    for (const instance of deployment.instances) expect(instance.output()).not.toMatch(/unhandled error|prepared statement/);
  }, 60_000);
});
