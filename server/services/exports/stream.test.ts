import { describe, expect, it } from "vitest";
import type { ExportSource } from "../export-source";
import { exportStream, readAll } from "./stream";

/** A source of `total` numbered rows that counts the pages read. */
function numbers(total: number) {
  const reads: Array<number | null> = [];
  const source: ExportSource<{ n: number; name: string }, number> = {
    columns: ["n", "name"],
    page: async (cursor, limit) => {
      reads.push(cursor);
      const start = cursor ?? 0;
      return Array.from({ length: Math.max(0, Math.min(limit, total - start)) }, (_, i) => ({
        n: start + i + 1,
        name: `row ${start + i + 1}`,
      }));
    },
    cursorOf: (r) => r.n,
    cells: (r) => [r.n, r.name],
  };
  return { source, reads };
}

describe("exportStream", () => {
  it("writes a CSV header and every row, page after page, each page starting after the last row", async () => {
    const { source, reads } = numbers(25);
    const text = await readAll(exportStream(source, "csv", 10));
    const lines = text.split("\r\n");
    expect(lines[0]).toBe("n,name");
    expect(lines[1]).toBe("1,row 1");
    expect(lines[25]).toBe("25,row 25");
    expect(lines).toHaveLength(27); // header, 25 rows, the empty string after the last CRLF
    expect(reads).toEqual([null, 10, 20]);
  });

  it("writes JSON as one array, element by element (also when empty)", async () => {
    expect(JSON.parse(await readAll(exportStream(numbers(3).source, "json", 2)))).toEqual([
      { n: 1, name: "row 1" },
      { n: 2, name: "row 2" },
      { n: 3, name: "row 3" },
    ]);
    expect(JSON.parse(await readAll(exportStream(numbers(0).source, "json", 2)))).toEqual([]);
    expect(JSON.parse(await readAll(exportStream(numbers(4).source, "json", 2)))).toHaveLength(4);
  });

  it("reads a page only when the consumer wants more (backpressure), and stops when cancelled", async () => {
    const { source, reads } = numbers(100_000);
    const reader = exportStream(source, "csv", 1_000).getReader();
    await reader.read();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // One page read for the chunk handed over, at most one more queued: not the 100 pages of the whole export.
    expect(reads.length).toBeLessThanOrEqual(2);
    await reader.cancel();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(reads.length).toBeLessThanOrEqual(2);
  });
});
