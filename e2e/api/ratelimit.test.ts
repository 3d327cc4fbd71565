import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { registerWithEmail } from "@/server/services/auth/email";
import { setProjectPlan } from "@/server/services/projects";
import { checkAgainstDocument } from "../support/api";
import { makeProject } from "../support/fixtures";
import { type StartedApp, startApp } from "../support/global-setup";
import { type PrivateRedis, privateRedis } from "../support/redis-server";

/**
 * Rate limits against dedicated app instances (10-second windows so resets are observable),
 * on a real Redis and on the in-process store. Other test files use large Enterprise budgets.
 */
const WINDOW = 10;
const IP_BUDGET = 20;
const LOGIN_PER_ACCOUNT = 5;
const LOGIN_PER_IP = 12;

function appEnv(extra: Record<string, string | undefined>): Record<string, string | undefined> {
  return {
    DATABASE_URL: inject("databaseUrl"),
    JWT_SECRET: inject("jwtSecret"),
    RATE_LIMIT_WINDOW_SECONDS: String(WINDOW),
    RATE_LIMIT_IP_PER_WINDOW: String(IP_BUDGET),
    LOGIN_FAILURES_PER_ACCOUNT: String(LOGIN_PER_ACCOUNT),
    LOGIN_FAILURES_PER_IP: String(LOGIN_PER_IP),
    API_KEY_CACHE_TTL_SECONDS: "1",
    TRUST_PROXY: "true",
    REDIS_URL: undefined,
    ...extra,
  };
}

