"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Button, Card, Input, Select, State } from "@/components/ui/primitives";
import { messageOf } from "./errors";
import { GameTable, WIDE } from "./game-table";

const PAGE = 25;
type Entry = { rank: number; playerId: string; displayName: string | null; score: number; updatedAt: string };

/** The entries of the current or an archived period: paged, searchable by player, removable one by one. */
export function LeaderboardEntries({
  projectId,
  leaderboardId,
  currentPeriod,
  canEdit,
}: {
  projectId: string;
  leaderboardId: string;
  currentPeriod: string;
  canEdit: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ref = { projectId, id: leaderboardId };
  const [period, setPeriod] = useState("");
  const [offset, setOffset] = useState(0);
  const [query, setQuery] = useState("");
  const chosen = period && period !== currentPeriod ? period : undefined;
  const periods = useQuery(trpc.leaderboards.periods.queryOptions(ref));
  const page = useQuery({
    ...trpc.leaderboards.entries.queryOptions({ ...ref, offset, limit: PAGE, ...(chosen ? { period: chosen } : {}) }),
    placeholderData: (previous) => previous,
  });
  const searching = query.trim() !== "";
  const found = useQuery({
    ...trpc.leaderboards.search.queryOptions({ ...ref, query: query.trim(), ...(chosen ? { period: chosen } : {}) }),
    enabled: searching,
  });
  const remove = useMutation(
    trpc.leaderboards.removeEntry.mutationOptions({
      onSuccess: () =>
        Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.leaderboards.entries.queryKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.leaderboards.search.queryKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.leaderboards.periods.queryKey(ref) }),
        ]),
    }),
  );
  const view = searching ? found : page;
  const entries: Entry[] | undefined = view.data?.entries;
  const total = page.data?.total ?? 0;
  const archived = Boolean(chosen);

  return (
    <Card
      title={archived ? "Entries of an archived period" : "Entries (current period)"}
      actions={
        <Select
          aria-label="Period"
          value={chosen ?? ""}
          onChange={(e) => {
            setPeriod(e.target.value);
            setOffset(0);
          }}
        >
          <option value="">Current period</option>
          {(periods.data ?? [])
            .filter((p) => !p.current)
            .map((p) => (
              <option key={p.period} value={p.period}>
                {labelOf(p.period)} · {p.entries} entries
              </option>
            ))}
        </Select>
      }
    >
      <Input
        aria-label="Search entries by player"
        placeholder="Player id or any part of a display name"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
      <div className="mt-4">
        {view.isPending && (!searching || found.fetchStatus !== "idle") ? (
          <State kind="loading">Loading entries…</State>
        ) : view.error ? (
          <State kind="error">{messageOf(view.error)}</State>
        ) : !entries || entries.length === 0 ? (
          <State kind="empty">
            {searching ? "No entry matches." : archived ? "This period had no entries." : "No scores yet in this period."}
          </State>
        ) : (
          <GameTable head={[{ label: "Rank" }, { label: "Player" }, { label: "Score" }, { label: "Updated", wide: true }, { label: "" }]}>
            {entries.map((e) => (
              <tr key={e.playerId} data-testid="entry-row">
                <td className="px-2 py-2 font-semibold">#{e.rank}</td>
                <td className="px-2 py-2">
                  <Link className="text-blue-700 hover:underline" href={`/projects/${projectId}/players/${e.playerId}`}>
                    {e.displayName ?? "Unnamed player"}
                  </Link>
                  <div className="font-mono text-[11px] break-all text-zinc-500">{e.playerId}</div>
                  <div className="text-xs text-zinc-500 sm:hidden">{new Date(e.updatedAt).toLocaleString()}</div>
                </td>
                <td className="px-2 py-2 font-mono">{e.score.toLocaleString()}</td>
                <td className={`px-2 py-2 whitespace-nowrap ${WIDE}`}>{new Date(e.updatedAt).toLocaleString()}</td>
                <td className="px-2 py-2 text-right">
                  {canEdit && (
                    <Button
                      variant="secondary"
                      aria-label={`Remove ${e.displayName ?? e.playerId}`}
                      disabled={remove.isPending}
                      onClick={() => {
                        if (window.confirm(`Remove ${e.displayName ?? e.playerId}'s entry (#${e.rank})? Everyone below moves up.`))
                          remove.mutate({ ...ref, playerId: e.playerId, ...(chosen ? { period: chosen } : {}) });
                      }}
                    >
                      Remove
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </GameTable>
        )}
        {remove.error && (
          <p role="alert" className="mt-2 text-sm text-red-700">
            {messageOf(remove.error)}
          </p>
        )}
        {!searching && total > PAGE && (
          <div className="mt-3 flex items-center justify-between text-sm text-zinc-600">
            <Button variant="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              Previous
            </Button>
            <span>
              {offset + 1}–{Math.min(offset + PAGE, total)} of {total.toLocaleString()}
            </span>
            <Button variant="secondary" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
              Next
            </Button>
          </div>
        )}
        {!searching && total > 0 && total <= PAGE && (
          <p className="mt-3 text-sm text-zinc-500" data-testid="entries-total">
            {total} {total === 1 ? "entry" : "entries"}
          </p>
        )}
      </div>
    </Card>
  );
}

/** `<epoch>:all` or `<epoch>:<period start>` as a person reads it. */
export function labelOf(period: string): string {
  const [epoch, start] = [period.slice(0, period.indexOf(":")), period.slice(period.indexOf(":") + 1)];
  return start === "all" ? `Reset #${epoch}` : `From ${new Date(start).toLocaleDateString()} (reset #${epoch})`;
}
