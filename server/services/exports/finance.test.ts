import { describe, expect, it } from "vitest";
import { priceOf, rangeBounds } from "./finance";
import { ZExportQuery } from "./schemas";
import { exportStream, readAll } from "./stream";

describe("finance exports' query and cells", () => {
  it("a range is whole UTC days, both ends included", () => {
    expect(rangeBounds({ from: "2026-03-01", to: "2026-03-31" })).toEqual({
      start: new Date("2026-03-01T00:00:00.000Z"),
      end: new Date("2026-04-01T00:00:00.000Z"),
    });
  });

  it("accepts up to 366 days and refuses more, an end before the start, and a date that does not exist", () => {
    const parse = (from: string, to: string) => ZExportQuery["finance-ledger"].safeParse({ from, to }).success;
    expect(parse("2024-01-01", "2024-12-31")).toBe(true); // 366 days (a leap year)
    expect(parse("2025-01-01", "2026-01-02")).toBe(false);
    expect(parse("2026-01-02", "2026-01-01")).toBe(false);
    expect(parse("2026-01-01", "2026-01-01")).toBe(true);
    expect(parse("2026-02-30", "2026-03-01")).toBe(false);
    expect(parse("2026-1-1", "2026-01-02")).toBe(false);
  });

  it("writes a price in millionths as its decimal", () => {
    expect(priceOf("4990000")).toBe(4.99);
    expect(priceOf("1")).toBe(0.000001);
    expect(priceOf("123456789012345")).toBe(123456789.012345);
    expect(priceOf(null)).toBeNull();
  });

  it("starts a CSV with a byte-order mark only when asked", async () => {
    const source = { columns: ["a"], page: async () => [], cursorOf: () => 0, cells: () => [] };
    // Bytes, not text: a UTF-8 decoder (Response.text()) drops the mark.
    const bytes = async (stream: ReadableStream<Uint8Array>) => [...new Uint8Array(await new Response(stream).arrayBuffer())];
    expect(await bytes(exportStream(source, "csv", 10, { bom: true }))).toEqual([0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a]);
    expect(await bytes(exportStream(source, "csv", 10))).toEqual([0x61, 0x0d, 0x0a]);
    expect(await readAll(exportStream(source, "csv", 10))).toBe("a\r\n");
  });
});
