"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Bar, BarChart, CartesianGrid, Legend, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Button, Card, State } from "@/components/ui/primitives";
import type { SinkKind, SourceKind } from "@/server/services/economy/analytics";
import { messageOf } from "./errors";

/**
 * Sources and sinks of every currency per UTC day (economy.analytics): what entered the economy
 * above the axis, what left it below, so a designer sees inflation at a glance; the table under
 * each chart gives the same numbers, day by day, for the days anything moved.
 */
type Analytics = RouterOutputs["economy"]["analytics"];
type CurrencySeries = Analytics["currencies"][number];
type Day = CurrencySeries["days"][number];

const RANGES = [7, 30, 90] as const;

// Sources in greens and blues, sinks in reds and ambers; each colour reads on the light and the dark background.
const SOURCES: { key: SourceKind | "other"; name: string; color: string }[] = [
  { key: "purchase", name: "Purchase rewards", color: "#15803d" },
  { key: "store_purchase", name: "Store purchases", color: "#2563eb" },
  { key: "grant", name: "Grants", color: "#7c3aed" },
  { key: "reward", name: "Leaderboard rewards", color: "#0d9488" },
  { key: "add", name: "Adds", color: "#65a30d" },
  { key: "other", name: "Other additions", color: "#71717a" },
];
const SINKS: { key: SinkKind | "other"; name: string; color: string }[] = [
  { key: "purchase", name: "Purchase costs", color: "#dc2626" },
  { key: "subtract", name: "Subtractions", color: "#d97706" },
  { key: "revoke", name: "Revokes", color: "#db2777" },
  { key: "store_refund", name: "Store refunds", color: "#9a3412" },
  { key: "other", name: "Other removals", color: "#52525b" },
];

/** Axis text and the tooltip take the page's palette; the tooltip's lines its own text colour (health.tsx: axe's color-contrast). */
const AXIS_TICK = { className: "fill-zinc-600" };
const TOOLTIP = { background: "var(--color-white)", borderColor: "var(--color-zinc-200)", color: "var(--color-zinc-900)" };
const TOOLTIP_ITEM = { color: "var(--color-zinc-900)" };
/** The hovered day's band in the page's palette (recharts' own light grey glares in the dark theme). */
const HOVER = { fill: "var(--color-zinc-100)" };

const amount = (n: number) => n.toLocaleString("en");
const signed = (n: number) => (n > 0 ? `+${amount(n)}` : amount(n));
const dayLabel = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString("en", { day: "numeric", month: "short", timeZone: "UTC" });

