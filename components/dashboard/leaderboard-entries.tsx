"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ChevronLeft, ChevronRight, Search, UserMinus } from "lucide-react";
import Link from "next/link";
import { useMemo, useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Button, Card, Input, State } from "@/components/ui/primitives";
import { SelectMenu } from "@/components/ui/select";
import { messageOf } from "./errors";

const PAGE = 25;
const CURRENT = "current";
type Entry = { rank: number; playerId: string; displayName: string | null; score: number; updatedAt: string };
const col = columnsFor<Entry>();

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
  const [period, setPeriod] = useState(CURRENT);
  const [removing, setRemoving] = useState<Entry | null>(null);
  const [offset, setOffset] = useState(0);
  const [query, setQuery] = useState("");
  const chosen = period !== CURRENT && period !== currentPeriod ? period : undefined;
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
  const remove = useMutation(trpc.leaderboards.removeEntry.mutationOptions());
  const removeEntry = async (e: Entry) => {
    const who = e.displayName ?? e.playerId;
    try {
      await remove.mutateAsync({ ...ref, playerId: e.playerId, ...(chosen ? { period: chosen } : {}) });
      toast.success(`Removed ${who}'s entry.`);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: trpc.leaderboards.entries.queryKey() }),
        queryClient.invalidateQueries({ queryKey: trpc.leaderboards.search.queryKey() }),
        queryClient.invalidateQueries({ queryKey: trpc.leaderboards.periods.queryKey(ref) }),
      ]);
    } catch (error) {
      toast.error(messageOf(error));
      throw error;
    }
  };
  const columns = useMemo<DataTableColumns<Entry>>(
    () => [
      col.accessor("rank", { header: "Rank", enableSorting: false, cell: (c) => <span className="font-semibold">#{c.getValue()}</span> }),
      col.accessor("displayName", {
        header: "Player",
        enableSorting: false,
        cell: (c) => (
          <div className="min-w-0">
            <Link className="text-blue-700 hover:underline" href={`/projects/${projectId}/players/${c.row.original.playerId}`}>
              {c.getValue() ?? "Unnamed player"}
            </Link>
            <div className="break-all font-mono text-[11px] text-zinc-500">{c.row.original.playerId}</div>
          </div>
        ),
      }),
      col.accessor("score", {
        header: "Score",
        enableSorting: false,
        cell: (c) => <span className="font-mono">{c.getValue().toLocaleString()}</span>,
      }),
      col.accessor("updatedAt", {
        header: "Updated",
        enableSorting: false,
        cell: (c) => <span className="whitespace-nowrap">{new Date(c.getValue()).toLocaleString()}</span>,
      }),
      col.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: ({ row: { original: e } }) =>
          canEdit ? (
            <Button variant="secondary" aria-label={`Remove ${e.displayName ?? e.playerId}`} onClick={() => setRemoving(e)}>
              <UserMinus className="mr-1 size-4" aria-hidden />
              Remove
            </Button>
          ) : null,
      }),
    ],
    [canEdit, projectId],
  );
  const view = searching ? found : page;
  const entries: Entry[] | undefined = view.data?.entries;
  const total = page.data?.total ?? 0;
  const archived = Boolean(chosen);

  return (
    <Card
      title={archived ? "Entries of an archived period" : "Entries (current period)"}
      actions={
        <SelectMenu
          aria-label="Period"
          className="w-full sm:w-auto sm:max-w-80"
          value={chosen ?? CURRENT}
          onValueChange={(value) => {
            setPeriod(value);
            setOffset(0);
          }}
          options={[
            { value: CURRENT, label: "Current period" },
            ...(periods.data ?? [])
              .filter((p) => !p.current)
              .map((p) => ({ value: p.period, label: `${labelOf(p.period)} · ${p.entries} entries` })),
          ]}
        />
      }
    >
      <div className="relative">
        <Search className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-zinc-400" aria-hidden />
        <Input
          aria-label="Search entries by player"
          placeholder="Player id or any part of a display name"
          className="pl-9"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
      </div>
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
          <DataTable columns={columns} data={entries} getRowId={(e) => e.playerId} rowTestId="entry-row" minWidth={560} />
        )}
        {!searching && total > PAGE && (
          <div className="mt-3 flex items-center justify-between text-sm text-zinc-600">
            <Button variant="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              <ChevronLeft className="mr-1 size-4" aria-hidden />
              Previous
            </Button>
            <span>
              {offset + 1}–{Math.min(offset + PAGE, total)} of {total.toLocaleString()}
            </span>
            <Button variant="secondary" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
              Next
              <ChevronRight className="ml-1 size-4" aria-hidden />
            </Button>
          </div>
        )}
        {!searching && total > 0 && total <= PAGE && (
          <p className="mt-3 text-sm text-zinc-500" data-testid="entries-total">
            {total} {total === 1 ? "entry" : "entries"}
          </p>
        )}
      </div>
      <ConfirmDialog
        open={removing !== null}
        onOpenChange={(open) => !open && setRemoving(null)}
        title={`Remove ${removing?.displayName ?? removing?.playerId ?? ""}'s entry (#${removing?.rank ?? ""})?`}
        description={
          archived ? "It leaves this archived period; everyone below moves up." : "Everyone below moves up. The player can submit again."
        }
        confirmLabel="Remove entry"
        onConfirm={async () => {
          if (removing) await removeEntry(removing);
        }}
      />
    </Card>
  );
}

/** `<epoch>:all` or `<epoch>:<period start>` as a person reads it. */
export function labelOf(period: string): string {
  const [epoch, start] = [period.slice(0, period.indexOf(":")), period.slice(period.indexOf(":") + 1)];
  return start === "all" ? `Reset #${epoch}` : `From ${new Date(start).toLocaleDateString()} (reset #${epoch})`;
}
