import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";

/**
 * Cache invalidations between instances over the machine's Redis (CI starts one on 6379): what
 * another instance publishes runs here, what this process invalidates is published, and a lost
 * subscription is a gap the caches that rely on it hear about.
 */
const REDIS_URL = process.env.REDIS_URL || "redis://127.0.0.1:6379";
const CHANNEL = "game-backend:invalidate";

type Invalidate = typeof import("./invalidate");
type Cluster = typeof import("./cluster");
let invalidate: Invalidate;
let cluster: Cluster;
let other: Redis;
const saved = { REDIS_URL: process.env.REDIS_URL, UPSTASH_REDIS_REST_URL: process.env.UPSTASH_REDIS_REST_URL };

beforeAll(async () => {
  process.env.REDIS_URL = REDIS_URL;
  delete process.env.UPSTASH_REDIS_REST_URL;
  vi.resetModules();
  invalidate = await import("./invalidate");
  cluster = await import("./cluster");
  other = new Redis(REDIS_URL);
  await vi.waitFor(() => expect(invalidate.invalidationsHeard()).toBe(true), { timeout: 10_000, interval: 20 });
});

afterAll(async () => {
  await invalidate.closeInvalidationBus();
  other.disconnect();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

afterEach(() => vi.restoreAllMocks());

it("a message another instance publishes runs the topic's handler in this process", async () => {
  const heard: unknown[] = [];
  cluster.onBroadcast("test:remote", (payload) => heard.push(payload));
  await other.publish(CHANNEL, JSON.stringify({ origin: "another-instance", topic: "test:remote", payload: { id: 7 } }));
  await vi.waitFor(() => expect(heard).toEqual([{ id: 7 }]), { timeout: 5_000, interval: 10 });
});

it("invalidateEverywhere applies the change here and publishes its topic and payload for the other instances", async () => {
  const listener = new Redis(REDIS_URL);
  const received: unknown[] = [];
  listener.on("message", (_channel: string, raw: string) => received.push(JSON.parse(raw)));
  await listener.subscribe(CHANNEL);
  let here = 0;
  await invalidate.invalidateEverywhere("test:published", { projectId: "p1" }, () => {
    here += 1;
  });
  expect(here).toBe(1);
  await vi.waitFor(
    () => expect(received).toContainEqual(expect.objectContaining({ topic: "test:published", payload: { projectId: "p1" } })),
    {
      timeout: 5_000,
      interval: 10,
    },
  );
  listener.disconnect();
});

it("this process ignores its own messages (it applied them before publishing)", async () => {
  const heard: unknown[] = [];
  cluster.onBroadcast("test:own", (payload) => heard.push(payload));
  cluster.onBroadcast("test:marker", (payload) => heard.push(payload));
  await invalidate.invalidateEverywhere("test:own", "mine", () => {});
  // Messages on one channel arrive in order: once the marker is here, the own message was seen and skipped.
  await other.publish(CHANNEL, JSON.stringify({ origin: "another-instance", topic: "test:marker", payload: "marker" }));
  await vi.waitFor(() => expect(heard).toContain("marker"), { timeout: 5_000, interval: 10 });
  expect(heard).toEqual(["marker"]);
});

describe("a lost subscription", () => {
  it("clears the caches registered for gaps, counts as unheard, and as heard again once resubscribed", async () => {
    let gaps = 0;
    invalidate.onInvalidationGap("test-cache", () => {
      gaps += 1;
    });
    const list = (await other.call("CLIENT", "LIST", "TYPE", "pubsub")) as string;
    const line = list.split("\n").find((l) => l.includes(`name=game-backend-invalidate-${process.pid}`));
    expect(line).toBeDefined();
    const id = /\bid=(\d+)/.exec(line ?? "")?.[1];
    const states: boolean[] = [];
    const poll = setInterval(() => states.push(invalidate.invalidationsHeard()), 1);
    await other.call("CLIENT", "KILL", "ID", String(id));
    // Dropped (a gap: unheard), then subscribed again (another: what was published between is lost).
    await vi.waitFor(
      () => {
        expect(gaps).toBeGreaterThanOrEqual(2);
        expect(invalidate.invalidationsHeard()).toBe(true);
      },
      { timeout: 10_000, interval: 10 },
    );
    clearInterval(poll);
    expect(states).toContain(false);
  });

  it("one that stays open but delivers nothing is noticed by the missing echo: a gap, then a new subscription", async () => {
    let gaps = 0;
    invalidate.onInvalidationGap("test-cache", () => {
      gaps += 1;
    });
    const bus = (globalThis as { __gameBackendInvalidationBus?: { subscriber: Redis } }).__gameBackendInvalidationBus;
    // Still connected, no longer subscribed: what a connection a NAT dropped without a reset looks like.
    await bus?.subscriber.unsubscribe(CHANNEL);
    await vi.waitFor(() => expect(gaps).toBeGreaterThanOrEqual(1), {
      timeout: invalidate.ECHO_STALE_MS + invalidate.ECHO_EVERY_MS + 10_000,
      interval: 20,
    });
    await vi.waitFor(
      () => {
        expect(gaps).toBeGreaterThanOrEqual(2);
        expect(invalidate.invalidationsHeard()).toBe(true);
      },
      { timeout: 10_000, interval: 20 },
    );
  }, 60_000);
});

it("counts as hearing only while its own echo came back within ECHO_STALE_MS", () => {
  expect(invalidate.invalidationsHeard()).toBe(true);
  const now = Date.now();
  vi.spyOn(Date, "now").mockReturnValue(now + invalidate.ECHO_STALE_MS + invalidate.ECHO_EVERY_MS + 1);
  expect(invalidate.invalidationsHeard()).toBe(false);
});

describe("which processes count as hearing every invalidation", () => {
  const without = async (env: Record<string, string | undefined>) => {
    const before = { ...process.env };
    Object.assign(process.env, env);
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
    vi.resetModules();
    const fresh: Invalidate = await import("./invalidate");
    const heard = fresh.invalidationsHeard();
    process.env = before;
    vi.resetModules();
    return heard;
  };

  it("one instance without Redis: its workers hear each other over IPC", async () => {
    expect(await without({ REDIS_URL: undefined, UPSTASH_REDIS_REST_URL: undefined })).toBe(true);
  });

  it("Upstash without REDIS_URL: no subscription, so never", async () => {
    expect(
      await without({ REDIS_URL: undefined, UPSTASH_REDIS_REST_URL: "https://example.upstash.io", UPSTASH_REDIS_REST_TOKEN: "t" }),
    ).toBe(false);
  });
});