export function EconomyAnalytics({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const [days, setDays] = useState<(typeof RANGES)[number]>(30);
  const query = useQuery({ ...trpc.economy.analytics.queryOptions({ projectId, days }), placeholderData: (previous) => previous });
  const ranges = (
    <fieldset className="flex flex-wrap gap-1">
      <legend className="sr-only">Days shown</legend>
      {RANGES.map((n) => (
        <Button key={n} variant={days === n ? "primary" : "secondary"} aria-pressed={days === n} onClick={() => setDays(n)}>
          {n} days
        </Button>
      ))}
    </fieldset>
  );
  return (
    <Card title="Sources and sinks" actions={ranges}>
      <div data-testid="economy-analytics" aria-busy={query.isFetching || undefined} className="space-y-6">
        {query.isPending ? (
          <State kind="loading">Loading the ledger's numbers…</State>
        ) : query.isError ? (
          <State kind="error">{messageOf(query.error)}</State>
        ) : query.data.currencies.length === 0 ? (
          <State kind="empty">No currencies to chart yet.</State>
        ) : (
          <>
            <p className="text-sm text-zinc-600">
              What each currency gained and lost per day (UTC), {dayLabel(query.data.from)} to {dayLabel(query.data.to)}: additions above
              the line, removals below it.
            </p>
            {query.data.currencies.map((c) => (
              <CurrencyAnalytics key={c.currencyId} series={c} />
            ))}
          </>
        )}
      </div>
    </Card>
  );
}

function CurrencyAnalytics({ series }: { series: CurrencySeries }) {
  const sources = SOURCES.filter((s) => series.days.some((d) => d.sources[s.key] > 0));
  const sinks = SINKS.filter((s) => series.days.some((d) => d.sinks[s.key] > 0));
  const moved = series.days.filter((d) => d.added > 0 || d.removed > 0);
  const headingId = `analytics-${series.currencyId}`;
  return (
    <section aria-labelledby={headingId} data-testid="currency-analytics" className="space-y-3">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 id={headingId} className="font-semibold">
          {series.name} <span className="font-normal text-zinc-600">({series.currencyId})</span>
        </h3>
        <p className="text-sm tabular-nums text-zinc-700" data-testid="analytics-totals">
          +{amount(series.added)} added · −{amount(series.removed)} removed · net {signed(series.net)}
        </p>
      </div>
      {moved.length === 0 ? (
        <State kind="empty">Nothing moved in these days.</State>
      ) : (
        <>
          <AnalyticsChart series={series} sources={sources} sinks={sinks} />
          <AnalyticsTable series={series} days={moved} sources={sources} sinks={sinks} />
        </>
      )}
    </section>
  );
}

type Series = { key: string; name: string; color: string };

function AnalyticsChart({ series, sources, sinks }: { series: CurrencySeries; sources: Series[]; sinks: Series[] }) {
  // Sinks are drawn as negative values so that the two sides stack away from the zero line.
  const data = series.days.map((d) => ({
    day: d.day,
    ...Object.fromEntries(sources.map((s) => [`in_${s.key}`, d.sources[s.key as keyof Day["sources"]]])),
    ...Object.fromEntries(sinks.map((s) => [`out_${s.key}`, -d.sinks[s.key as keyof Day["sinks"]]])),
  }));
  return (
    <div className="h-64 w-full" data-testid="analytics-chart" role="img" aria-label={`${series.name}: sources and sinks per day`}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} stackOffset="sign" margin={{ top: 8, right: 8, bottom: 0, left: 0 }} barCategoryGap={1}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="day" tickFormatter={dayLabel} minTickGap={28} fontSize={11} tick={AXIS_TICK} />
          <YAxis allowDecimals={false} fontSize={11} width={56} tick={AXIS_TICK} tickFormatter={(v: number) => amount(v)} />
          <Tooltip
            labelFormatter={(v) => dayLabel(String(v))}
            formatter={(value) => amount(Math.abs(Number(value)))}
            contentStyle={TOOLTIP}
            itemStyle={TOOLTIP_ITEM}
            cursor={HOVER}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <ReferenceLine y={0} stroke="#71717a" />
          {sources.map((s) => (
            <Bar key={`in_${s.key}`} dataKey={`in_${s.key}`} name={s.name} stackId="flow" fill={s.color} isAnimationActive={false} />
          ))}
          {sinks.map((s) => (
            <Bar key={`out_${s.key}`} dataKey={`out_${s.key}`} name={s.name} stackId="flow" fill={s.color} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

const col = columnsFor<Day>();

function AnalyticsTable({ series, days, sources, sinks }: { series: CurrencySeries; days: Day[]; sources: Series[]; sinks: Series[] }) {
  const columns: DataTableColumns<Day> = [
    col.accessor("day", { header: "Day (UTC)", cell: (c) => c.getValue() }),
    ...sources.map((s) =>
      col.accessor((d) => d.sources[s.key as keyof Day["sources"]], {
        id: `in_${s.key}`,
        header: s.name,
        cell: (c) => amount(c.getValue()),
      }),
    ),
    ...sinks.map((s) =>
      col.accessor((d) => d.sinks[s.key as keyof Day["sinks"]], { id: `out_${s.key}`, header: s.name, cell: (c) => amount(c.getValue()) }),
    ),
    col.accessor("net", { header: "Net", cell: (c) => signed(c.getValue()) }),
  ];
  return (
    <DataTable
      columns={columns}
      data={[...days].reverse()}
      getRowId={(d) => d.day}
      caption={`${series.name} per day`}
      rowTestId="analytics-row"
      minWidth={200 + 120 * (sources.length + sinks.length)}
    />
  );
}
