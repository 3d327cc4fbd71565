import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";

/**
 * The session cache's bounds, with the clock injected (Date.now): how long an entry is trusted
 * while revocations are heard and while they may not be, an end that passed, and a lookup that
 * overlapped a revocation. Runs as one instance without Redis (every revocation heard) unless a
 * test points REDIS_URL at a port nothing listens on (never heard).
 */
type Cache = typeof import("./session-cache");
const saved = { ...process.env };
let cache: Cache;

const state = (playerId = "p1", expiresInMs = 3_600_000) => ({
  playerId,
  revokedAt: null,
  expiresAt: new Date(Date.now() + expiresInMs),
  bannedAt: null,
  bannedUntil: null,
  banReason: null,
});

async function load(env: Record<string, string | undefined>): Promise<Cache> {
  process.env = { ...saved, SESSION_CACHE_TTL_SECONDS: "30" };
  delete process.env.REDIS_URL;
  delete process.env.UPSTASH_REDIS_REST_URL;
  for (const [k, v] of Object.entries(env)) if (v !== undefined) process.env[k] = v;
  vi.resetModules();
  delete (globalThis as { __gameBackendSessions?: unknown }).__gameBackendSessions;
  return import("./session-cache");
}

beforeAll(async () => {
  cache = await load({});
});

afterEach(() => vi.restoreAllMocks());

afterAll(async () => {
  const { closeInvalidationBus } = await import("../invalidate");
  await closeInvalidationBus();
  process.env = saved;
});

function later(ms: number): void {
  const now = Date.now();
  vi.spyOn(Date, "now").mockReturnValue(now + ms);
}

it("while revocations are heard, an entry is trusted for SESSION_CACHE_TTL_SECONDS (30 s here)", () => {
  cache.rememberSession("s-heard", state(), cache.sessionGeneration());
  later(29_000);
  expect(cache.cachedSession("s-heard")?.playerId).toBe("p1");
  vi.restoreAllMocks();
  later(30_500);
  expect(cache.cachedSession("s-heard")).toBeUndefined();
});

it("while revocations may be missed (Redis unreachable), an entry is trusted for 2 s at most", async () => {
  const unheard = await load({ REDIS_URL: "redis://127.0.0.1:1" });
  unheard.rememberSession("s-unheard", state(), unheard.sessionGeneration());
  later(1_500);
  expect(unheard.cachedSession("s-unheard")?.playerId).toBe("p1");
  vi.restoreAllMocks();
  later(unheard.UNHEARD_TTL_SECONDS * 1_000 + 500);
  expect(unheard.cachedSession("s-unheard")).toBeUndefined();
  cache = await load({});
});

it("a lookup whose query overlapped a revocation does not cache its answer", async () => {
  const generation = cache.sessionGeneration();
  await cache.forgetSessions({ sessionId: "some-other-session" });
  cache.rememberSession("s-overlapped", state(), generation);
  expect(cache.cachedSession("s-overlapped")).toBeUndefined();
});

it("a cached session whose end has passed is read again (a refresh may have extended it)", () => {
  cache.rememberSession("s-ending", state("p1", 1_000), cache.sessionGeneration());
  expect(cache.cachedSession("s-ending")).toBeDefined();
  later(1_500);
  expect(cache.cachedSession("s-ending")).toBeUndefined();
});

it("forgetting a player drops each of its sessions and no other player's", async () => {
  const g = cache.sessionGeneration();
  cache.rememberSession("s-a1", state("pa"), g);
  cache.rememberSession("s-a2", state("pa"), g);
  cache.rememberSession("s-b1", state("pb"), g);
  await cache.forgetSessions({ playerId: "pa" });
  expect([cache.cachedSession("s-a1"), cache.cachedSession("s-a2")]).toEqual([undefined, undefined]);
  expect(cache.cachedSession("s-b1")?.playerId).toBe("pb");
});
