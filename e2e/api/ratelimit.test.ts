import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { prisma } from "@/server/db";
import { ipSubject } from "@/server/ratelimit/ip";
import { registerWithEmail } from "@/server/services/auth/email";
import { setProjectPlan, setProjectShares } from "@/server/services/projects";
import { checkAgainstDocument, checkHeadersAndCode } from "../support/api";
import { makeProject } from "../support/fixtures";
import { type StartedApp, startApp } from "../support/global-setup";
import { type PrivateRedis, privateRedis } from "../support/redis-server";

/**
 * Rate limits against dedicated app instances (10-second windows so resets are observable),
 * on a real Redis and on the in-process store. Other test files use large Enterprise budgets.
 */
const WINDOW = 10;
const IP_BUDGET = 20;
const LOGIN_PER_ACCOUNT_IP = 5;
const LOGIN_PER_ACCOUNT = 8;
const LOGIN_PER_IP = 12;
const REGISTRATIONS_PER_IP = 3;

function appEnv(extra: Record<string, string | undefined>): Record<string, string | undefined> {
  return {
    DATABASE_URL: inject("databaseUrl"),
    JWT_SECRET: inject("jwtSecret"),
    RATE_LIMIT_WINDOW_SECONDS: String(WINDOW),
    RATE_LIMIT_IP_PER_WINDOW: String(IP_BUDGET),
    LOGIN_FAILURES_PER_ACCOUNT_IP: String(LOGIN_PER_ACCOUNT_IP),
    LOGIN_FAILURES_PER_ACCOUNT: String(LOGIN_PER_ACCOUNT),
    REGISTRATIONS_PER_IP: String(REGISTRATIONS_PER_IP),
    LOGIN_FAILURES_PER_IP: String(LOGIN_PER_IP),
    API_KEY_CACHE_TTL_SECONDS: "1",
    TRUST_PROXY: "true",
    REDIS_URL: undefined,
    // Exact counts need the store's answers: a CI machine saturated by the suite must not pass
    // requests for a "slow store" (the store-failure block sets the production default).
    RATE_LIMIT_STORE_TIMEOUT_MS: "1000",
    ...extra,
  };
}

