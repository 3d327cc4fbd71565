"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/components/providers/trpc";
import { Badge, Card, State, Table } from "@/components/ui/primitives";
import { messageOf } from "./errors";
import { ExportButtons } from "./export-buttons";
import { metricLabel } from "./live-experiments";
import { whenUtcAndLocal } from "./live-format";

const pct = (x: number) => `${(Math.round(x * 1000) / 10).toFixed(1)} %`;
const signedPct = (x: number) => `${x >= 0 ? "+" : "−"}${pct(Math.abs(x))}`;

/** An experiment's results: per variant the players, the measured rate or mean with its 95 % interval, and the difference from the first variant. */
export function LiveResults({ projectId, experimentId }: { projectId: string; experimentId: string }) {
  const trpc = useTRPC();
  const results = useQuery(trpc.experimentResults.get.queryOptions({ projectId, experimentId }));
  if (results.isPending) return <State kind="loading">Loading results…</State>;
  if (results.error) return <State kind="error">{messageOf(results.error)}</State>;
  const r = results.data;
  const money = r.metric.kind === "revenue";
  const fmt = (x: number) =>
    r.measure === "proportion" ? pct(x) : money ? (x / 1_000_000).toFixed(2) : (Math.round(x * 100) / 100).toLocaleString("en-US");
  const diff = (x: number) => (r.measure === "proportion" ? signedPct(x) : `${x >= 0 ? "+" : "−"}${fmt(Math.abs(x))}`);
  const started = r.experiment.startedAt ? whenUtcAndLocal(r.experiment.startedAt) : null;
  return (
    <Card
      title={`Results: ${r.experiment.name}`}
      actions={<ExportButtons projectId={projectId} kind="experiment-assignments" label="Export assignments" params={{ experimentId }} />}
    >
      <p className="mb-3 text-sm text-zinc-600">
        <Badge tone={r.experiment.status === "running" ? "green" : "neutral"}>{r.experiment.status}</Badge>{" "}
        {started ? `Started ${started.utc} (${started.local}). ` : "Not started. "}
        Metric: {metricLabel(r.metric)}
        {money ? ` (${r.metric.currency ?? "USD"} per player)` : ""}, counted from each player's assignment; intervals at{" "}
        {Math.round(r.confidence * 100)} % confidence.{" "}
        <Link className="underline" href={`/projects/${projectId}/live/experiments`}>
          All experiments
        </Link>
      </p>
      {r.variants.every((v) => v.assigned === 0) ? (
        <State kind="empty">No player has been assigned yet: players are assigned when the game first reads its config.</State>
      ) : (
        <Table
          head={[
            "Variant",
            "Players",
            r.measure === "proportion" ? "Converted" : "Total",
            r.measure === "proportion" ? "Rate" : "Mean",
            "95 % interval",
            "Difference vs first",
          ]}
        >
          {r.variants.map((v) => (
            <tr key={v.id} data-testid="result-row">
              <td className="px-2 py-2">
                {v.name} <span className="font-mono text-xs text-zinc-500">{v.id}</span>
              </td>
              <td className="px-2 py-2">
                {v.assigned.toLocaleString("en-US")}
                {v.measured !== v.assigned ? ` (${v.measured.toLocaleString("en-US")} measured)` : ""}
              </td>
              <td className="px-2 py-2">{r.measure === "proportion" ? v.total.toLocaleString("en-US") : fmt(v.total)}</td>
              <td className="px-2 py-2 font-medium">{v.value === null ? "—" : fmt(v.value)}</td>
              <td className="whitespace-nowrap px-2 py-2">{v.interval ? `${fmt(v.interval.low)} – ${fmt(v.interval.high)}` : "—"}</td>
              <td className="whitespace-nowrap px-2 py-2">
                {v.difference ? `${diff(v.difference.value)} (${diff(v.difference.low)} to ${diff(v.difference.high)})` : "baseline"}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </Card>
  );
}
