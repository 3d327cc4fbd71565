import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { instance, limiterReady, sweepRefusals } from "./index";

it("a refused identifier that never comes back is forgotten once its window ended (no unbounded refusal cache)", async () => {
  expect(await limiterReady()).toBe(true);
  const identifier = `sweep-${randomUUID()}`;
  const limiter = instance("unit-sweep", 1, 1);
  expect((await limiter.limit(identifier)).success).toBe(true);
  const refused = await limiter.limit(identifier);
  expect(refused.success).toBe(false);
  expect(sweepRefusals(Date.now())).toBe(1);
  expect(sweepRefusals(refused.reset + 1)).toBe(0);
});
