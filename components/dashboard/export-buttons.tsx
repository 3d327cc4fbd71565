"use client";

import { useQuery } from "@tanstack/react-query";
import { Download } from "lucide-react";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { SelectMenu } from "@/components/ui/select";
import { EXPORT_MINIMUM, type ExportKind } from "@/server/services/exports/schemas";
import { labelOf } from "./leaderboard-entries";
import { useProject } from "./project-context";

/**
 * CSV and JSON downloads of an export: plain links, so the browser streams the file to disk as
 * the server writes it (nothing is held in the page). Hidden from a role the export refuses
 * (players and ledgers hold personal data: admins and owners).
 */
export function ExportButtons({
  projectId,
  kind,
  params = {},
  label = "Export",
}: {
  projectId: string;
  kind: ExportKind;
  params?: Record<string, string | undefined>;
  label?: string;
}) {
  const { role } = useProject();
  if (EXPORT_MINIMUM[kind] === "ADMIN" && role === "VIEWER") return null;
  const href = (format: "csv" | "json") => {
    const query = new URLSearchParams({ format });
    for (const [name, value] of Object.entries(params)) if (value) query.set(name, value);
    return `/api/dashboard/projects/${projectId}/exports/${kind}?${query.toString()}`;
  };
  const link =
    "inline-flex items-center rounded-md border border-zinc-300 bg-white px-2.5 py-1.5 text-sm font-medium text-zinc-900 shadow-sm hover:bg-zinc-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-zinc-400";
  return (
    <div className="flex items-center gap-2" data-testid={`export-${kind}`}>
      <span className="text-sm text-zinc-600">{label}</span>
      {(["csv", "json"] as const).map((format) => (
        <a key={format} className={link} href={href(format)} download aria-label={`${label} as ${format.toUpperCase()}`}>
          <Download className="mr-1 size-3.5" aria-hidden />
          {format.toUpperCase()}
        </a>
      ))}
    </div>
  );
}

/** A leaderboard's entries: the current period or an archived one, picked here. */
export function LeaderboardExport({ projectId, leaderboardId }: { projectId: string; leaderboardId: string }) {
  const trpc = useTRPC();
  const periods = useQuery(trpc.leaderboards.periods.queryOptions({ projectId, id: leaderboardId }));
  const [period, setPeriod] = useState("current");
  const options = [
    { value: "current", label: "Current period" },
    ...(periods.data ?? []).filter((p) => !p.current).map((p) => ({ value: p.period, label: labelOf(p.period) })),
  ];
  return (
    <div className="flex flex-wrap items-center justify-end gap-2">
      {options.length > 1 && (
        <SelectMenu aria-label="Period to export" className="w-52" value={period} onValueChange={setPeriod} options={options} />
      )}
      <ExportButtons
        projectId={projectId}
        kind="leaderboard"
        label="Export entries"
        params={{ leaderboardId, period: period === "current" ? undefined : period }}
      />
    </div>
  );
}
