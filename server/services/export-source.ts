/** A cell: text, a number, a boolean, a date, null, or any JSON value (written as compact JSON). */
export type Cell = unknown;

/**
 * What an export reads, a page at a time: the audit log, the player list, the ledger and a
 * board's entries offer one; exports/stream.ts writes it. Below both, so a module that offers
 * an export does not import the exports folder that imports it.
 */
export type ExportSource<R, C> = {
  columns: readonly string[];
  /** Up to `limit` rows after `cursor` (null: from the start), in the export's order. */
  page: (cursor: C | null, limit: number) => Promise<R[]>;
  cursorOf: (row: R) => C;
  /** One row's cells, in `columns` order; `index` counts rows from 0 across pages (a rank). */
  cells: (row: R, index: number) => Cell[];
};
