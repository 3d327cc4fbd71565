"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import type { HealthRange } from "@/server/services/health/schemas";
import { HealthStates, PlayersCard, RangeTabs, RequestSummary, TopTables } from "./health";
import { ReleasesCard } from "./releases";

/** A project's health: its API's answers over the chosen range (with config changes marked), per release, and its players per day. */
export function ProjectHealth({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const [range, setRange] = useState<HealthRange>("24h");
  const health = useQuery({
    ...trpc.health.project.queryOptions({ projectId, range }),
    refetchInterval: 10_000,
    placeholderData: keepPreviousData,
  });
  return (
    <div className="space-y-6">
      <RangeTabs range={range} onChange={setRange} />
      <HealthStates query={health} range={range}>
        {(data, busy) => (
          <>
            <RequestSummary health={data} limitPerMinute={data.limitPerMinute} markers={data.markers} busy={busy} />
            <ReleasesCard releases={data.releases} range={data.range} />
            <TopTables health={data} />
            <PlayersCard players={data.players} />
          </>
        )}
      </HealthStates>
    </div>
  );
}
