"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import type { HealthRange } from "@/server/services/health/schemas";
import { HealthStates, PlayersCard, RangeTabs, RequestSummary, TopTables } from "./health";

/** A project's health: its API's answers over the chosen range, and its players per day. */
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
            <RequestSummary health={data} limitPerMinute={data.limitPerMinute} busy={busy} />
            <TopTables health={data} />
            <PlayersCard players={data.players} />
          </>
        )}
      </HealthStates>
    </div>
  );
}
