import { describe, expect, it } from "vitest";
import { parseSchedule, periodKey, scheduleProblem } from "./periods";

const at = (iso: string) => new Date(iso);

describe("leaderboard periods from the schedule and the clock (UTC)", () => {
  it("daily: the boundary is midnight UTC, to the millisecond", () => {
    const before = periodKey(0, "daily", at("2026-11-22T23:59:59.999Z"));
    const after = periodKey(0, "daily", at("2026-11-23T00:00:00.000Z"));
    expect(before).toEqual({ period: "0:2026-11-22T00:00:00.000Z", resetsAt: at("2026-11-23T00:00:00.000Z") });
    expect(after).toEqual({ period: "0:2026-11-23T00:00:00.000Z", resetsAt: at("2026-11-24T00:00:00.000Z") });
  });

  it("weekly periods start on Monday; monthly on the 1st, also across a year", () => {
    expect(periodKey(0, "weekly", at("2026-11-22T12:00:00Z")).period).toBe("0:2026-11-16T00:00:00.000Z"); // a Sunday
    expect(periodKey(0, "weekly", at("2026-11-23T00:00:00Z")).period).toBe("0:2026-11-23T00:00:00.000Z"); // a Monday
    expect(periodKey(0, "monthly", at("2026-12-31T23:59:59.999Z"))).toEqual({
      period: "0:2026-12-01T00:00:00.000Z",
      resetsAt: at("2027-01-01T00:00:00.000Z"),
    });
  });

  it("cron schedules: the last fire time at or before now starts the period", () => {
    const every6h = parseSchedule("0 */6 * * *");
    expect(periodKey(1, every6h, at("2026-11-22T05:59:59.999Z"))).toEqual({
      period: "1:2026-11-22T00:00:00.000Z",
      resetsAt: at("2026-11-22T06:00:00.000Z"),
    });
    expect(periodKey(1, every6h, at("2026-11-22T06:00:00.000Z")).period).toBe("1:2026-11-22T06:00:00.000Z");
  });

  it("no schedule: one period per epoch; reset now bumps the epoch", () => {
    expect(periodKey(0, null, at("2026-11-22T00:00:00Z"))).toEqual({ period: "0:all", resetsAt: null });
    expect(periodKey(3, null, at("2030-01-01T00:00:00Z")).period).toBe("3:all");
  });

  it("refuses schedules that are not daily, weekly, monthly or a valid 5-field cron", () => {
    expect(scheduleProblem("daily")).toBeNull();
    expect(scheduleProblem("*/15 * * * *")).toBeNull();
    expect(scheduleProblem("hourly")).not.toBeNull();
    expect(scheduleProblem("* * * * * *")).not.toBeNull();
    expect(scheduleProblem("61 * * * *")).not.toBeNull();
    expect(scheduleProblem("")).not.toBeNull();
  });
});
