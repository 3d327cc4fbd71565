"use client";

import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useState } from "react";
import { Bar, BarChart, CartesianGrid, Legend, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Button, Card, State } from "@/components/ui/primitives";
import type { CodeHealth, HealthMarker, PlayersHealth, RequestHealth, RouteHealth } from "@/server/services/health";
import type { HealthRange } from "@/server/services/health/schemas";
import { messageOf } from "./errors";
import { when } from "./format";
import { MarkerList } from "./releases";

/**
 * The health view's parts, shared by a project's overview and the instance page: range tabs, a
 * caption that names the range shown, stat cards, requests by status class over time, the top
 * error codes and routes, and players per day. Numbers come from the request path's counters
 * (server/usage.ts), written every few seconds; the pages refetch every 10 s.
 */
export const RANGES: { value: HealthRange; label: string; text: string }[] = [
  { value: "1h", label: "Last hour", text: "the last hour" },
  { value: "24h", label: "Last 24 hours", text: "the last 24 hours" },
  { value: "7d", label: "Last 7 days", text: "the last 7 days" },
];
export const rangeText = (range: HealthRange) => RANGES.find((r) => r.value === range)?.text ?? range;

const CLASSES = [
  { key: "2xx", name: "2xx", color: "#15803d" },
  { key: "3xx", name: "3xx", color: "#2563eb" },
  { key: "4xx", name: "4xx", color: "#d97706" },
  { key: "5xx", name: "5xx", color: "#dc2626" },
  { key: "limited", name: "rate-limited", color: "#7c3aed" },
] as const;

/** Axis text and the tooltip take the page's palette (light or dark, app/globals.css); the bars' colours read on both. */
const AXIS_TICK = { className: "fill-zinc-600" };
const TOOLTIP = { background: "var(--color-white)", borderColor: "var(--color-zinc-200)", color: "var(--color-zinc-900)" };
// The tooltip's lines in its own text colour: recharts paints each line in its series' colour,
// and some (amber 4xx, blue 3xx, grey "active") fail contrast on the tooltip's background, in the
// dark theme most of them (axe: color-contrast, seen when the pointer rests on a chart).
const TOOLTIP_ITEM = { color: "var(--color-zinc-900)" };

export const count = (n: number) => Math.round(n).toLocaleString("en");
export const percent = (share: number) => `${(share * 100).toFixed(share > 0 && share < 0.001 ? 2 : 1)}%`;
export function ms(value: number | null): string {
  if (value === null) return "—";
  if (value >= 1000) return `${(value / 1000).toFixed(1)} s`;
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;
}

export function RangeTabs({ range, onChange }: { range: HealthRange; onChange: (range: HealthRange) => void }) {
  return (
    <fieldset className="flex flex-wrap gap-1">
      <legend className="sr-only">Time range</legend>
      {RANGES.map((r) => (
        <Button
          key={r.value}
          variant={range === r.value ? "primary" : "secondary"}
          aria-pressed={range === r.value}
          onClick={() => onChange(r.value)}
        >
          {r.label}
        </Button>
      ))}
    </fieldset>
  );
}

function Stat({ label, value, detail, testId }: { label: string; value: string; detail?: string; testId: string }) {
  return (
    <div className="rounded-lg border border-zinc-200 bg-white p-3 shadow-sm">
      <p className="text-xs text-zinc-600">{label}</p>
      <p className="text-xl font-semibold tabular-nums" data-testid={testId}>
        {value}
      </p>
      {detail && <p className="text-xs text-zinc-600">{detail}</p>}
    </div>
  );
}

