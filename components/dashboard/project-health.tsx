"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { State } from "@/components/ui/primitives";
import type { HealthRange } from "@/server/services/health/schemas";
import { messageOf } from "./errors";
import { HealthLoading, PlayersCard, RangeTabs, RequestSummary, TopTables } from "./health";

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
      {health.isPending ? (
        <HealthLoading range={range} />
      ) : health.error && !health.data ? (
        <State kind="error">{messageOf(health.error)}</State>
      ) : (
        <>
          {health.error && <State kind="error">{messageOf(health.error)}</State>}
          <RequestSummary health={health.data} limitPerMinute={health.data.limitPerMinute} busy={health.isPlaceholderData} />
          <TopTables health={health.data} />
          <PlayersCard players={health.data.players} />
        </>
      )}
    </div>
  );
}
