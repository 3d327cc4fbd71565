import { describe, expect, it } from "vitest";
import { deliveryBody, MAX_ATTEMPTS, RETRY_SCHEDULE_MS, retryDelayMs } from "./delivery";

describe("webhook retry schedule", () => {
  it("spans about a day over eight attempts, then gives up", () => {
    const total = RETRY_SCHEDULE_MS.reduce<number>((a, b) => a + b, 0);
    expect(total / 3_600_000).toBeGreaterThan(24);
    expect(total / 3_600_000).toBeLessThan(30);
    expect(MAX_ATTEMPTS).toBe(8);
    expect(retryDelayMs(MAX_ATTEMPTS, 1)).toBeNull();
  });

  it("the wait after each failure is the schedule's step within ±10 % jitter, scaled", () => {
    expect(retryDelayMs(1, 1, () => 0)).toBe(4_500);
    expect(retryDelayMs(1, 1, () => 1)).toBe(5_500);
    expect(retryDelayMs(2, 1, () => 0.5)).toBe(300_000);
    expect(retryDelayMs(3, 0.001, () => 0.5)).toBe(1_800);
  });

  it("a delivery's body carries the event's id, type, ISO time, project and data", () => {
    const body = deliveryBody({ id: "msg_1", type: "item.granted", createdAt: new Date(0), projectId: "p", data: { itemId: "sword" } });
    expect(JSON.parse(body)).toEqual({
      id: "msg_1",
      type: "item.granted",
      timestamp: "1970-01-01T00:00:00.000Z",
      projectId: "p",
      data: { itemId: "sword" },
    });
  });
});
