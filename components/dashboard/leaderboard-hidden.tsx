"use client";

import { useQuery } from "@tanstack/react-query";
import { EyeOff } from "lucide-react";
import Link from "next/link";
import { useTRPC } from "@/components/providers/trpc";
import { Badge, State } from "@/components/ui/primitives";
import { messageOf } from "./errors";
import { when } from "./format";

/**
 * Entries a ban hides from the period, listed apart from the ranking: who (a link to the player),
 * the score they had, and the ban's reason. Selectable with the ranked entries for "Remove selected".
 */
export function HiddenEntries({
  projectId,
  leaderboardId,
  period,
  selection,
}: {
  projectId: string;
  leaderboardId: string;
  period?: string;
  selection: { ids: Set<string>; set: (id: string, on: boolean) => void } | null;
}) {
  const trpc = useTRPC();
  const hidden = useQuery(
    trpc.leaderboards.hidden.queryOptions({ projectId, id: leaderboardId, limit: 100, ...(period ? { period } : {}) }),
  );
  if (hidden.isPending) return null;
  if (hidden.error) return <State kind="error">{messageOf(hidden.error)}</State>;
  if (hidden.data.total === 0) return null;
  return (
    <section aria-labelledby="hidden-entries-title" className="mt-6 border-t border-zinc-100 pt-4" data-testid="hidden-entries">
      <h3 id="hidden-entries-title" className="flex items-center gap-2 text-sm font-semibold text-zinc-800">
        <EyeOff className="size-4" aria-hidden />
        Hidden: banned ({hidden.data.total})
      </h3>
      <p className="mt-1 text-sm text-zinc-600">Not on the board while the player is banned; back where they were on unban.</p>
      <ul className="mt-3 divide-y divide-zinc-100">
        {hidden.data.entries.map((e) => (
          <li key={e.playerId} className="flex flex-wrap items-center gap-3 py-2 text-sm" data-testid="hidden-row">
            {selection && (
              <input
                type="checkbox"
                className="size-4"
                aria-label={`Select ${e.displayName ?? e.playerId} (hidden)`}
                checked={selection.ids.has(e.playerId)}
                onChange={(ev) => selection.set(e.playerId, ev.target.checked)}
              />
            )}
            <Badge tone="red">Hidden: banned</Badge>
            <Link className="text-blue-700 hover:underline" href={`/projects/${projectId}/players/${e.playerId}`}>
              {e.displayName ?? "Unnamed player"}
            </Link>
            <span className="font-mono">{e.score.toLocaleString()}</span>
            <span className="min-w-0 flex-1 break-words text-zinc-600">
              {e.reason}
              {e.bannedUntil ? ` · until ${when(e.bannedUntil)}` : ""}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
