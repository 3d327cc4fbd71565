import { describe, expect, it } from "vitest";
import { scheduleShapeProblem, ZBoardPatch, ZNewBoard } from "./board-schemas";
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
