import { logger } from "../../log";
import type { ExportSource } from "../export-source";
import { csvLine, type ExportFormat, jsonElement } from "./format";

export const EXPORT_PAGE_ROWS = 1_000;

/**
 * One export as a byte stream, read from the database a page at a time (keyset paging: each
 * page starts after the last row of the one before, so page 100 costs what page 1 costs).
 * `pull` runs only when the consumer wants more, so at most about one page is held in memory
 * however slowly the client reads (backpressure); a client that goes away cancels it.
 */
export function exportStream<R, C>(
  source: ExportSource<R, C>,
  format: ExportFormat,
  pageRows = EXPORT_PAGE_ROWS,
  options: { bom?: boolean } = {},
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor: C | null = null;
  let index = 0;
  let started = false;
  let cancelled = false;
  const encode = (row: R): string => {
    const cells = source.cells(row, index);
    index += 1;
    if (format === "csv") return csvLine(cells);
    const record: Record<string, unknown> = {};
    source.columns.forEach((column, i) => {
      const cell = cells[i];
      record[column] = cell === undefined ? null : cell;
    });
    return `${index === 1 ? "\n" : ",\n"}${jsonElement(record)}`;
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          let text = "";
          if (!started) {
            started = true;
            // U+FEFF, encoded EF BB BF: Excel then reads the file as UTF-8.
            text = format === "csv" ? `${options.bom ? "\uFEFF" : ""}${csvLine([...source.columns])}` : "[";
          }
          const rows = await source.page(cursor, pageRows);
          if (cancelled) return;
          for (const row of rows) text += encode(row);
          const last = rows[rows.length - 1];
          if (last !== undefined) cursor = source.cursorOf(last);
          const done = rows.length < pageRows;
          if (done && format === "json") text += index === 0 ? "]\n" : "\n]\n";
          if (text) controller.enqueue(encoder.encode(text));
          if (done) controller.close();
        } catch (error) {
          // Headers are sent: the download ends short (the client sees an aborted transfer).
          logger("exports").error({ err: error }, "export failed mid-stream");
          controller.error(error);
        }
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 1 },
  );
}

/** A whole export read into a string (tests, small exports). */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}
