"use client";

import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Card, State } from "@/components/ui/primitives";
import type { HealthMarker, ReleaseHealth, ReleaseRow } from "@/server/services/health";
import type { HealthRange } from "@/server/services/health/schemas";
import { count, ms, percent, rangeText } from "./health";
import { whenUtcAndLocal } from "./live-format";

/**
 * Release health: the range's answers per client version and platform (the SDKs' X-Client-Version
 * and X-Platform; "unknown" when absent or malformed) beside the range of equal length before it,
 * and the config changes and scheduled events of the range, numbered as on the requests chart.
 */
const col = columnsFor<ReleaseRow>();

/** A change against the previous range: its arrow, and its colour saying whether it got worse (null: neither, as for traffic). */
function Change({ value, text, worseWhenUp }: { value: number | null; text: string; worseWhenUp: boolean | null }) {
  if (value === null) return <span className="text-zinc-600">new</span>;
  if (Math.abs(value) < 1e-9) return <span className="text-zinc-600">= {text}</span>;
  const up = value > 0;
  const tone = worseWhenUp === null ? "text-zinc-700" : up === worseWhenUp ? "text-red-700" : "text-green-800";
  return (
    <span className={tone}>
      <span aria-hidden="true">{up ? "↑" : "↓"}</span>
      <span className="sr-only">{up ? "up" : "down"}</span> {text}
    </span>
  );
}

function Versus({ row }: { row: ReleaseRow }) {
  const { previous, delta } = row;
  if (previous.requests === 0) return <span className="text-zinc-600">none before</span>;
  const points = `${(Math.abs(delta.errorRate) * 100).toFixed(1)} pts errors`;
  return (
    <span className="flex flex-col text-xs" data-testid="release-versus">
      <Change value={delta.requests} text={`${count(Math.abs(delta.requests))} requests`} worseWhenUp={null} />
      <Change value={delta.errorRate} text={points} worseWhenUp />
      {delta.p95 !== null && <Change value={delta.p95} text={`${ms(Math.abs(delta.p95))} p95`} worseWhenUp />}
    </span>
  );
}

const unknown = (s: string) => (s === "" ? <span className="text-zinc-600 italic">unknown</span> : <code className="break-all">{s}</code>);

export function ReleasesCard({ releases, range }: { releases: ReleaseHealth; range: HealthRange }) {
  const columns: DataTableColumns<ReleaseRow> = [
    col.accessor("clientVersion", { header: "Version", cell: (c) => unknown(c.getValue()) }),
    col.accessor("platform", { header: "Platform", cell: (c) => unknown(c.getValue()) }),
    col.accessor((r) => r.current.requests, { id: "requests", header: "Requests", cell: (c) => count(c.getValue()) }),
    col.accessor((r) => r.current.errorRate, {
      id: "errors",
      header: "Errors",
      cell: (c) => (c.row.original.current.requests ? `${percent(c.getValue())} (${count(c.row.original.current.errors)})` : "—"),
    }),
    col.accessor((r) => r.current.limited, { id: "limited", header: "Rate-limited", cell: (c) => count(c.getValue()) }),
    col.accessor((r) => r.current.p95 ?? -1, { id: "p95", header: "p95", cell: (c) => ms(c.row.original.current.p95) }),
    col.display({ id: "versus", header: "vs previous range", cell: (c) => <Versus row={c.row.original} /> }),
  ];
  return (
    <Card title="Releases">
      <p className="mb-2 text-sm text-zinc-600" data-testid="releases-caption">
        By client version and platform (X-Client-Version, X-Platform) in {rangeText(range)}, against the{" "}
        {rangeText(range).replace("the last ", "")} before. Errors leave out rate-limited answers.
      </p>
      {releases.rows.length === 0 ? (
        <State kind="empty">No requests in {rangeText(range)} or the range before.</State>
      ) : (
        <>
          <DataTable
            columns={columns}
            data={releases.rows}
            getRowId={(r) => `${r.clientVersion}\n${r.platform}`}
            caption="Releases"
            rowTestId="release-row"
            minWidth={720}
          />
          {releases.more > 0 && <p className="mt-2 text-sm text-zinc-600">{count(releases.more)} less busy releases not shown.</p>}
        </>
      )}
    </Card>
  );
}

/** The chart's markers as text: number, time (UTC and local) and what changed. */
export function MarkerList({ markers }: { markers: HealthMarker[] }) {
  if (markers.length === 0) return null;
  return (
    <div className="mt-3">
      <h3 className="text-sm font-semibold">Changes in this range (numbered on the chart)</h3>
      <ol className="mt-1 space-y-1 text-sm" data-testid="health-markers">
        {markers.map((m, i) => {
          const when = whenUtcAndLocal(m.at);
          return (
            <li key={m.id} data-testid="health-marker" className="flex flex-wrap gap-x-2">
              <span className="font-semibold tabular-nums">{i + 1}.</span>
              <span className="tabular-nums text-zinc-600">
                {when.utc} <span className="text-xs">({when.local})</span>
              </span>
              <span>{m.label}</span>
            </li>
          );
        })}
      </ol>
    </div>
  );
}
