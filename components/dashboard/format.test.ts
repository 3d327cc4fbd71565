import { describe, expect, it } from "vitest";
import { countOf, plural, span, utcInstant, when } from "./format";

describe("plural", () => {
  it("counts with the singular for one and the plural otherwise", () => {
    expect(plural(1, "change")).toBe("1 change");
    expect(plural(0, "change")).toBe("0 changes");
    expect(plural(2_000, "entry", "entries")).toBe("2,000 entries");
  });

  it("counts operator-named things: names in -s are plurals, others singulars", () => {
    expect(countOf(1, "Coins")).toBe("1 Coin");
    expect(countOf(2, "coins")).toBe("2 coins");
    expect(countOf(1, "Shield")).toBe("1 Shield");
    expect(countOf(3, "Shield")).toBe("3 Shields");
    expect(countOf(2, "Glass")).toBe("2 Glasses");
    expect(countOf(1, "Glass")).toBe("1 Glass");
  });
});

describe("when: the dashboard's one date format", () => {
  const instant = "2026-11-24T08:34:05.123Z";
  it.each([
    ["Europe/Paris", "24 Nov 2026, 09:34 CET"],
    ["America/New_York", "24 Nov 2026, 03:34 EST"],
    ["UTC", "24 Nov 2026, 08:34 UTC"],
    ["Europe/London", "24 Nov 2026, 08:34 GMT"],
    ["Asia/Tokyo", "24 Nov 2026, 17:34 GMT+9"],
    ["Asia/Kolkata", "24 Nov 2026, 14:04 GMT+5:30"],
    ["America/Los_Angeles", "24 Nov 2026, 00:34 PST"],
  ])("in %s: %s", (zone, text) => {
    expect(when(instant, zone)).toBe(text);
  });

  it("names summer time by its own name and crosses midnight into the zone's date", () => {
    expect(when("2026-07-01T22:30:00Z", "Europe/Berlin")).toBe("2 Jul 2026, 00:30 CEST");
    expect(when("2026-07-01T22:30:00Z", "America/Chicago")).toBe("1 Jul 2026, 17:30 CDT");
  });

  it("takes a Date, an ISO string or epoch milliseconds alike; the title is the UTC instant to the second", () => {
    const ms = Date.parse(instant);
    expect(new Set([when(new Date(ms), "UTC"), when(instant, "UTC"), when(ms, "UTC")]).size).toBe(1);
    expect(utcInstant(instant)).toBe("2026-11-24 08:34:05 UTC");
  });
});

describe("span", () => {
  it("names a span in the largest unit that fits twice or exactly, rounded", () => {
    expect(span(5 * 86_400_000)).toBe("5 days");
    expect(span(86_400_000)).toBe("1 day");
    expect(span(99_305_000)).toBe("28 hours"); // the webhook retry schedule: 27 h 35 min
    expect(span(90_000)).toBe("90 seconds");
    expect(span(120_000)).toBe("2 minutes");
    expect(span(1_500)).toBe("1,500 milliseconds");
  });
});
