"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useTRPC } from "@/components/providers/trpc";
import { Card, State, Table } from "@/components/ui/primitives";
import { messageOf } from "./errors";
import { money } from "./purchases-format";

const DAYS = 30;
// As the health charts (health.tsx): readable in both themes.
const AXIS_TICK = { className: "fill-zinc-600" };
const TOOLTIP = { background: "var(--color-white)", borderColor: "var(--color-zinc-200)", color: "var(--color-zinc-900)" };
const TOOLTIP_ITEM = { color: "var(--color-zinc-900)" };

/** The last 30 UTC days, oldest first, as YYYY-MM-DD. */
function lastDays(): string[] {
  const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  return Array.from({ length: DAYS }, (_, i) => new Date(today - (DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

/**
 * Real-money sales of the last 30 days: per day (a count: prices are in several currencies) and per
 * product with gross revenue per currency. Production only, refunded sales left out.
 */
export function StoreRevenue({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const revenue = useQuery({ ...trpc.store.revenue.queryOptions({ projectId, days: DAYS }), refetchInterval: 60_000 });
  const perDay = new Map<string, number>();
  for (const r of revenue.data?.perDay ?? []) perDay.set(r.day, (perDay.get(r.day) ?? 0) + r.count);
  const series = lastDays().map((day) => ({ day, sales: perDay.get(day) ?? 0 }));
  return (
    <Card
      title={`Store revenue, last ${DAYS} days`}
      actions={
        <Link className="text-sm text-blue-700 hover:underline" href={`/projects/${projectId}/purchases`}>
          Purchases
        </Link>
      }
    >
      {revenue.isPending ? (
        <State kind="loading">Loading…</State>
      ) : revenue.error ? (
        <State kind="error">{messageOf(revenue.error)}</State>
      ) : revenue.data.perProduct.length === 0 ? (
        <State kind="empty">No store sales in the last {DAYS} days.</State>
      ) : (
        <div className="space-y-4">
          <div className="h-48 w-full" data-testid="store-revenue-chart">
            <ResponsiveContainer width="100%" height="100%">
              <BarChart data={series} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                <XAxis dataKey="day" tickFormatter={(d: string) => d.slice(5)} minTickGap={20} fontSize={11} tick={AXIS_TICK} />
                <YAxis allowDecimals={false} fontSize={11} width={44} tick={AXIS_TICK} />
                <Tooltip contentStyle={TOOLTIP} itemStyle={TOOLTIP_ITEM} />
                <Bar dataKey="sales" name="sales" fill="#16a34a" isAnimationActive={false} />
              </BarChart>
            </ResponsiveContainer>
          </div>
          <Table head={["Product", "Sales", "Gross", "Refunded since"]}>
            {revenue.data.perProduct.map((p) => (
              <tr key={`${p.productId}-${p.currency ?? ""}`} data-testid="store-revenue-product">
                <td className="px-2 py-2">{p.productId}</td>
                <td className="px-2 py-2">{p.count.toLocaleString()}</td>
                <td className="whitespace-nowrap px-2 py-2">{money(p.grossMicros, p.currency)}</td>
                <td className="px-2 py-2">{p.refunded.toLocaleString()}</td>
              </tr>
            ))}
          </Table>
        </div>
      )}
      <p className="mt-2 text-xs text-zinc-500">
        Production purchases only: sandbox purchases (testers, App Review) are not counted, nor are refunded sales. Gross is what the store
        reported the buyer paid, before the store's commission and taxes; per UTC day.
      </p>
    </Card>
  );
}
