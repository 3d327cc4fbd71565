import { describe, expect, it } from "vitest";
import { periodInWords, rewardReason } from "./period-words";

describe("a period in words", () => {
  it("names a day, a week, a month, a cron period and an unscheduled period by their UTC start", () => {
    expect(periodInWords("0:2026-11-23T00:00:00.000Z", "daily")).toBe("23 Nov 2026");
    expect(periodInWords("2:2026-11-23T00:00:00.000Z", "weekly")).toBe("week of 23 Nov 2026");
    expect(periodInWords("0:2026-11-01T00:00:00.000Z", "monthly")).toBe("November 2026");
    expect(periodInWords("0:2026-11-27T18:00:00.000Z", "0 18 * * 5")).toBe("period from 27 Nov 2026 18:00 UTC");
    expect(periodInWords("1:all", null, new Date("2026-03-05T10:00:00Z"))).toBe("period from 5 Mar 2026");
    expect(periodInWords("0:all", null)).toBe("all time");
  });

  it("a reward's ledger line names the board, the period and the rank", () => {
    expect(rewardReason("Weekly Race", periodInWords("0:2026-11-23T00:00:00.000Z", "weekly"), 2)).toBe(
      "Reward: Weekly Race, week of 23 Nov 2026 (rank #2)",
    );
  });
});
