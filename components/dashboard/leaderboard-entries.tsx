"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ChevronLeft, ChevronRight, PencilLine, Search, UserMinus } from "lucide-react";
import Link from "next/link";
import { useCallback, useMemo, useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Button, Card, Input, State } from "@/components/ui/primitives";
import { SelectMenu } from "@/components/ui/select";
import { useNarrow } from "@/components/ui/use-narrow";
import { messageOf } from "./errors";
import { when } from "./format";
import { HiddenEntries } from "./leaderboard-hidden";
import { RemoveSelectedEntries } from "./leaderboard-remove-selected";
import { type ScoreTarget, SetScoreDialog } from "./leaderboard-score";
import { When } from "./when";

/** Rows per page: a phone shows fewer, each row being a stacked card. */
const PAGE = 25;
const PHONE_PAGE = 10;
const CURRENT = "current";
type Entry = {
  rank: number;
  playerId: string;
  displayName: string | null;
  score: number;
  metadata: Record<string, unknown> | null;
  updatedAt: string;
};
const col = columnsFor<Entry>();

/**
 * The entries of the current or an archived period: paged, searchable by player, each with the
 * metadata the game attached (folded); removable one by one or selected and removed together
 * (with the entries a ban hides, listed apart), and in the current period a score can be set or
 * corrected. On a phone a row is rank, player, score and the folded metadata.
 */
