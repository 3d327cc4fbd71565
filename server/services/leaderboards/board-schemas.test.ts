import { describe, expect, it } from "vitest";
import { rewardRanges, scheduleShapeProblem, ZBoardPatch, ZNewBoard, ZRewards } from "./board-schemas";
import { ZCreateLeaderboard, ZUpdateLeaderboard } from "./schemas";

/** The dashboard's form checks (board-schemas.ts) agree with the service's, which add only the cron parse. */
describe("leaderboard definition schemas in the browser and the service", () => {
  const board = { id: "arena", name: "Arena", sortOrder: "desc", operator: "best", minScore: 0, maxScore: 100, resetSchedule: "weekly" };
  const cases: Array<[string, Record<string, unknown>]> = [
    ["a valid board", board],
    ["an id with capitals", { ...board, id: "Arena" }],
    ["an empty name", { ...board, name: "  " }],
    ["bounds out of order", { ...board, minScore: 10, maxScore: 5 }],
    ["a schedule with 4 fields", { ...board, resetSchedule: "0 18 * *" }],
    ["an unknown field", { ...board, extra: true }],
  ];
  it.each(cases)("%s: same verdict, same paths", (_, input) => {
    const browser = ZNewBoard.safeParse(input);
    const service = ZCreateLeaderboard.safeParse(input);
    expect(browser.success).toBe(service.success);
    expect(browser.error?.issues.map((i) => i.path.join("."))).toEqual(service.error?.issues.map((i) => i.path.join(".")));
  });

  it("only the service parses a cron expression", () => {
    const patch = { resetSchedule: "99 * * * *" };
    expect(ZBoardPatch.safeParse(patch).success).toBe(true);
    expect(ZUpdateLeaderboard.safeParse(patch).success).toBe(false);
    expect(scheduleShapeProblem("0 18 * * 5")).toBeNull();
    expect(scheduleShapeProblem("hourly")).toMatch(/5-field cron/);
  });
});

describe("rewards", () => {
  const gems = [{ id: "gems", amount: 1 }];
  const tiers = ZRewards.parse([
    { rank: 1, currencies: gems },
    { fromRank: 2, toRank: 3, currencies: gems },
    { fromRank: 4, toRank: 10, currencies: gems },
    { topPercent: 10, currencies: gems },
    { topPercent: 50, currencies: gems },
  ]);

  it("percent tiers start after the previous tier and end at ⌈percent × entries / 100⌉", () => {
    expect(rewardRanges(tiers, 10_000)).toEqual([
      { tier: 0, from: 1, to: 1 },
      { tier: 1, from: 2, to: 3 },
      { tier: 2, from: 4, to: 10 },
      { tier: 3, from: 11, to: 1_000 },
      { tier: 4, from: 1_001, to: 5_000 },
    ]);
  });

  it("small periods: ranges stop at the last entry and a percent tier inside the rank tiers pays no one", () => {
    expect(rewardRanges(tiers, 50)).toEqual([
      { tier: 0, from: 1, to: 1 },
      { tier: 1, from: 2, to: 3 },
      { tier: 2, from: 4, to: 10 },
      { tier: 4, from: 11, to: 25 },
    ]);
    expect(rewardRanges(tiers, 2)).toEqual([
      { tier: 0, from: 1, to: 1 },
      { tier: 1, from: 2, to: 2 },
    ]);
  });

  it("refuses overlaps, rank tiers after percent tiers, shrinking percents and duplicate lines", () => {
    const bad = [
      [
        { rank: 2, currencies: gems },
        { rank: 1, currencies: gems },
      ],
      [
        { topPercent: 5, currencies: gems },
        { rank: 1, currencies: gems },
      ],
      [
        { topPercent: 5, currencies: gems },
        { topPercent: 5, currencies: gems },
      ],
      [{ rank: 1, currencies: [...gems, ...gems] }],
      [{ fromRank: 3, toRank: 2, currencies: gems }],
      [{ fromRank: 3, currencies: gems }],
      [{ topPercent: 0, currencies: gems }],
    ];
    for (const rewards of bad) expect(ZRewards.safeParse(rewards).success, JSON.stringify(rewards)).toBe(false);
  });
});
