import { describe, expect, it } from "vitest";
import { countOf, createdOn, plural, span } from "./format";

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

  it("dates a creation to the minute", () => {
    expect(createdOn(new Date(2026, 10, 24, 9, 5))).toBe("24 Nov 2026, 09:05");
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