type Res = { status: number; headers: Headers; body: Record<string, unknown> };
type CallOptions = {
  key?: string;
  path?: string;
  method?: string;
  body?: unknown;
  ip?: string;
  token?: string;
  playerId?: string;
  /** false against an instance with RATE_LIMITS=off (no rate-limit headers expected). */
  limitsOn?: boolean;
};
async function call(base: string, o: CallOptions = {}): Promise<Res> {
  const headers: Record<string, string> = { "X-Forwarded-For": o.ip ?? "198.51.100.1" };
  if (o.key) headers["X-API-Key"] = o.key;
  if (o.token) headers.Authorization = `Bearer ${o.token}`;
  if (o.playerId) headers["X-Player-Id"] = o.playerId;
  if (o.body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(`${base}${o.path ?? "/api/v1/auth/anonymous"}`, {
    method: o.method ?? "POST",
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  const text = await res.text();
  const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  const pathname = new URL(res.url).pathname;
  await checkAgainstDocument(o.method ?? "POST", pathname, res.status, body);
  await checkHeadersAndCode(o.method ?? "POST", pathname, { status: res.status, headers: res.headers, body }, o.limitsOn ?? true);
  return { status: res.status, headers: res.headers, body };
}

const windowIndex = (ms: number) => Math.floor(ms / (WINDOW * 1000));

/**
 * Runs a burst whose exact counts need one window, and returns what it returns. The windows are
 * aligned to the clock (floor(now / window)) and the app runs on this machine's clock, so a burst
 * that started and ended in one window was counted in one. One that straddled a boundary runs
 * again from the start of the next window, where nothing the first attempt spent counts; so
 * nothing waits for the clock unless a boundary got in the way (it waited for a fresh window
 * before every burst: about 2 minutes a run). The budgets a burst measures are its own (a fresh
 * project, address or player), so what the test sent before the burst is not in its counts.
 */
async function inOneWindow<T>(burst: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const started = Date.now();
    const value = await burst();
    if (windowIndex(started) === windowIndex(Date.now())) return value;
    if (attempt === 3) throw new Error(`three bursts in a row did not fit one ${WINDOW} s window`);
    await new Promise((r) => setTimeout(r, WINDOW * 1000 - (Date.now() % (WINDOW * 1000)) + 50));
  }
}

/** Polls until `answer` is true (a cache with a TTL caught up), at most `ms`. */
async function until(answer: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await answer())) {
    if (Date.now() > deadline) throw new Error(`not true within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let netCounter = 0;
/**
 * A /64 no other test in this file uses (documentation range, random + counter): IPv6 clients
 * are counted per /64, so distinct clients need distinct /64s.
 */
const uniqueNet = () => `2001:db8:${randomBytes(2).toString("hex")}:${(++netCounter).toString(16)}`;
const uniqueIp = () => `${uniqueNet()}::1`;

function behaviourSuite(name: string, base: () => string) {
  describe(`${name}: per-plan budgets`, () => {
    it("a Free project gets exactly 100 answers a window (server key: no share), then 429; remaining counts down", async () => {
      const free = await makeProject({ plan: "FREE" });
      // The limiter decides in arrival order; sending sequentially keeps the count exact to read.
      const results = await inOneWindow(async () => {
        const answers: Res[] = [];
        for (let i = 0; i < 105; i++) answers.push(await call(base(), { key: free.serverKey, method: "GET" }));
        return answers;
      });
      expect(results.map((r) => r.status)).toEqual([...Array(100).fill(405), ...Array(5).fill(429)]);
      const allowed = results.slice(0, 100);
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
      const free = await makeProject({ plan: "FREE" });
      const last = await inOneWindow(async () => {
        for (let i = 0; i < 3; i++) expect((await call(base(), { key: free.serverKey, method: "GET" })).status).toBe(405);
        return call(base(), { key: free.serverKey, method: "GET" });
      });
      expect(last.status).toBe(405);
      expect(last.headers.get("x-ratelimit-remaining")).toBe("96");
      const reset = Number(last.headers.get("x-ratelimit-reset"));
      await new Promise((r) => setTimeout(r, Math.max(0, reset * 1000 - Date.now()) + 100));
      const fresh = await call(base(), { key: free.serverKey, method: "GET" });
      expect(fresh.status).toBe(405);
      expect(fresh.headers.get("x-ratelimit-remaining")).toBe("99");
    }, 30_000);

    it("a plan change reaches the limiter without a restart, once the key cache (TTL 1 s here) expires", async () => {
      const project = await makeProject({ plan: "FREE" });
      const limit = async () => (await call(base(), { key: project.serverKey, method: "GET" })).headers.get("x-ratelimit-limit");
      expect(await limit()).toBe("100");
      await setProjectPlan({ projectId: project.projectId, plan: "ENTERPRISE", customRateLimit: 2_500 });
      let changedAt = Date.now();
      await until(async () => (await limit()) === "2500");
      // The TTL, plus slack for a busy machine: a change that needed a restart would never arrive.
      expect(Date.now() - changedAt).toBeLessThan(5_000);
      await setProjectPlan({ projectId: project.projectId, plan: "PRO" });
      changedAt = Date.now();
      await until(async () => (await limit()) === "1000");
      expect(Date.now() - changedAt).toBeLessThan(5_000);
    }, 30_000);
  });

  describe(`${name}: requests without a valid key`, () => {
    it("are limited per IP; another IP is not affected", async () => {
      const results = await inOneWindow(async () => {
        const ip = uniqueIp();
        const answers: Res[] = [];
        for (let i = 0; i < IP_BUDGET + 3; i++) answers.push(await call(base(), { key: i % 2 ? "gb_client_guess" : undefined, ip }));
        return answers;
      });
      expect(results.slice(0, IP_BUDGET).every((r) => r.status === 401)).toBe(true);
      expect(results.slice(IP_BUDGET).map((r) => r.status)).toEqual([429, 429, 429]);
      expect(results[IP_BUDGET]?.body).toMatchObject({ error: { code: "RATE_LIMITED", details: { scope: "ip", limit: IP_BUDGET } } });
      expect((await call(base(), { ip: "192.0.2.77" })).status).toBe(401);
    }, 30_000);

    it("behind the trusted proxy only the last X-Forwarded-For entry counts (the left ones are the client's)", async () => {
      const statuses = await inOneWindow(async () => {
        const ip = uniqueIp();
        const answers: number[] = [];
        for (let i = 0; i < IP_BUDGET + 1; i++) answers.push((await call(base(), { ip: `10.9.${i}.1, ${ip}` })).status);
        return answers;
      });
      expect(statuses).toEqual([...Array(IP_BUDGET).fill(401), 429]);
    }, 30_000);

    it("an IPv6 client is counted per /64: rotating addresses inside it does not buy a fresh budget", async () => {
      const statuses = await inOneWindow(async () => {
        const net = uniqueNet();
        const answers: number[] = [];
        for (let i = 0; i < IP_BUDGET + 1; i++) answers.push((await call(base(), { ip: `${net}:${i.toString(16)}::${i + 1}` })).status);
        return answers;
      });
      expect(statuses).toEqual([...Array(IP_BUDGET).fill(401), 429]);
      expect((await call(base(), { ip: uniqueIp() })).status).toBe(401);
    }, 30_000);
  });

  describe(`${name}: shares of the project budget`, () => {
    // Enterprise 300: player share 60 (20 %, at least 60), IP share 90 (30 %).
    it("a player hammering in parallel gets exactly its share (429 scope player); another player is answered throughout; refused requests do not drain the project", async () => {
      const project = await makeProject({ plan: "ENTERPRISE", customRateLimit: 300 });
      const abuser = await anonymous(base(), project.clientKey, uniqueIp());
      const victim = await anonymous(base(), project.clientKey, uniqueIp());
      const failOpenBefore = await failOpenCount(base());
      const t0 = Date.now();
      const abuse = Promise.all(
        Array.from({ length: 150 }, () => call(base(), { key: project.clientKey, path: "/api/v1/saves", method: "GET", token: abuser })),
      );
      const honest: Res[] = [];
      for (let i = 0; i < 20; i++)
        honest.push(await call(base(), { key: project.clientKey, path: "/api/v1/saves", method: "GET", token: victim }));
      const flood = await abuse;
      // On a loaded machine the burst can outlast the 10-second test window; then each window gives 60.
      const windows = windowIndex(Date.now()) - windowIndex(t0) + 1;
      expect(flood.map((r) => r.status).every((st) => st === 200 || st === 429)).toBe(true);
      // A store answer slower than 100 ms fails open (by design, counted in /api/health); on a
      // machine saturated by the rest of the suite that can happen, and each such request passes.
      const failedOpen = (await failOpenCount(base())) - failOpenBefore;
      const answered = flood.filter((r) => r.status === 200).length;
      if (windows === 1 && failedOpen === 0) expect(answered).toBe(60);
      else expect(answered).toBeLessThanOrEqual(60 * windows + failedOpen);
      expect(flood.find((r) => r.status === 429)?.body).toMatchObject({ error: { details: { scope: "player", limit: 60 } } });
      expect(honest.map((r) => r.status)).toEqual(Array(20).fill(200));
      // The project counted the 2 sign-ins, the answered requests and this probe — not the refused
      // ones (fewer when a window ended meanwhile, more only by requests that failed open).
      const probe = await call(base(), { key: project.serverKey, method: "GET" });
      const consumed = 300 - Number(probe.headers.get("x-ratelimit-remaining"));
      expect(consumed).toBeLessThanOrEqual(2 + answered + 20 + 1 + failedOpen);
    }, 30_000);

    // Enterprise 300 against a flood of 900+: if refused requests spent the project budget, it
    // would be gone early in every window and the victim refused (scope project).
    it("while one player floods as fast as it can (3× the project budget), another player's requests spread over the flood are all answered", async () => {
      const project = await makeProject({ plan: "ENTERPRISE", customRateLimit: 300 });
      const abuser = await anonymous(base(), project.clientKey, uniqueIp());
      const victim = await anonymous(base(), project.clientKey, uniqueIp());
      const read = (token: string) => () => call(base(), { key: project.clientKey, path: "/api/v1/saves", method: "GET", token });
      const failOpenBefore = await failOpenCount(base());
      const t0 = Date.now();
      const { flood, honest } = await floodWhileVictim(read(abuser), read(victim), 900);
      await expectShareHeld(base(), { flood, honest, scope: "player", share: 60, t0, failOpenBefore });
    }, 60_000);

    it("while one address floods sign-in as fast as it can (3× the project budget), a player elsewhere is answered throughout", async () => {
      const project = await makeProject({ plan: "ENTERPRISE", customRateLimit: 300 });
      const victim = await anonymous(base(), project.clientKey, uniqueIp());
      const ip = uniqueIp();
      const signIn = () => call(base(), { key: project.clientKey, ip });
      const read = () => call(base(), { key: project.clientKey, path: "/api/v1/saves", method: "GET", token: victim });
      const failOpenBefore = await failOpenCount(base());
      const t0 = Date.now();
      const { flood, honest } = await floodWhileVictim(signIn, read, 900);
      await expectShareHeld(base(), { flood, honest, scope: "ip", share: 90, t0, failOpenBefore });
    }, 60_000);

    it("one address hammering sign-in gets its IP share (429 scope ip); another address still signs in", async () => {
      const project = await makeProject({ plan: "ENTERPRISE", customRateLimit: 300 });
      const failOpenBefore = await failOpenCount(base());
      const results = await inOneWindow(() => {
        const ip = uniqueIp();
        return Promise.all(Array.from({ length: 100 }, () => call(base(), { key: project.clientKey, ip })));
      });
      expect(results.filter((r) => r.status === 200)).toHaveLength(90);
      expect(results.filter((r) => r.status === 429)).toHaveLength(10);
      expect(results.find((r) => r.status === 429)?.body).toMatchObject({ error: { details: { scope: "ip", limit: 90 } } });
      expect((await call(base(), { key: project.clientKey, ip: uniqueIp() })).status).toBe(200);
      // The project counted the 90 sign-ins, the other address's and this probe, not the 10 refused
      // (fewer when a window ended meanwhile, more only by requests that failed open).
      const probe = await call(base(), { key: project.serverKey, method: "GET" });
      expect(probe.status).toBe(405);
      const consumed = 300 - Number(probe.headers.get("x-ratelimit-remaining"));
      expect(consumed).toBeLessThanOrEqual(90 + 1 + 1 + (await failOpenCount(base())) - failOpenBefore);
    }, 30_000);

    it("200 players behind one NAT address all sign in on a Pro project (its IP share: 300 a window)", async () => {
      // IP share 300: 200 fit even in one window (the test needs no window of its own).
      const project = await makeProject({ plan: "PRO" });
      const ip = uniqueIp();
      const statuses: number[] = [];
      for (let batch = 0; batch < 10; batch++) {
        const answers = await Promise.all(Array.from({ length: 20 }, () => call(base(), { key: project.clientKey, ip })));
        statuses.push(...answers.map((r) => r.status));
      }
      expect(statuses).toEqual(Array(200).fill(200));
    }, 30_000);

    it("headers describe the budget closest to running out: the player's share, or the project when it is closer", async () => {
      const project = await makeProject({ plan: "FREE" });
      // The project counts the sign-in too: it is part of the burst, so all 53 requests share a window.
      const { first, second } = await inOneWindow(async () => {
        const player = await anonymous(base(), project.clientKey, uniqueIp());
        const read = () => call(base(), { key: project.clientKey, path: "/api/v1/saves", method: "GET", token: player });
        const before = await read();
        for (let i = 0; i < 50; i++) expect((await call(base(), { key: project.serverKey, method: "GET" })).status).toBe(405);
        return { first: before, second: await read() };
      });
      expect(first.headers.get("ratelimit-policy")).toBe(`"player";q=60;w=${WINDOW}`);
      expect(first.headers.get("x-ratelimit-remaining")).toBe("59");
      expect(second.headers.get("ratelimit-policy")).toBe(`"project";q=100;w=${WINDOW}`);
      expect(second.headers.get("x-ratelimit-remaining")).toBe(String(100 - 53));
    }, 30_000);

    it("server keys have no IP share; acting as a player they spend that player's share", async () => {
      const project = await makeProject({ plan: "ENTERPRISE", customRateLimit: 300 });
      const player = await anonymous(base(), project.clientKey, uniqueIp());
      const playerId = JSON.parse(Buffer.from(player.split(".")[1] ?? "", "base64url").toString()).sub as string;
      const { keyOnly, acting } = await inOneWindow(async () => {
        const ip = uniqueIp();
        const keyOnly = await Promise.all(Array.from({ length: 100 }, () => call(base(), { key: project.serverKey, method: "GET", ip })));
        const acting = await Promise.all(
          Array.from({ length: 70 }, () => call(base(), { key: project.serverKey, path: "/api/v1/saves", method: "GET", playerId, ip })),
        );
        return { keyOnly, acting };
      });
      expect(keyOnly.map((r) => r.status)).toEqual(Array(100).fill(405));
      expect(acting.filter((r) => r.status === 200)).toHaveLength(60);
      expect(acting.filter((r) => r.status === 429)).toHaveLength(10);
    }, 30_000);

    it("a project's own shares (player and IP) replace the defaults without a restart, once the key cache (TTL 1 s here) expires", async () => {
      const project = await makeProject({ plan: "ENTERPRISE", customRateLimit: 300 });
      const player = await anonymous(base(), project.clientKey, uniqueIp());
      await setProjectShares({ projectId: project.projectId, playerRateLimit: 5, ipRateLimit: 3 });
      const changedAt = Date.now();
      // A sign-in from a fresh address names its IP share when that is closest to running out.
      await until(
        async () =>
          (await call(base(), { key: project.clientKey, ip: uniqueIp() })).headers.get("ratelimit-policy")?.includes("q=3;") === true,
      );
      expect(Date.now() - changedAt).toBeLessThan(5_000);
      const { reads, signIns } = await inOneWindow(async () => {
        const reads: Res[] = [];
        for (let i = 0; i < 7; i++)
          reads.push(await call(base(), { key: project.clientKey, path: "/api/v1/saves", method: "GET", token: player }));
        const ip = uniqueIp();
        const signIns: Res[] = [];
        for (let i = 0; i < 4; i++) signIns.push(await call(base(), { key: project.clientKey, ip }));
        return { reads, signIns };
      });
      expect(reads.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
      expect(reads[5]?.body).toMatchObject({ error: { details: { scope: "player", limit: 5 } } });
      expect(signIns.map((r) => r.status)).toEqual([200, 200, 200, 429]);
      expect(signIns[3]?.body).toMatchObject({ error: { details: { scope: "ip", limit: 3 } } });
    }, 30_000);

    it("a forged token does not spend the named player's share (it counts as no player: the IP's)", async () => {
      const project = await makeProject({ plan: "ENTERPRISE", customRateLimit: 300 });
      const victim = await anonymous(base(), project.clientKey, uniqueIp());
      const [header, payload] = victim.split(".");
      const forged = `${header}.${payload}.${"A".repeat(43)}`;
      const { forgeries, honest } = await inOneWindow(async () => {
        const ip = uniqueIp();
        const forgeries = await Promise.all(
          Array.from({ length: 70 }, () =>
            call(base(), { key: project.clientKey, path: "/api/v1/saves", method: "GET", token: forged, ip }),
          ),
        );
        return { forgeries, honest: await call(base(), { key: project.clientKey, path: "/api/v1/saves", method: "GET", token: victim }) };
      });
      expect(forgeries.map((r) => r.status)).toEqual(Array(70).fill(401));
      expect(honest.status).toBe(200);
      expect(honest.headers.get("x-ratelimit-remaining")).toBe("59");
    }, 30_000);
  });

  describe(`${name}: e-mail login brute force`, () => {
    const login = (key: string, email: string, password: string, ip: string) =>
      call(base(), { key, path: "/api/v1/auth/email/login", body: { email, password }, ip });

    it("cuts the attacker's address off from the account while the owner, from an address that was not failing, signs in", async () => {
      const { project, email: victim } = await accountInNewProject("victim");
      const attacker = uniqueIp();
      for (let i = 0; i < LOGIN_PER_ACCOUNT_IP; i++)
        expect((await login(project.clientKey, victim, `guess ${i}`, attacker)).status).toBe(401);
      const blocked = await login(project.clientKey, victim, "the real password", attacker);
      expect(blocked.status).toBe(429);
      expect(blocked.body).toMatchObject({
        error: { code: "RATE_LIMITED", details: { scope: "login-account-ip", limit: LOGIN_PER_ACCOUNT_IP } },
      });
      expect(blocked.headers.get("ratelimit-policy")).toBe(`"login-account-ip";q=${LOGIN_PER_ACCOUNT_IP};w=900`);
      expect(blocked.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await login(project.clientKey, victim, "the real password", uniqueIp())).status).toBe(200);
    }, 30_000);

    it("the account-wide budget stops guessing from many addresses; the owner still signs in from an address used before", async () => {
      const { project, email: victim } = await accountInNewProject("spread");
      const homeNet = uniqueNet();
      const home = `${homeNet}::1`;
      expect((await login(project.clientKey, victim, "the real password", home)).status).toBe(200);
      for (let i = 0; i < LOGIN_PER_ACCOUNT; i++)
        expect((await login(project.clientKey, victim, `guess ${i}`, uniqueIp())).status).toBe(401);
      const botnet = await login(project.clientKey, victim, "the real password", uniqueIp());
      expect(botnet.body).toMatchObject({ error: { code: "RATE_LIMITED", details: { scope: "login-account", limit: LOGIN_PER_ACCOUNT } } });
      expect((await login(project.clientKey, victim, "the real password", home)).status).toBe(200);
      // The device's privacy address rotated inside its /64 since: still known.
      expect((await login(project.clientKey, victim, "the real password", `${homeNet}::beef`)).status).toBe(200);
    }, 30_000);

    it("remembers a known address only as a keyed hash (a plain hash of an address is reversed by trying them all)", async () => {
      const { project, email } = await accountInNewProject("known");
      const home = uniqueIp();
      expect((await login(project.clientKey, email, "the real password", home)).status).toBe(200);
      const rows = await prisma().loginKnownIp.findMany({ where: { player: { projectId: project.projectId, email } } });
      expect(rows).toHaveLength(1);
      const stored = Buffer.from(rows[0]?.ipHash ?? new Uint8Array());
      expect(stored).toHaveLength(32);
      for (const candidate of [home, ipSubject(home)]) expect(stored.equals(createHash("sha256").update(candidate).digest())).toBe(false);
    }, 30_000);

    it("a correct login forgets the player's known addresses unused for 30 days", async () => {
      const project = await makeProject();
      const email = `stale-${randomBytes(4).toString("hex")}@example.com`;
      const { playerId } = await registerWithEmail({ projectId: project.projectId, email, password: "the real password", playerId: null });
      const day = 86_400_000;
      const stale = randomBytes(32);
      const recent = randomBytes(32);
      await prisma().loginKnownIp.createMany({
        data: [
          { playerId, ipHash: stale, lastSuccessAt: new Date(Date.now() - 31 * day) },
          { playerId, ipHash: recent, lastSuccessAt: new Date(Date.now() - 29 * day) },
        ],
      });
      expect((await login(project.clientKey, email, "the real password", uniqueIp())).status).toBe(200);
      const rows = await prisma().loginKnownIp.findMany({ where: { playerId }, select: { ipHash: true } });
      const kept = rows.map((r) => Buffer.from(r.ipHash));
      expect(kept).toHaveLength(2);
      expect(kept.some((h) => h.equals(recent))).toBe(true);
      expect(kept.some((h) => h.equals(stale))).toBe(false);
    }, 30_000);

    it("wrong passwords on account deletion spend the same budget: a stolen token cannot guess the password there instead", async () => {
      const { project, email: victim } = await accountInNewProject("delete-guess");
      const signedIn = await login(project.clientKey, victim, "the real password", uniqueIp());
      expect(signedIn.status).toBe(200);
      const token = String(signedIn.body.accessToken);
      const attacker = uniqueIp();
      const deleteAccount = (password: string) =>
        call(base(), { key: project.clientKey, path: "/api/v1/players/me", method: "DELETE", body: { password }, token, ip: attacker });
      for (let i = 0; i < LOGIN_PER_ACCOUNT_IP; i++) expect((await deleteAccount(`guess ${i}`)).status).toBe(401);
      const blocked = await deleteAccount("the real password");
      expect(blocked.status).toBe(429);
      expect(blocked.body).toMatchObject({ error: { code: "RATE_LIMITED", details: { scope: "login-account-ip" } } });
      expect((await login(project.clientKey, victim, "the real password", attacker)).status).toBe(429);
      expect((await call(base(), { key: project.clientKey, path: "/api/v1/players/me", method: "GET", token, ip: attacker })).status).toBe(
        200,
      );
    }, 30_000);

    it("an IPv6 attacker rotating addresses inside its /64 is cut off like one address; the owner elsewhere signs in", async () => {
      const { project, email: victim } = await accountInNewProject("rotate");
      const net = uniqueNet();
      for (let i = 0; i < LOGIN_PER_ACCOUNT_IP; i++)
        expect((await login(project.clientKey, victim, `guess ${i}`, `${net}:${i}::${i + 1}`)).status).toBe(401);
      const blocked = await login(project.clientKey, victim, "the real password", `${net}::ffff`);
      expect(blocked.body).toMatchObject({ error: { code: "RATE_LIMITED", details: { scope: "login-account-ip" } } });
      expect((await login(project.clientKey, victim, "the real password", uniqueIp())).status).toBe(200);
    }, 30_000);

    it("a burst of parallel guesses from many addresses cannot get more than the account-wide budget checked", async () => {
      const { project, email: victim } = await accountInNewProject("burst");
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => login(project.clientKey, victim, `guess ${i}`, uniqueIp())));
      expect(results.every((r) => r.status === 401 || r.status === 429)).toBe(true);
      expect(results.filter((r) => r.status === 401).length).toBeLessThanOrEqual(LOGIN_PER_ACCOUNT);
      expect(results.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(20 - LOGIN_PER_ACCOUNT);
    }, 30_000);

    it("only failures count: correct logins give their attempt back", async () => {
      const { project, email } = await accountInNewProject("ok");
      const ip = uniqueIp();
      for (let i = 0; i < LOGIN_PER_ACCOUNT_IP - 1; i++) expect((await login(project.clientKey, email, "wrong", ip)).status).toBe(401);
      for (let i = 0; i < LOGIN_PER_ACCOUNT_IP + 2; i++)
        expect((await login(project.clientKey, email, "the real password", ip)).status).toBe(200);
      expect((await login(project.clientKey, email, "wrong", ip)).status).toBe(401);
      expect((await login(project.clientKey, email, "wrong", ip)).status).toBe(429);
    }, 30_000);

    it("a burst of correct logins beyond the budget's headroom does not lock the address out afterwards", async () => {
      const { project, email } = await accountInNewProject("headroom");
      const ip = uniqueIp();
      for (let i = 0; i < LOGIN_PER_ACCOUNT_IP - 1; i++) expect((await login(project.clientKey, email, "wrong", ip)).status).toBe(401);
      const burst = await Promise.all(Array.from({ length: 4 }, () => login(project.clientKey, email, "the real password", ip)));
      expect(burst.every((r) => r.status === 200 || r.status === 429)).toBe(true);
      expect(burst.some((r) => r.status === 200)).toBe(true);
      // Refused attempts checked no password: they are given back, and nothing remembers the refusal.
      expect((await login(project.clientKey, email, "the real password", ip)).status).toBe(200);
      expect((await login(project.clientKey, email, "wrong", ip)).status).toBe(401);
      expect((await login(project.clientKey, email, "wrong", ip)).status).toBe(429);
    }, 30_000);

    it("cuts off one IP guessing many accounts; other IPs still log in", async () => {
      const { project, email } = await accountInNewProject("p");
      const attacker = uniqueIp();
      for (let i = 0; i < LOGIN_PER_IP; i++)
        expect((await login(project.clientKey, `nobody-${i}@example.com`, "x", attacker)).status).toBe(401);
      const blocked = await login(project.clientKey, email, "the real password", attacker);
      expect(blocked.body).toMatchObject({ error: { code: "RATE_LIMITED", details: { scope: "login-ip" } } });
      expect((await login(project.clientKey, email, "the real password", uniqueIp())).status).toBe(200);
    }, 30_000);

    it("registrations are limited per address; another address still registers", async () => {
      const project = await makeProject();
      const ip = uniqueIp();
      const register = (from: string) =>
        call(base(), {
          key: project.clientKey,
          path: "/api/v1/auth/email/register",
          body: { email: `r-${randomBytes(5).toString("hex")}@example.com`, password: "a long and unusual passphrase" },
          ip: from,
        });
      for (let i = 0; i < REGISTRATIONS_PER_IP; i++) expect((await register(ip)).status).toBe(200);
      const refused = await register(ip);
      expect(refused.body).toMatchObject({
        error: { code: "RATE_LIMITED", details: { scope: "register-ip", limit: REGISTRATIONS_PER_IP } },
      });
      expect((await register(uniqueIp())).status).toBe(200);
    }, 30_000);
  });
}

/**
 * One client spends as fast as it can (16 requests in flight) while a victim makes requests
 * spread over the flood (at most 5 a second: within its share), until the flood has sent
 * `floodAtLeast` requests and the victim 20.
 */
async function floodWhileVictim(
  abuse: () => Promise<Res>,
  victim: () => Promise<Res>,
  floodAtLeast: number,
): Promise<{ flood: Res[]; honest: Res[] }> {
  const flood: Res[] = [];
  const honest: Res[] = [];
  let done = false;
  const workers = Promise.all(
    Array.from({ length: 16 }, async () => {
      try {
        while (!done) flood.push(await abuse());
      } finally {
        done = true;
      }
    }),
  );
  try {
    while (!done && (honest.length < 20 || flood.length < floodAtLeast)) {
      honest.push(await victim());
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    done = true;
    await workers;
  }
  return { flood, honest };
}

async function failOpenCount(base: string): Promise<number> {
  const health = (await (await fetch(`${base}/api/health`)).json()) as { limiter: { failOpen: number } };
  return health.limiter.failOpen;
}

/**
 * After a flood: every victim request was answered, the flood got only 200s or 429s naming the
 * abuser's share, and no more answers than the share allows per window it spanned (plus
 * requests let through because the store was slow, counted by /api/health).
 */
async function expectShareHeld(
  base: string,
  o: { flood: Res[]; honest: Res[]; scope: string; share: number; t0: number; failOpenBefore: number },
): Promise<void> {
  expect(o.honest.map((r) => r.status)).toEqual(Array(o.honest.length).fill(200));
  expect(o.flood.filter((r) => r.status !== 200 && r.status !== 429)).toEqual([]);
  const scopes = new Set(
    o.flood.filter((r) => r.status === 429).map((r) => (r.body.error as { details: { scope: string } }).details.scope),
  );
  expect([...scopes]).toEqual([o.scope]);
  const windows = windowIndex(Date.now()) - windowIndex(o.t0) + 1;
  const failedOpen = (await failOpenCount(base)) - o.failOpenBefore;
  expect(o.flood.filter((r) => r.status === 200).length).toBeLessThanOrEqual(o.share * windows + failedOpen);
}

/** A fresh project with one e-mail account whose password is "the real password". */
async function accountInNewProject(prefix: string): Promise<{ project: Awaited<ReturnType<typeof makeProject>>; email: string }> {
  const project = await makeProject();
  const email = `${prefix}-${randomBytes(4).toString("hex")}@example.com`;
  await registerWithEmail({ projectId: project.projectId, email, password: "the real password", playerId: null });
  return { project, email };
}

/** An anonymous player's access token. */
async function anonymous(base: string, key: string, ip: string): Promise<string> {
  const res = await call(base, { key, ip });
  expect(res.status).toBe(200);
  return String(res.body.accessToken);
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

  behaviourSuite("Redis", () => a.baseUrl);

  it("two app instances sharing one Redis share one budget", async () => {
    const project = await makeProject({ plan: "ENTERPRISE", customRateLimit: 30 });
    const results = await inOneWindow(() =>
      Promise.all(Array.from({ length: 40 }, (_, i) => call(i % 2 ? a.baseUrl : b.baseUrl, { key: project.clientKey, method: "GET" }))),
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

  behaviourSuite("in-process", () => app.baseUrl);
});

describe("store failure (a private redis-server that the test stops and restarts)", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "gb-rl-fail-"));
  let redis: PrivateRedis;
  let app: StartedApp;
  beforeAll(async () => {
    redis = await privateRedis({ debugCommand: true });
    app = await startApp(appEnv({ REDIS_URL: redis.url, DATA_DIR: dataDir, RATE_LIMIT_STORE_TIMEOUT_MS: "100" }));
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
    // Counted on a project of its own: the sign-ins above spent this one's budget.
    const counted = await makeProject({ plan: "ENTERPRISE", customRateLimit: 5 });
    const statuses = await inOneWindow(async () => {
      const answers: number[] = [];
      for (let i = 0; i < 7; i++) answers.push((await call(app.baseUrl, { key: counted.clientKey, method: "GET" })).status);
      return answers;
    });
    expect(statuses).toEqual([405, 405, 405, 405, 405, 429, 429]);
  }, 60_000);

  it("a store slower than ~100 ms lets gameplay through without waiting for it, and counts the fail-open", async () => {
    const project = await makeProject();
    const failOpen = async () =>
      ((await (await fetch(`${app.baseUrl}/api/health`)).json()) as { limiter: { failOpen: number } }).limiter.failOpen;
    const before = await failOpen();
    const client = redis.client();
    const sleepStarted = Date.now();
    // Redis is single-threaded: while it sleeps, the limiter's calls wait behind the sleep.
    let sleepEndedAt = 0;
    const sleeping = client.call("DEBUG", "SLEEP", "1.5").then((ok) => {
      sleepEndedAt = Date.now();
      return ok;
    });
    await new Promise((r) => setTimeout(r, 100));
    const res = await call(app.baseUrl, { key: project.clientKey, method: "GET" });
    const answeredAt = Date.now();
    expect(await sleeping).toBe("OK");
    expect(sleepEndedAt - sleepStarted).toBeGreaterThanOrEqual(1_400);
    expect(res.status).toBe(405);
    // Answered while Redis was still asleep: the limiter did not wait for the store.
    expect(answeredAt).toBeLessThan(sleepEndedAt);
    expect(await failOpen()).toBeGreaterThan(before);
    client.disconnect();
  }, 30_000);
});

describe("defaults that matter: TRUST_PROXY unset, RATE_LIMITS=off", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "gb-rl-defaults-"));
  let direct: StartedApp;
  let unlimited: StartedApp;
  beforeAll(async () => {
    [direct, unlimited] = await Promise.all([
      startApp(appEnv({ DATA_DIR: dataDir, TRUST_PROXY: undefined, SEED_DEMO: "false" })),
      startApp(appEnv({ DATA_DIR: dataDir, RATE_LIMITS: "off", SEED_DEMO: "false" })),
    ]);
  });
  afterAll(async () => {
    await Promise.all([direct?.stop(), unlimited?.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("without TRUST_PROXY a client-sent X-Forwarded-For is ignored: changing it does not buy a fresh IP budget", async () => {
    const statuses = await inOneWindow(async () => {
      const answers: number[] = [];
      for (let i = 0; i < IP_BUDGET + 3; i++) answers.push((await call(direct.baseUrl, { ip: uniqueIp() })).status);
      return answers;
    });
    expect(statuses).toEqual([...Array(IP_BUDGET).fill(401), 429, 429, 429]);
  }, 30_000);

  it("without TRUST_PROXY a client-sent X-Forwarded-For buys neither a fresh IP share nor fresh login budgets", async () => {
    const project = await makeProject({ plan: "ENTERPRISE", customRateLimit: 300 });
    await setProjectShares({ projectId: project.projectId, playerRateLimit: null, ipRateLimit: 3 });
    const signIns = await inOneWindow(async () => {
      const answers: Res[] = [];
      for (let i = 0; i < 4; i++) answers.push(await call(direct.baseUrl, { key: project.clientKey, ip: uniqueIp() }));
      return answers;
    });
    expect(signIns.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(signIns[3]?.body).toMatchObject({ error: { details: { scope: "ip", limit: 3 } } });
    // Another project, so the exhausted IP share above does not answer the logins.
    const other = await makeProject();
    const email = `xff-${randomBytes(4).toString("hex")}@example.com`;
    await registerWithEmail({ projectId: other.projectId, email, password: "the real password", playerId: null });
    const logins: Res[] = [];
    for (let i = 0; i < LOGIN_PER_ACCOUNT_IP + 1; i++)
      logins.push(
        await call(direct.baseUrl, {
          key: other.clientKey,
          path: "/api/v1/auth/email/login",
          body: { email, password: "wrong" },
          ip: uniqueIp(),
        }),
      );
    expect(logins.map((r) => r.status)).toEqual([...Array(LOGIN_PER_ACCOUNT_IP).fill(401), 429]);
    expect(logins.at(-1)?.body).toMatchObject({ error: { details: { scope: "login-account-ip" } } });
  }, 30_000);

  it("RATE_LIMITS=off lifts the API budgets but keeps the login budgets", async () => {
    const project = await makeProject({ plan: "FREE" });
    const answers = await Promise.all(
      Array.from({ length: 120 }, () => call(unlimited.baseUrl, { key: project.serverKey, method: "GET", limitsOn: false })),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(120).fill(405));
    expect(answers[0]?.headers.get("x-ratelimit-limit")).toBeNull();
    const email = `off-${randomBytes(4).toString("hex")}@example.com`;
    await registerWithEmail({ projectId: project.projectId, email, password: "the real password", playerId: null });
    const ip = uniqueIp();
    const statuses: number[] = [];
    for (let i = 0; i < LOGIN_PER_ACCOUNT_IP + 1; i++) {
      statuses.push(
        (
          await call(unlimited.baseUrl, {
            key: project.clientKey,
            path: "/api/v1/auth/email/login",
            body: { email, password: "wrong" },
            ip,
            limitsOn: false,
          })
        ).status,
      );
    }
    expect(statuses).toEqual([...Array(LOGIN_PER_ACCOUNT_IP).fill(401), 429]);
    const registrations: number[] = [];
    for (let i = 0; i < REGISTRATIONS_PER_IP + 1; i++) {
      const body = { email: `off-r-${randomBytes(5).toString("hex")}@example.com`, password: "a long and unusual passphrase" };
      registrations.push(
        (await call(unlimited.baseUrl, { key: project.clientKey, path: "/api/v1/auth/email/register", body, ip, limitsOn: false })).status,
      );
    }
    expect(registrations).toEqual([...Array(REGISTRATIONS_PER_IP).fill(200), 429]);
  }, 30_000);
});

describe("a project's own shares", () => {
  const refusal = (path: string) => ({ code: "VALIDATION_ERROR", details: { issues: [expect.objectContaining({ path })] } });

  it("are whole numbers from 1 to the project budget, or null for the default", async () => {
    const free = await makeProject({ plan: "FREE" });
    await expect(setProjectShares({ projectId: free.projectId, playerRateLimit: 101, ipRateLimit: null })).rejects.toMatchObject(
      refusal("playerRateLimit"),
    );
    await expect(setProjectShares({ projectId: free.projectId, playerRateLimit: null, ipRateLimit: 0 })).rejects.toMatchObject(
      refusal("ipRateLimit"),
    );
    await expect(setProjectShares({ projectId: free.projectId, playerRateLimit: 2.5, ipRateLimit: null })).rejects.toMatchObject(
      refusal("playerRateLimit"),
    );
    const enterprise = await makeProject({ plan: "ENTERPRISE", customRateLimit: 300 });
    await expect(setProjectShares({ projectId: enterprise.projectId, playerRateLimit: 300, ipRateLimit: 301 })).rejects.toMatchObject(
      refusal("ipRateLimit"),
    );
    await setProjectShares({ projectId: free.projectId, playerRateLimit: 100, ipRateLimit: 1 });
    await setProjectShares({ projectId: enterprise.projectId, playerRateLimit: 300, ipRateLimit: null });
    const stored = await prisma().project.findMany({
      where: { id: { in: [free.projectId, enterprise.projectId] } },
      select: { id: true, playerRateLimit: true, ipRateLimit: true },
    });
    expect(new Map(stored.map((p) => [p.id, [p.playerRateLimit, p.ipRateLimit]]))).toEqual(
      new Map([
        [free.projectId, [100, 1]],
        [enterprise.projectId, [300, null]],
      ]),
    );
  });
});