type Res = { status: number; headers: Headers; body: Record<string, unknown> };
async function call(base: string, o: { key?: string; path?: string; method?: string; body?: unknown; ip?: string } = {}): Promise<Res> {
  const headers: Record<string, string> = { "X-Forwarded-For": o.ip ?? "198.51.100.1" };
  if (o.key) headers["X-API-Key"] = o.key;
  if (o.body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(`${base}${o.path ?? "/api/v1/auth/anonymous"}`, {
    method: o.method ?? "POST",
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  const text = await res.text();
  const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  await checkAgainstDocument(o.method ?? "POST", new URL(res.url).pathname, res.status, body);
  return { status: res.status, headers: res.headers, body };
}

/** Waits for the start of a fresh window, so a burst lands inside one window. */
async function atWindowStart(): Promise<void> {
  const ms = WINDOW * 1000;
  const into = Date.now() % ms;
  if (into > 300) await new Promise((r) => setTimeout(r, ms - into + 50));
}

let ipCounter = 0;
/** An address no other test in this file uses (documentation range, counter + random). */
const uniqueIp = () => `2001:db8:${randomBytes(2).toString("hex")}::${(++ipCounter).toString(16)}`;

function behaviourSuite(name: string, base: () => string, demo: () => { freeApiKey: string }) {
  describe(`${name}: per-plan budgets`, () => {
    it("the Free demo project gets exactly 100 successes, then 429 with correct headers; remaining counts down", async () => {
      await atWindowStart();
      const results: Res[] = [];
      // The limiter decides in arrival order; sending sequentially keeps the count exact to read.
      for (let i = 0; i < 105; i++) results.push(await call(base(), { key: demo().freeApiKey, method: "GET" }));
      const allowed = results.filter((r) => r.status !== 429);
      expect(allowed).toHaveLength(100);
      expect(results.slice(100).every((r) => r.status === 429)).toBe(true);
      expect(allowed.map((r) => Number(r.headers.get("x-ratelimit-remaining")))).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
      const limited = results[104] as Res;
      expect(limited.body).toMatchObject({
        error: { code: "RATE_LIMITED", details: { limit: 100, windowSeconds: WINDOW, scope: "project" } },
      });
      const details = (limited.body.error as { details: { retryAfterSeconds: number } }).details;
      expect(limited.headers.get("retry-after")).toBe(String(details.retryAfterSeconds));
      expect(details.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(details.retryAfterSeconds).toBeLessThanOrEqual(WINDOW);
      expect(limited.headers.get("x-ratelimit-limit")).toBe("100");
      expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
      const reset = Number(limited.headers.get("x-ratelimit-reset"));
      expect(reset * 1000).toBeGreaterThan(Date.now());
      expect(reset * 1000).toBeLessThanOrEqual(Date.now() + WINDOW * 1000 + 1000);
      expect(limited.headers.get("ratelimit-policy")).toBe(`"project";q=100;w=${WINDOW}`);
      expect(limited.headers.get("ratelimit")).toMatch(/^"project";r=0;t=\d+$/);
    }, 60_000);

    it("the window resets: the budget comes back at X-RateLimit-Reset", async () => {
      const last = await call(base(), { key: demo().freeApiKey, method: "GET" });
      const reset = Number(last.headers.get("x-ratelimit-reset"));
      await new Promise((r) => setTimeout(r, Math.max(0, reset * 1000 - Date.now()) + 100));
      const fresh = await call(base(), { key: demo().freeApiKey, method: "GET" });
      expect(fresh.status).toBe(405);
      expect(fresh.headers.get("x-ratelimit-remaining")).toBe("99");
    }, 30_000);

    it("a plan change takes effect without a restart", async () => {
      const project = await makeProject({ plan: "FREE" });
      expect((await call(base(), { key: project.clientKey, method: "GET" })).headers.get("x-ratelimit-limit")).toBe("100");
      await setProjectPlan({ projectId: project.projectId, plan: "ENTERPRISE", customRateLimit: 2_500 });
      await new Promise((r) => setTimeout(r, 1_200));
      expect((await call(base(), { key: project.clientKey, method: "GET" })).headers.get("x-ratelimit-limit")).toBe("2500");
      await setProjectPlan({ projectId: project.projectId, plan: "PRO" });
      await new Promise((r) => setTimeout(r, 1_200));
      expect((await call(base(), { key: project.clientKey, method: "GET" })).headers.get("x-ratelimit-limit")).toBe("1000");
    }, 30_000);
  });

  describe(`${name}: requests without a valid key`, () => {
    it("are limited per IP; another IP is not affected", async () => {
      await atWindowStart();
      const ip = uniqueIp();
      const results: Res[] = [];
      for (let i = 0; i < IP_BUDGET + 3; i++) results.push(await call(base(), { key: i % 2 ? "gb_client_guess" : undefined, ip }));
      expect(results.slice(0, IP_BUDGET).every((r) => r.status === 401)).toBe(true);
      expect(results.slice(IP_BUDGET).map((r) => r.status)).toEqual([429, 429, 429]);
      expect(results[IP_BUDGET]?.body).toMatchObject({ error: { code: "RATE_LIMITED", details: { scope: "ip", limit: IP_BUDGET } } });
      expect((await call(base(), { ip: "192.0.2.77" })).status).toBe(401);
    }, 30_000);

    it("behind the trusted proxy only the last X-Forwarded-For entry counts (the left ones are the client's)", async () => {
      await atWindowStart();
      const ip = uniqueIp();
      const statuses: number[] = [];
      for (let i = 0; i < IP_BUDGET + 1; i++) statuses.push((await call(base(), { ip: `10.9.${i}.1, ${ip}` })).status);
      expect(statuses.at(-1)).toBe(429);
    }, 30_000);
  });

  describe(`${name}: e-mail login brute force`, () => {
    it("cuts off guessing one account while the project's other players still log in", async () => {
      const project = await makeProject();
      const victim = `victim-${randomBytes(4).toString("hex")}@example.com`;
      const other = `other-${randomBytes(4).toString("hex")}@example.com`;
      await registerWithEmail({ projectId: project.projectId, email: victim, password: "the real password", playerId: null });
      await registerWithEmail({ projectId: project.projectId, email: other, password: "other password", playerId: null });
      const login = (email: string, password: string, ip: string) =>
        call(base(), { key: project.clientKey, path: "/api/v1/auth/email/login", body: { email, password }, ip });
      for (let i = 0; i < LOGIN_PER_ACCOUNT; i++) expect((await login(victim, `guess ${i}`, uniqueIp())).status).toBe(401);
      const blocked = await login(victim, "the real password", uniqueIp());
      expect(blocked.status).toBe(429);
      expect(blocked.body).toMatchObject({
        error: { code: "RATE_LIMITED", details: { scope: "login-account", limit: LOGIN_PER_ACCOUNT } },
      });
      expect(blocked.headers.get("ratelimit-policy")).toBe(`"login-account";q=${LOGIN_PER_ACCOUNT};w=900`);
      expect(blocked.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await login(other, "other password", uniqueIp())).status).toBe(200);
    }, 30_000);

    it("a burst of parallel guesses cannot get more than the budget checked", async () => {
      const project = await makeProject();
      const victim = `burst-${randomBytes(4).toString("hex")}@example.com`;
      await registerWithEmail({ projectId: project.projectId, email: victim, password: "the real password", playerId: null });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          call(base(), {
            key: project.clientKey,
            path: "/api/v1/auth/email/login",
            body: { email: victim, password: `guess ${i}` },
            ip: uniqueIp(),
          }),
        ),
      );
      expect(results.filter((r) => r.status === 401).length).toBeLessThanOrEqual(LOGIN_PER_ACCOUNT);
      expect(results.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(20 - LOGIN_PER_ACCOUNT);
    }, 30_000);

    it("only failures count: correct logins give their attempt back", async () => {
      const project = await makeProject();
      const email = `ok-${randomBytes(4).toString("hex")}@example.com`;
      await registerWithEmail({ projectId: project.projectId, email, password: "the real password", playerId: null });
      const login = (password: string) =>
        call(base(), { key: project.clientKey, path: "/api/v1/auth/email/login", body: { email, password }, ip: uniqueIp() });
      for (let i = 0; i < LOGIN_PER_ACCOUNT - 1; i++) expect((await login("wrong")).status).toBe(401);
      for (let i = 0; i < LOGIN_PER_ACCOUNT + 2; i++) expect((await login("the real password")).status).toBe(200);
      expect((await login("wrong")).status).toBe(401);
      expect((await login("wrong")).status).toBe(429);
    }, 30_000);

    it("cuts off one IP guessing many accounts; other IPs still log in", async () => {
      const project = await makeProject();
      const email = `p-${randomBytes(4).toString("hex")}@example.com`;
      await registerWithEmail({ projectId: project.projectId, email, password: "the real password", playerId: null });
      const attacker = uniqueIp();
      const login = (address: string, password: string, ip: string) =>
        call(base(), { key: project.clientKey, path: "/api/v1/auth/email/login", body: { email: address, password }, ip });
      for (let i = 0; i < LOGIN_PER_IP; i++) expect((await login(`nobody-${i}@example.com`, "x", attacker)).status).toBe(401);
      const blocked = await login(email, "the real password", attacker);
      expect(blocked.body).toMatchObject({ error: { code: "RATE_LIMITED", details: { scope: "login-ip" } } });
      expect((await login(email, "the real password", "192.0.2.200")).status).toBe(200);
    }, 30_000);
  });
}

function demoOf(dir: string): { freeApiKey: string; apiKey: string } {
  return JSON.parse(readFileSync(path.join(dir, "demo.json"), "utf8"));
}

const redisUrl = inject("redisUrl");

describe.skipIf(!redisUrl)("on Redis (REDIS_URL)", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "gb-rl-redis-"));
  let a: StartedApp;
  let b: StartedApp;
  beforeAll(async () => {
    a = await startApp(appEnv({ REDIS_URL: redisUrl, DATA_DIR: dataDir }));
    b = await startApp(appEnv({ REDIS_URL: redisUrl, DATA_DIR: dataDir }));
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  behaviourSuite(
    "Redis",
    () => a.baseUrl,
    () => demoOf(dataDir),
  );

  it("two app instances sharing one Redis share one budget", async () => {
    const project = await makeProject({ plan: "ENTERPRISE", customRateLimit: 30 });
    await atWindowStart();
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => call(i % 2 ? a.baseUrl : b.baseUrl, { key: project.clientKey, method: "GET" })),
    );
    expect(results.filter((r) => r.status === 405)).toHaveLength(30);
    expect(results.filter((r) => r.status === 429)).toHaveLength(10);
  }, 30_000);
});

