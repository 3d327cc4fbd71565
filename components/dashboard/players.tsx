"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ChevronLeft, ChevronRight, Search } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { columnsFor, DataTable, type DataTableColumns, type SortingState } from "@/components/ui/data-table";
import { Badge, Button, Card, Input, State } from "@/components/ui/primitives";
import { SelectMenu } from "@/components/ui/select";
import { messageOf } from "./errors";

type PlayerRow = RouterOutputs["players"]["search"]["players"][number];
type Sort = "newest" | "oldest" | "name";
const PAGE = 25;
const SORTS = [
  { value: "newest", label: "Newest first" },
  { value: "oldest", label: "Oldest first" },
  { value: "name", label: "By display name" },
] as const;

/** The server's three orders as the table's sorting state, and back (display names sort one way only). */
const sortingOf = (sort: Sort): SortingState =>
  sort === "name" ? [{ id: "displayName", desc: false }] : [{ id: "createdAt", desc: sort === "newest" }];
const sortOf = (sorting: SortingState, current: Sort): Sort => {
  const first = sorting[0];
  if (!first) return current;
  if (first.id === "displayName") return "name";
  return first.desc ? "newest" : "oldest";
};

const col = columnsFor<PlayerRow>();
const playerColumns = (projectId: string): DataTableColumns<PlayerRow> => [
  col.accessor("id", {
    header: "Player",
    enableSorting: false,
    cell: (c) => (
      <Link className="font-mono text-xs text-blue-700 hover:underline" href={`/projects/${projectId}/players/${c.getValue()}`}>
        {c.getValue()}
      </Link>
    ),
  }),
  col.accessor("displayName", { header: "Display name", cell: (c) => c.getValue() ?? "—" }),
  col.accessor("email", { header: "E-mail", enableSorting: false, cell: (c) => c.getValue() ?? "—" }),
  col.accessor("createdAt", {
    header: "Created",
    sortDescFirst: true,
    cell: (c) => <span className="whitespace-nowrap">{new Date(c.getValue()).toLocaleString()}</span>,
  }),
  col.accessor("banned", {
    header: "State",
    enableSorting: false,
    cell: (c) => (c.getValue() ? <Badge tone="red">banned</Badge> : <Badge tone="green">active</Badge>),
  }),
];

export function PlayerSearch({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const [query, setQuery] = useState("");
  const [offset, setOffset] = useState(0);
  const [sort, setSort] = useState<Sort>("newest");
  const [columns] = useState(() => playerColumns(projectId));
  const players = useQuery({
    ...trpc.players.search.queryOptions({ projectId, query, limit: PAGE, offset, sort }),
    placeholderData: keepPreviousData,
  });
  const changeSort = (next: Sort) => {
    setSort(next);
    setOffset(0);
  };
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Players</h1>
      <Card>
        <div className="flex flex-col gap-2 sm:flex-row">
          <div className="relative flex-1">
            <Search className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-zinc-400" aria-hidden />
            <Input
              aria-label="Search players"
              type="search"
              className="pl-9"
              placeholder="Player id, e-mail, linked identity or part of a display name"
              value={query}
              onChange={(e) => {
                setQuery(e.target.value);
                setOffset(0);
              }}
            />
          </div>
          <SelectMenu aria-label="Sort players" className="sm:w-48" value={sort} onValueChange={changeSort} options={SORTS} />
        </div>
        <div className="mt-4">
          {players.isPending ? (
            <State kind="loading">Searching…</State>
          ) : players.error ? (
            <State kind="error">{messageOf(players.error)}</State>
          ) : players.data.players.length === 0 ? (
            <State kind="empty">
              {query ? "No player matches." : "No players yet: they appear when a game signs one in with this project's client key."}
            </State>
          ) : (
            <DataTable
              columns={columns}
              data={players.data.players}
              getRowId={(p) => p.id}
              sorting={sortingOf(sort)}
              onSortingChange={(updater) => changeSort(sortOf(typeof updater === "function" ? updater(sortingOf(sort)) : updater, sort))}
              minWidth={760}
            />
          )}
          {players.data && (offset > 0 || players.data.hasMore) && (
            <nav aria-label="Pages" className="mt-3 flex items-center justify-between text-sm text-zinc-600">
              <Button variant="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
                <ChevronLeft className="mr-1 size-4" aria-hidden />
                Previous
              </Button>
              <span aria-live="polite">
                {offset + 1}–{offset + players.data.players.length}
              </span>
              <Button variant="secondary" disabled={!players.data.hasMore} onClick={() => setOffset(offset + PAGE)}>
                Next
                <ChevronRight className="ml-1 size-4" aria-hidden />
              </Button>
            </nav>
          )}
        </div>
      </Card>
    </div>
  );
}