export function LeaderboardEntries({
  projectId,
  leaderboardId,
  currentPeriod,
  canEdit,
  bounds,
}: {
  projectId: string;
  leaderboardId: string;
  currentPeriod: string;
  canEdit: boolean;
  bounds: { minScore: number | null; maxScore: number | null };
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ref = { projectId, id: leaderboardId };
  const [period, setPeriod] = useState(CURRENT);
  const [removing, setRemoving] = useState<Entry | null>(null);
  const [scoring, setScoring] = useState<{ target: ScoreTarget | null } | null>(null);
  const [offset, setOffset] = useState(0);
  const pageSize = useNarrow() ? PHONE_PAGE : PAGE;
  const [query, setQuery] = useState("");
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const toggle = useCallback(
    (id: string, on: boolean) =>
      setSelected((previous) => {
        const next = new Set(previous);
        if (on) next.add(id);
        else next.delete(id);
        return next;
      }),
    [],
  );
  const selection = canEdit ? { ids: selected, set: toggle } : null;
  const chosen = period !== CURRENT && period !== currentPeriod ? period : undefined;
  const periods = useQuery(trpc.leaderboards.periods.queryOptions(ref));
  const page = useQuery({
    ...trpc.leaderboards.entries.queryOptions({ ...ref, offset, limit: pageSize, ...(chosen ? { period: chosen } : {}) }),
    placeholderData: (previous) => previous,
  });
  const searching = query.trim() !== "";
  const archived = Boolean(chosen);
  const found = useQuery({
    ...trpc.leaderboards.search.queryOptions({ ...ref, query: query.trim(), ...(chosen ? { period: chosen } : {}) }),
    enabled: searching,
  });
  const remove = useMutation(trpc.leaderboards.removeEntry.mutationOptions());
  const setScore = useMutation(trpc.leaderboards.setScore.mutationOptions());
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.leaderboards.entries.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.leaderboards.search.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.leaderboards.periods.queryKey(ref) }),
      queryClient.invalidateQueries({ queryKey: trpc.leaderboards.hidden.queryKey() }),
    ]);
  const saveScore = async (value: { playerId: string; score: number; reason: string }) => {
    const entry = await setScore.mutateAsync({ ...ref, ...value });
    const was = entry.previous === null ? "no entry" : entry.previous.toLocaleString();
    toast.success(
      `Set ${entry.displayName ?? entry.playerId}'s score to ${entry.score.toLocaleString()} (was ${was}); now #${entry.rank}.`,
    );
    await refresh();
  };
  const removeEntry = async (e: Entry) => {
    const who = e.displayName ?? e.playerId;
    try {
      await remove.mutateAsync({ ...ref, playerId: e.playerId, ...(chosen ? { period: chosen } : {}) });
      toast.success(`Removed ${who}'s entry.`);
      await refresh();
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
            <div className="break-all font-mono text-[11px] text-zinc-500 max-sm:hidden">{c.row.original.playerId}</div>
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
        cell: (c) => <When value={c.getValue()} />,
      }),
      col.accessor("metadata", {
        header: "Metadata",
        enableSorting: false,
        cell: (c) => <Metadata value={c.getValue()} />,
      }),
      col.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: ({ row: { original: e } }) =>
          canEdit ? (
            <div className="flex justify-end gap-2">
              {!archived && (
                <Button
                  variant="secondary"
                  aria-haspopup="dialog"
                  aria-label={`Set score of ${e.displayName ?? e.playerId}`}
                  onClick={() => setScoring({ target: e })}
                >
                  <PencilLine className="size-4 sm:mr-1" aria-hidden />
                  <span className="max-sm:sr-only">Set score</span>
                </Button>
              )}
              <Button
                variant="secondary"
                aria-haspopup="dialog"
                aria-label={`Remove ${e.displayName ?? e.playerId}`}
                onClick={() => setRemoving(e)}
              >
                <UserMinus className="size-4 sm:mr-1" aria-hidden />
                <span className="max-sm:sr-only">Remove</span>
              </Button>
            </div>
          ) : null,
      }),
    ],
    [canEdit, projectId, archived],
  );
  // The checkbox column changes with every selection; the others do not.
  const selectable = useMemo<DataTableColumns<Entry>>(
    () => [
      ...(canEdit
        ? [
            col.display({
              id: "select",
              header: () => <span className="sr-only">Select</span>,
              cell: ({ row: { original: e } }) => (
                <input
                  type="checkbox"
                  className="size-4"
                  aria-label={`Select ${e.displayName ?? e.playerId}`}
                  checked={selected.has(e.playerId)}
                  onChange={(ev) => toggle(e.playerId, ev.target.checked)}
                />
              ),
            }),
          ]
        : []),
      ...columns,
    ],
    [canEdit, columns, selected, toggle],
  );
  const view = searching ? found : page;
  const entries: Entry[] | undefined = view.data?.entries;
  const total = page.data?.total ?? 0;

  return (
    <Card
      title={archived ? "Entries of an archived period" : "Entries (current period)"}
      actions={
        <div className="flex w-full flex-wrap gap-2 sm:w-auto">
          {canEdit && selected.size > 0 && (
            <RemoveSelectedEntries
              projectId={projectId}
              leaderboardId={leaderboardId}
              period={chosen}
              playerIds={[...selected]}
              onDone={async () => {
                setSelected(new Set());
                await refresh();
              }}
            />
          )}
          {canEdit && !archived && (
            <Button variant="secondary" aria-haspopup="dialog" onClick={() => setScoring({ target: null })}>
              <PencilLine className="mr-1 size-4" aria-hidden />
              Set a player's score
            </Button>
          )}
          <SelectMenu
            aria-label="Period"
            className="w-full sm:w-auto sm:max-w-80"
            value={chosen ?? CURRENT}
            onValueChange={(value) => {
              setPeriod(value);
              setOffset(0);
              setSelected(new Set());
            }}
            options={[
              { value: CURRENT, label: "Current period" },
              ...(periods.data ?? [])
                .filter((p) => !p.current)
                .map((p) => ({
                  value: p.period,
                  label: `${labelOf(p.period)} · ${p.entries} entries${p.closedAt ? ` · closed${p.rewardsGranted ? `, ${p.rewardsGranted} rewarded` : ""}` : ""}`,
                })),
            ]}
          />
        </div>
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
          <DataTable
            columns={selectable}
            data={entries}
            getRowId={(e) => e.playerId}
            rowTestId="entry-row"
            minWidth={720}
            phoneHidden={["updatedAt"]}
          />
        )}
        {!searching && total > pageSize && (
          <div className="mt-3 flex items-center justify-between text-sm text-zinc-600">
            <Button variant="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - pageSize))}>
              <ChevronLeft className="mr-1 size-4" aria-hidden />
              Previous
            </Button>
            <span>
              {offset + 1}–{Math.min(offset + pageSize, total)} of {total.toLocaleString()}
            </span>
            <Button variant="secondary" disabled={offset + pageSize >= total} onClick={() => setOffset(offset + pageSize)}>
              Next
              <ChevronRight className="ml-1 size-4" aria-hidden />
            </Button>
          </div>
        )}
        {!searching && total > 0 && total <= pageSize && (
          <p className="mt-3 text-sm text-zinc-500" data-testid="entries-total">
            {total} {total === 1 ? "entry" : "entries"}
          </p>
        )}
        <HiddenEntries projectId={projectId} leaderboardId={leaderboardId} period={chosen} selection={selection} />
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
      <SetScoreDialog
        open={scoring !== null}
        onOpenChange={(open) => !open && setScoring(null)}
        target={scoring?.target ?? null}
        bounds={bounds}
        onSet={saveScore}
      />
    </Card>
  );
}

/** `<epoch>:all` or `<epoch>:<period start>` as a person reads it. */
export function labelOf(period: string): string {
  const [epoch, start] = [period.slice(0, period.indexOf(":")), period.slice(period.indexOf(":") + 1)];
  return start === "all" ? `Reset #${epoch}` : `From ${when(start)} (reset #${epoch})`;
}

/** The JSON a game attached to the entry, folded: its keys as the summary, the whole document on opening. */
function Metadata({ value }: { value: Record<string, unknown> | null }) {
  const keys = value ? Object.keys(value).sort() : [];
  if (!value || keys.length === 0) return <span className="text-zinc-500">none</span>;
  return (
    <details className="min-w-0 max-w-xs" data-testid="entry-metadata">
      <summary className="cursor-pointer break-words text-zinc-700 hover:text-zinc-900">
        {keys.slice(0, 3).join(", ")}
        {keys.length > 3 ? ` +${keys.length - 3}` : ""}
      </summary>
      <pre className="mt-1 whitespace-pre-wrap break-all rounded bg-zinc-50 p-2 font-mono text-xs text-zinc-800">
        {JSON.stringify(value, null, 2)}
      </pre>
    </details>
  );
}