/** Caption, stat cards and the chart of one range (with its config-change markers); `busy` while the next range is loading. */
export function RequestSummary({
  health,
  limitPerMinute,
  markers = [],
  busy,
}: {
  health: RequestHealth;
  limitPerMinute?: number;
  markers?: HealthMarker[];
  busy?: boolean;
}) {
  const t = health.totals;
  const empty = t.requests === 0;
  return (
    <section aria-labelledby="health-caption" aria-busy={busy || undefined} className={busy ? "space-y-4 opacity-60" : "space-y-4"}>
      <h2 id="health-caption" className="text-lg font-semibold" data-testid="health-caption">
        Requests in {rangeText(health.range)}
      </h2>
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
        <Stat label="Requests" value={count(t.requests)} testId="stat-requests" />
        <Stat
          label="Error rate"
          value={empty ? "—" : percent(t.errorRate)}
          detail={`${count(t.errors)} errors · ${percent(t.serverErrorRate)} 5xx`}
          testId="stat-error-rate"
        />
        <Stat label="Rate-limited" value={count(t.byClass.limited)} testId="stat-rate-limited" />
        <Stat label="Latency p50" value={ms(t.p50)} testId="stat-p50" />
        <Stat label="Latency p95" value={ms(t.p95)} testId="stat-p95" />
        <Stat label="Latency p99" value={ms(t.p99)} testId="stat-p99" />
      </div>
      <Card title={`Requests by status, per ${health.stepSeconds === 60 ? "minute" : "hour"}`}>
        {limitPerMinute !== undefined && health.range === "1h" && (
          <p className="mb-2 text-sm text-zinc-600" data-testid="plan-limit">
            The plan allows {count(limitPerMinute)} requests per minute (dashed line when the bars come near it).
          </p>
        )}
        {empty ? (
          <State kind="empty">No requests in {rangeText(health.range)}.</State>
        ) : (
          <RequestsChart health={health} limitPerMinute={health.range === "1h" ? limitPerMinute : undefined} markers={markers} />
        )}
        <MarkerList markers={markers} />
      </Card>
    </section>
  );
}

function tick(range: HealthRange) {
  return (iso: string) => {
    const d = new Date(iso);
    if (range === "7d") return d.toLocaleDateString("en", { weekday: "short", day: "numeric" });
    return d.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" });
  };
}

/** Marker numbers (1-based, as in the list under the chart) per chart bucket: one line per bucket. */
function markerLines(markers: HealthMarker[]): { bucket: string; numbers: string }[] {
  const lines = new Map<string, number[]>();
  for (const [i, m] of markers.entries()) lines.set(m.bucket, [...(lines.get(m.bucket) ?? []), i + 1]);
  return [...lines].map(([bucket, numbers]) => ({ bucket, numbers: numbers.join(",") }));
}

const MARKER_COLOR = "#0e7490";

