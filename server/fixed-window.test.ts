import { randomUUID } from "node:crypto";
import { Ratelimit } from "@upstash/ratelimit";
import { afterEach, expect, it, vi } from "vitest";
import { FixedWindowCounters } from "./fixed-window.mjs";
import { MemoryStore } from "./ratelimit/stores";

type Redis = ConstructorParameters<typeof Ratelimit>[0]["redis"];

// The library's windows are aligned to the clock (floor(now / window)) and both it and the store
// read Date.now(): a fake clock puts the calls where the test says, with no waiting and no window
// boundary that a busy machine could cross between two calls.
afterEach(() => {
  vi.useRealTimers();
});
const fakeClockAt = (ms: number) => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(ms);
};

it("the in-process store runs the library's fixed window: the limit, then refusals, remaining counting down, a fresh window later", async () => {
  const limiter = new Ratelimit({
    redis: new MemoryStore() as unknown as Redis,
    limiter: Ratelimit.fixedWindow(3, "3 s"),
    prefix: `unit-fw-${randomUUID()}`,
    ephemeralCache: false,
  });
  fakeClockAt(1_800_000_000_000 + 20); // just after a boundary
  const answers: Awaited<ReturnType<Ratelimit["limit"]>>[] = [];
  for (let i = 0; i < 5; i++) answers.push(await limiter.limit("id"));
  expect(answers.map((a) => [a.success, a.remaining])).toEqual([
    [true, 2],
    [true, 1],
    [true, 0],
    [false, 0],
    [false, 0],
  ]);
  expect(answers[0]?.reset).toBe(1_800_000_003_000);
  vi.setSystemTime(1_800_000_002_990); // the last moment of the window
  expect((await limiter.getRemaining("id")).remaining).toBe(0);
  expect((await limiter.limit("id")).success).toBe(false);
  vi.setSystemTime(answers[0]?.reset ?? 0);
  expect((await limiter.limit("id")).remaining).toBe(2);
});

it("a refund (negative rate) gives units back within the window", async () => {
  const limiter = new Ratelimit({
    redis: new MemoryStore() as unknown as Redis,
    limiter: Ratelimit.fixedWindow(2, "60 s"),
    prefix: `unit-fw-${randomUUID()}`,
    ephemeralCache: false,
  });
  fakeClockAt(1_800_000_000_000 + 20);
  expect((await limiter.limit("id")).success).toBe(true);
  expect((await limiter.limit("id")).success).toBe(true);
  expect((await limiter.limit("id")).success).toBe(false);
  await limiter.limit("id", { rate: -2 });
  expect((await limiter.limit("id")).success).toBe(true);
});

it("the counters the launcher's primary holds for its workers: one count per key and window", () => {
  const counters = new FixedWindowCounters();
  expect(counters.increment("a", 1, 60_000)).toBe(1);
  expect(counters.increment("a", 1, 60_000)).toBe(2);
  expect(counters.increment("b", 5, 60_000)).toBe(5);
  expect(counters.current("a")).toBe(2);
  expect(counters.run("read", ["a"], [10, 60_000]).at(0)).toBe(8);
  expect(counters.increment("gone", 1, -1)).toBe(1);
  expect(counters.current("gone")).toBe(0);
});
