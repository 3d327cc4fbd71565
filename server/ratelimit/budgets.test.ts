import { describe, expect, it } from "vitest";
import { budgetsOf, MIN_SHARE } from "./index";

const defaults = { customRateLimit: null, playerRateLimit: null, ipRateLimit: null };

describe("default shares of the project budget", () => {
  it("give one player at least 60 a window and less than the project on every plan", () => {
    for (const source of [
      { ...defaults, plan: "FREE" as const },
      { ...defaults, plan: "PRO" as const },
      { ...defaults, plan: "ENTERPRISE" as const },
      ...[61, 100, 250, 1_000, 5_000, 1_000_000].map((customRateLimit) => ({ ...defaults, plan: "ENTERPRISE" as const, customRateLimit })),
    ]) {
      const b = budgetsOf(source);
      expect(b.player).toBeGreaterThanOrEqual(MIN_SHARE);
      expect(b.player).toBeLessThan(b.project);
      expect(b.ip).toBeGreaterThanOrEqual(MIN_SHARE);
      expect(b.ip).toBeLessThanOrEqual(b.project);
    }
  });

  it("are Free 60/60, Pro 200/300 (200 sign-ins behind one NAT address fit a Pro minute)", () => {
    expect(budgetsOf({ ...defaults, plan: "FREE" })).toEqual({ project: 100, player: 60, ip: 60 });
    expect(budgetsOf({ ...defaults, plan: "PRO" })).toEqual({ project: 1_000, player: 200, ip: 300 });
  });

  it("for an Enterprise budget of 60 or less are the whole budget (no share can be both ≥ 60 and below it)", () => {
    expect(budgetsOf({ ...defaults, plan: "ENTERPRISE", customRateLimit: 60 })).toEqual({ project: 60, player: 60, ip: 60 });
    expect(budgetsOf({ ...defaults, plan: "ENTERPRISE", customRateLimit: 5 })).toEqual({ project: 5, player: 5, ip: 5 });
  });

  it("a project's own share applies, cut to the project budget after a plan change lowered it", () => {
    expect(budgetsOf({ plan: "PRO", customRateLimit: null, playerRateLimit: 70, ipRateLimit: 900 })).toEqual({
      project: 1_000,
      player: 70,
      ip: 900,
    });
    expect(budgetsOf({ plan: "FREE", customRateLimit: null, playerRateLimit: 70, ipRateLimit: 900 })).toEqual({
      project: 100,
      player: 70,
      ip: 100,
    });
  });
});
