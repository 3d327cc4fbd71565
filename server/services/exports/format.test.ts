import { describe, expect, it } from "vitest";
import { csvCell, csvLine } from "./format";

describe("CSV cells (RFC 4180, with a formula guard)", () => {
  it("leaves plain text, numbers and booleans as they are; null is an empty cell", () => {
    expect(csvLine(["Ada", 42, -1.5, true, null, undefined])).toBe("Ada,42,-1.5,true,,\r\n");
  });

  it("quotes a cell with a comma, a quote, CR or LF and doubles its quotes", () => {
    expect(csvCell('say "hi", Ada')).toBe('"say ""hi"", Ada"');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell("cr\rhere")).toBe('"cr\rhere"');
  });

  it("prefixes text a spreadsheet would run as a formula (= + - @, tab, CR) with an apostrophe", () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")"');
    expect(csvCell("+1")).toBe("'+1");
    expect(csvCell("-2")).toBe("'-2");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("\tx")).toBe("'\tx");
    expect(csvCell(-2)).toBe("-2"); // a number stays a number
  });

  it("writes dates as ISO strings and JSON values as compact JSON", () => {
    expect(csvCell(new Date("2026-01-02T03:04:05.000Z"))).toBe("2026-01-02T03:04:05.000Z");
    expect(csvCell({ a: 1, b: [1, 2] })).toBe('"{""a"":1,""b"":[1,2]}"');
  });
});