describe("in-process store", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "gb-rl-mem-"));
  let app: StartedApp;
  beforeAll(async () => {
    app = await startApp(appEnv({ DATA_DIR: dataDir }));
    expect(app.output()).toContain("correct for a single instance only");
  });
  afterAll(async () => {
    await app?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  behaviourSuite(
    "in-process",
    () => app.baseUrl,
    () => demoOf(dataDir),
  );
});

describe("store failure (a private redis-server that the test stops and restarts)", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "gb-rl-fail-"));
  let redis: PrivateRedis;
  let app: StartedApp;
  beforeAll(async () => {
    redis = await privateRedis();
    app = await startApp(appEnv({ REDIS_URL: redis.url, DATA_DIR: dataDir }));
  });
  afterAll(async () => {
    await app?.stop();
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("a stopped store lets gameplay through and makes e-mail auth answer 503; a restarted one restores limiting", async () => {
    const project = await makeProject({ plan: "ENTERPRISE", customRateLimit: 5 });
    const email = `fail-${randomBytes(4).toString("hex")}@example.com`;
    await registerWithEmail({ projectId: project.projectId, email, password: "the real password", playerId: null });
    const login = () =>
      call(app.baseUrl, { key: project.clientKey, path: "/api/v1/auth/email/login", body: { email, password: "the real password" } });
    expect((await login()).status).toBe(200);

    await redis.stop();
    const gameplay = await call(app.baseUrl, { key: project.clientKey });
    expect(gameplay.status).toBe(200);
    const started = Date.now();
    for (let i = 0; i < 10; i++) expect((await call(app.baseUrl, { key: project.clientKey, method: "GET" })).status).toBe(405);
    expect(Date.now() - started).toBeLessThan(5_000);
    const refused = await login();
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ error: { code: "SERVICE_UNAVAILABLE" } });
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(refused.headers.get("x-ratelimit-limit")).toBe("5");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    const health = (await (await fetch(`${app.baseUrl}/api/health`)).json()) as {
      status: string;
      limiter: { ok: boolean; failOpen: number };
    };
    expect(health.status).toBe("degraded");
    expect(health.limiter.ok).toBe(false);
    expect(health.limiter.failOpen).toBeGreaterThan(0);

    await redis.start();
    let recovered = false;
    for (let i = 0; i < 50 && !recovered; i++) {
      await new Promise((r) => setTimeout(r, 200));
      recovered = (await login()).status === 200;
    }
    expect(recovered).toBe(true);
    await atWindowStart();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await call(app.baseUrl, { key: project.clientKey, method: "GET" })).status);
    expect(statuses).toEqual([405, 405, 405, 405, 405, 429, 429]);
  }, 60_000);

  it("a store slower than ~100 ms lets gameplay through without waiting for it", async () => {
    const project = await makeProject();
    const client = redis.client();
    const sleeping = client.call("DEBUG", "SLEEP", "1").catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    const res = await call(app.baseUrl, { key: project.clientKey, method: "GET" });
    const took = Date.now() - started;
    expect(res.status).toBe(405);
    expect(took).toBeLessThan(800);
    await sleeping;
    client.disconnect();
  }, 30_000);
});
