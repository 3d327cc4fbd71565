"use client";

import {
  type ColumnDef,
  createColumnHelper,
  createSortedRowModel,
  type OnChangeFn,
  type RowData,
  rowSortingFeature,
  type SortingState,
  sortFn_alphanumeric,
  sortFn_basic,
  sortFn_datetime,
  tableFeatures,
  useTable,
} from "@tanstack/react-table";
import { ArrowDown, ArrowUp, ArrowUpDown } from "lucide-react";
import { type CSSProperties, type ReactNode, useState } from "react";
import { cx } from "./cx";

/**
 * The dashboard's one table (TanStack Table v9). Sorting is either the server's (pass `sorting` and
 * `onSortingChange`: the table only reports what the operator asked for, the caller fetches that
 * order) or done here for short lists (omit both). Paging stays with the caller, because the
 * server pages by offset or by cursor without a total. Below the `sm` breakpoint the same markup
 * is restyled as stacked cards (each cell labelled by its column header through `data-label`),
 * so a phone reads rows without scrolling sideways; the header row is then visually hidden.
 */
export const dataTableFeatures = tableFeatures({
  rowSortingFeature,
  sortedRowModel: createSortedRowModel(),
  sortFns: { alphanumeric: sortFn_alphanumeric, basic: sortFn_basic, datetime: sortFn_datetime },
});
export type DataTableFeatures = typeof dataTableFeatures;
export type { SortingState };

export const columnsFor = <T extends RowData>() => createColumnHelper<DataTableFeatures, T>();

// biome-ignore lint/suspicious/noExplicitAny: a column list mixes value types; each column is typed where it is built
export type DataTableColumns<T extends RowData> = Array<ColumnDef<DataTableFeatures, T, any>>;

const stableEmpty: never[] = [];

export function DataTable<T extends RowData>({
  columns,
  data,
  getRowId,
  sorting,
  onSortingChange,
  caption,
  rowTestId,
  minWidth = 560,
  phoneHidden = [],
}: {
  columns: DataTableColumns<T>;
  data: T[] | undefined;
  getRowId: (row: T) => string;
  sorting?: SortingState;
  onSortingChange?: OnChangeFn<SortingState>;
  caption?: ReactNode;
  rowTestId?: string;
  minWidth?: number;
  /** Ids of secondary columns left out of the stacked phone layout (shown from `sm` up). */
  phoneHidden?: string[];
}) {
  const [localSorting, setLocalSorting] = useState<SortingState>([]);
  const serverSorted = sorting !== undefined && onSortingChange !== undefined;
  const table = useTable({
    features: dataTableFeatures,
    columns,
    data: data ?? (stableEmpty as T[]),
    getRowId: (row: T) => getRowId(row),
    state: { sorting: serverSorted ? sorting : localSorting },
    onSortingChange: serverSorted ? onSortingChange : setLocalSorting,
    manualSorting: serverSorted,
    enableSortingRemoval: !serverSorted,
    enableMultiSort: false,
  });
  return (
    <div className="relative sm:overflow-x-auto">
      <table
        className="w-full text-left text-sm max-sm:block sm:min-w-[var(--table-min-width)]"
        style={{ "--table-min-width": `${minWidth}px` } as CSSProperties}
      >
        {caption && <caption className="sr-only">{caption}</caption>}
        <thead className="border-b border-zinc-200 text-xs uppercase text-zinc-500 max-sm:sr-only">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const column = header.column;
                const direction = column.getIsSorted();
                // A header left empty (a column of buttons) still names its column for screen readers.
                const label = header.isPlaceholder ? null : column.columnDef.header === "" ? (
                  <span className="sr-only">{column.id === "actions" ? "Actions" : column.id}</span>
                ) : (
                  <table.FlexRender header={header} />
                );
                return (
                  <th
                    key={header.id}
                    scope="col"
                    className="px-2 py-2 font-medium"
                    aria-sort={direction === "asc" ? "ascending" : direction === "desc" ? "descending" : undefined}
                  >
                    {column.getCanSort() ? (
                      <button
                        type="button"
                        onClick={column.getToggleSortingHandler()}
                        className="-mx-1 inline-flex items-center gap-1 rounded px-1 uppercase hover:text-zinc-900 focus:outline-none focus-visible:ring-2 focus-visible:ring-zinc-300"
                      >
                        {label}
                        {direction === "asc" ? (
                          <ArrowUp className="size-3.5" aria-hidden />
                        ) : direction === "desc" ? (
                          <ArrowDown className="size-3.5" aria-hidden />
                        ) : (
                          <ArrowUpDown className="size-3.5 opacity-50" aria-hidden />
                        )}
                      </button>
                    ) : (
                      label
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody className="divide-y divide-zinc-100 max-sm:block">
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id} data-testid={rowTestId} className="align-middle hover:bg-zinc-50 max-sm:block max-sm:py-2">
              {row.getAllCells().map((cell) => {
                const header = cell.column.columnDef.header;
                const actions = cell.column.id === "actions";
                return (
                  <td
                    key={cell.id}
                    data-label={typeof header === "string" ? header : undefined}
                    className={cx(
                      "px-2 py-2 max-sm:flex max-sm:min-w-0 max-sm:items-baseline max-sm:gap-3 max-sm:break-words max-sm:px-0 max-sm:py-1",
                      "max-sm:before:w-24 max-sm:before:shrink-0 max-sm:before:text-xs max-sm:before:uppercase max-sm:before:text-zinc-500 max-sm:before:content-[attr(data-label)]",
                      actions && "whitespace-nowrap text-right max-sm:justify-end max-sm:before:content-none",
                      phoneHidden.includes(cell.column.id) && "max-sm:hidden",
                    )}
                  >
                    <table.FlexRender cell={cell} />
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
