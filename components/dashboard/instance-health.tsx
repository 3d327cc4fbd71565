"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Card, State } from "@/components/ui/primitives";
import type { ProjectRow } from "@/server/services/health";
import type { HealthRange } from "@/server/services/health/schemas";
import { count, HealthStates, ms, PlayersCard, percent, RangeTabs, RequestSummary, rangeText, TopTables } from "./health";

const col = columnsFor<ProjectRow>();
const columns: DataTableColumns<ProjectRow> = [
  col.accessor("name", {
    header: "Project",
    cell: (c) => (
      <Link className="break-all text-blue-700 hover:underline" href={`/projects/${c.row.original.projectId}`}>
        {c.getValue()}
      </Link>
    ),
  }),
  col.accessor("requests", { header: "Requests", cell: (c) => count(c.getValue()) }),
  col.accessor("errors", { header: "Errors", cell: (c) => count(c.getValue()) }),
  col.accessor("errorRate", { header: "Error rate", cell: (c) => percent(c.getValue()) }),
  col.accessor((r) => r.p95 ?? -1, { id: "p95", header: "p95", cell: (c) => ms(c.row.original.p95) }),
];

/** Every project's API together, and the projects side by side: for instance admins. */
export function InstanceHealth() {
  const trpc = useTRPC();
  const [range, setRange] = useState<HealthRange>("24h");
  const health = useQuery({ ...trpc.health.instance.queryOptions({ range }), refetchInterval: 10_000, placeholderData: keepPreviousData });
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">Instance health</h1>
        <p className="text-sm text-zinc-600">Every project on this instance. Requests without a valid API key are only in Prometheus.</p>
      </div>
      <RangeTabs range={range} onChange={setRange} />
      <HealthStates query={health} range={range}>
        {(data, busy) => (
          <>
            <RequestSummary health={data} busy={busy} />
            <Card title="Projects by requests">
              {data.projects.length === 0 ? (
                <State kind="empty">No project had requests in {rangeText(data.range)}.</State>
              ) : (
                <DataTable
                  columns={columns}
                  data={data.projects.slice(0, 20)}
                  getRowId={(p) => p.projectId}
                  caption="Projects by requests"
                  rowTestId="instance-project"
                />
              )}
            </Card>
            <TopTables health={data} />
            <PlayersCard players={data.players} title="Players on this instance" />
          </>
        )}
      </HealthStates>
    </div>
  );
}
