"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Bar, BarChart, CartesianGrid, Legend, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useTRPC } from "@/components/providers/trpc";
import { Button, Card, State } from "@/components/ui/primitives";
import { messageOf } from "./errors";

const time = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

/** Requests per minute from the request path's counters, rate-limited ones apart, against the plan's limit. */
export function UsageChart({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const [range, setRange] = useState<"hour" | "day">("hour");
  const usage = useQuery({ ...trpc.projects.usage.queryOptions({ projectId }), refetchInterval: 10_000 });
  if (usage.isPending) return <State kind="loading">Loading usage…</State>;
  if (usage.error) return <State kind="error">{messageOf(usage.error)}</State>;
  const { players, limitPerMinute } = usage.data;
  const points = range === "hour" ? usage.data.lastHour : usage.data.lastDay;
  const total = usage.data.lastHour.reduce((n, p) => n + p.requests + p.limited, 0);
  return (
    <div className="space-y-6">
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
        {(
          [
            ["Players", players.total],
            ["New today", players.newToday],
            ["Active today", players.activeToday],
          ] as const
        ).map(([label, value]) => (
          <Card key={label}>
            <p className="text-sm text-zinc-500">{label}</p>
            <p className="text-2xl font-semibold" data-testid={`stat-${label.toLowerCase().replace(" ", "-")}`}>
              {value.toLocaleString()}
            </p>
          </Card>
        ))}
      </div>
      <Card
        title="Requests per minute"
        actions={
          <div className="flex gap-1">
            <Button variant={range === "hour" ? "primary" : "secondary"} onClick={() => setRange("hour")}>
              Last hour
            </Button>
            <Button variant={range === "day" ? "primary" : "secondary"} onClick={() => setRange("day")}>
              Last 24 hours
            </Button>
          </div>
        }
      >
        <p className="mb-2 text-sm text-zinc-500" data-testid="requests-last-hour">
          {total.toLocaleString()} requests in the last hour · limit {limitPerMinute.toLocaleString()} per minute
          {range === "day" ? " · 15-minute averages" : ""}
        </p>
        <div className="h-64 w-full">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="minute" tickFormatter={time} minTickGap={24} fontSize={11} />
              <YAxis allowDecimals={false} fontSize={11} width={40} />
              <Tooltip labelFormatter={(v) => time(String(v))} />
              <Legend />
              <ReferenceLine
                y={limitPerMinute}
                stroke="#dc2626"
                strokeDasharray="4 4"
                label={{ value: "plan limit", fontSize: 11, fill: "#dc2626" }}
              />
              <Bar dataKey="requests" name="answered" stackId="a" fill="#18181b" />
              <Bar dataKey="limited" name="rate-limited" stackId="a" fill="#f59e0b" />
            </BarChart>
          </ResponsiveContainer>
        </div>
      </Card>
    </div>
  );
}