function RequestsChart({ health, limitPerMinute, markers }: { health: RequestHealth; limitPerMinute?: number; markers: HealthMarker[] }) {
  const label = (v: unknown) => when(String(v));
  return (
    <div className="h-64 w-full" data-testid="requests-chart">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={health.series} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} barCategoryGap={1}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="start" tickFormatter={tick(health.range)} minTickGap={28} fontSize={11} tick={AXIS_TICK} />
          <YAxis allowDecimals={false} fontSize={11} width={44} tick={AXIS_TICK} />
          <Tooltip labelFormatter={label} contentStyle={TOOLTIP} itemStyle={TOOLTIP_ITEM} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {limitPerMinute !== undefined && (
            <ReferenceLine
              y={limitPerMinute}
              stroke="#dc2626"
              strokeDasharray="4 4"
              label={{ value: "plan limit", fontSize: 11, fill: "#dc2626" }}
            />
          )}
          {CLASSES.map((c) => (
            <Bar key={c.key} dataKey={c.key} name={c.name} stackId="a" fill={c.color} isAnimationActive={false} />
          ))}
          {markerLines(markers).map((m) => (
            <ReferenceLine
              key={m.bucket}
              className="health-marker-line"
              x={m.bucket}
              stroke={MARKER_COLOR}
              strokeWidth={2}
              label={{ value: m.numbers, position: "insideTopLeft", fontSize: 11, fill: MARKER_COLOR }}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

const codeCol = columnsFor<CodeHealth>();
const routeCol = columnsFor<RouteHealth>();

/** The top error codes and the busiest routes of the range. */
export function TopTables({ health }: { health: RequestHealth }) {
  const total = health.totals.requests;
  const codeColumns: DataTableColumns<CodeHealth> = [
    codeCol.accessor("code", { header: "Code", cell: (c) => <code className="break-all">{c.getValue()}</code> }),
    codeCol.accessor("status", { header: "Status" }),
    codeCol.accessor("count", { header: "Answers", cell: (c) => count(c.getValue()) }),
    codeCol.accessor((c) => (total ? c.count / total : 0), { id: "share", header: "Share", cell: (c) => percent(c.getValue()) }),
  ];
  const routeColumns: DataTableColumns<RouteHealth> = [
    routeCol.accessor((r) => `${r.method} ${r.route}`, {
      id: "route",
      header: "Route",
      cell: (c) => <code className="break-all">{c.getValue()}</code>,
    }),
    routeCol.accessor("requests", { header: "Requests", cell: (c) => count(c.getValue()) }),
    routeCol.accessor("errors", { header: "Errors", cell: (c) => count(c.getValue()) }),
    routeCol.accessor((r) => r.p95 ?? -1, { id: "p95", header: "p95", cell: (c) => ms(c.row.original.p95) }),
  ];
  if (total === 0) return null;
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
      <Card title="Top error codes">
        {health.topCodes.length === 0 ? (
          <State kind="empty">No errors in {rangeText(health.range)}.</State>
        ) : (
          <DataTable
            columns={codeColumns}
            data={health.topCodes}
            getRowId={(c) => c.code}
            caption="Top error codes"
            rowTestId="top-code"
            minWidth={360}
          />
        )}
      </Card>
      <Card title="Top routes">
        <DataTable
          columns={routeColumns}
          data={health.topRoutes}
          getRowId={(r) => `${r.method} ${r.route}`}
          caption="Top routes"
          rowTestId="top-route"
          minWidth={420}
        />
      </Card>
    </div>
  );
}

/** Players: total, today, and new and active per UTC day over the last 7 or 30 days. */
export function PlayersCard({ players, title = "Players" }: { players: PlayersHealth; title?: ReactNode }) {
  const [days, setDays] = useState<7 | 30>(7);
  const shown = players.days.slice(-days);
  const today = players.days[players.days.length - 1];
  const day = (iso: unknown) =>
    new Date(`${String(iso)}T00:00:00Z`).toLocaleDateString("en", { month: "short", day: "numeric", timeZone: "UTC" });
  return (
    <Card
      title={title}
      actions={
        <fieldset className="flex gap-1">
          <legend className="sr-only">Player days</legend>
          {([7, 30] as const).map((n) => (
            <Button key={n} variant={days === n ? "primary" : "secondary"} aria-pressed={days === n} onClick={() => setDays(n)}>
              {n} days
            </Button>
          ))}
        </fieldset>
      }
    >
      <div className="mb-3 grid grid-cols-3 gap-3">
        <Stat label="Players" value={count(players.total)} testId="stat-players" />
        <Stat label="New today" value={count(today?.new ?? 0)} testId="stat-new-today" />
        <Stat label="Active today" value={count(today?.active ?? 0)} testId="stat-active-today" />
      </div>
      <p className="mb-2 text-sm text-zinc-600" data-testid="players-caption">
        New and active players per day (UTC), last {days} days
      </p>
      <div className="h-56 w-full" data-testid="players-chart">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={shown} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="day" tickFormatter={day} minTickGap={20} fontSize={11} tick={AXIS_TICK} />
            <YAxis allowDecimals={false} fontSize={11} width={44} tick={AXIS_TICK} />
            <Tooltip labelFormatter={day} contentStyle={TOOLTIP} itemStyle={TOOLTIP_ITEM} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <Bar dataKey="new" name="new" fill="#0ea5e9" isAnimationActive={false} />
            <Bar dataKey="active" name="active" fill="#71717a" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
    </Card>
  );
}

function HealthLoading({ range }: { range: HealthRange }) {
  return <State kind="loading">Loading requests in {rangeText(range)}…</State>;
}

/**
 * A health query's states: loading (naming the range), an error with nothing to show, or the
 * data — kept on screen, under the error, when a refetch fails or a new range is loading (`busy`).
 */
export function HealthStates<T, E>({
  query,
  range,
  children,
}: {
  query: UseQueryResult<T, E>;
  range: HealthRange;
  children: (data: T, busy: boolean) => ReactNode;
}) {
  if (query.isPending) return <HealthLoading range={range} />;
  if (query.error && query.data === undefined) return <State kind="error">{messageOf(query.error)}</State>;
  return (
    <>
      {query.error && <State kind="error">{messageOf(query.error)}</State>}
      {children(query.data as T, query.isPlaceholderData)}
    </>
  );
}
