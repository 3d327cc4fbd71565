import type { Cell } from "../export-source";

/**
 * Export encodings, written row by row. CSV per RFC 4180 (CRLF line ends, a field with a comma,
 * quote, CR or LF quoted, quotes doubled) with a guard against formula injection: a text cell
 * that a spreadsheet would run as a formula (starting with = + - @, or a tab or CR) gets a
 * leading apostrophe. Numbers are written as they are (a negative score stays a number).
 * JSON is one array, written element by element.
 */
export type ExportFormat = "csv" | "json";

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: Cell): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  if (typeof value === "boolean") return value ? "true" : "false";
  const text =
    value instanceof Date
      ? value.toISOString()
      : typeof value === "string"
        ? value
        : typeof value === "object"
          ? JSON.stringify(value)
          : String(value);
  const guarded = FORMULA_START.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

export const csvLine = (cells: Cell[]): string => `${cells.map(csvCell).join(",")}\r\n`;

/** A JSON value: dates as ISO strings (JSON.stringify's own rule), the rest as they are. */
export const jsonElement = (record: Record<string, unknown>): string => JSON.stringify(record);
