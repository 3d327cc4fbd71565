import { randomUUID } from "node:crypto";
import { Ratelimit } from "@upstash/ratelimit";
import { expect, it } from "vitest";
import { FixedWindowCounters } from "./fixed-window.mjs";
import { MemoryStore } from "./ratelimit/stores";

type Redis = ConstructorParameters<typeof Ratelimit>[0]["redis"];

it("the in-process store runs the library's fixed window: the limit, then refusals, remaining counting down, a fresh window later", async () => {
  const limiter = new Ratelimit({
    redis: new MemoryStore() as unknown as Redis,
    limiter: Ratelimit.fixedWindow(3, "3 s"),
    prefix: `unit-fw-${randomUUID()}`,
    ephemeralCache: false,
  });
  // The library's windows are aligned to the clock (floor(now / window)): start just after a
  // boundary, so the calls below share one window even on a busy machine (a 1 s window that
  // began mid-window crossed into the next one in CI).
  await new Promise((r) => setTimeout(r, 3_000 - (Date.now() % 3_000) + 20));
  const answers: Awaited<ReturnType<Ratelimit["limit"]>>[] = [];
  for (let i = 0; i < 5; i++) answers.push(await limiter.limit("id"));
  expect(answers.map((a) => [a.success, a.remaining])).toEqual([
    [true, 2],
    [true, 1],
    [true, 0],
    [false, 0],
    [false, 0],
  ]);
  expect((await limiter.getRemaining("id")).remaining).toBe(0);
  await new Promise((r) => setTimeout(r, Math.max(0, (answers[0]?.reset ?? 0) - Date.now()) + 20));
  expect((await limiter.limit("id")).remaining).toBe(2);
}, 15_000); // up to two 3 s windows of waiting

it("a refund (negative rate) gives units back within the window", async () => {
  const limiter = new Ratelimit({
    redis: new MemoryStore() as unknown as Redis,
    limiter: Ratelimit.fixedWindow(2, "60 s"),
    prefix: `unit-fw-${randomUUID()}`,
    ephemeralCache: false,
  });
  // Not in the last 2 s of a clock-aligned minute, where the calls could straddle two windows.
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 2_000) await new Promise((r) => setTimeout(r, left + 20));
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
