"use client";

import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { ChevronLeft, ChevronRight, Search, ShieldAlert } from "lucide-react";
import Link from "next/link";
import { type ReactNode, useEffect, useMemo, useRef, useState } from "react";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { columnsFor, DataTable, type DataTableColumns, type SortingState } from "@/components/ui/data-table";
import { Badge, Button, Card, Input, State } from "@/components/ui/primitives";
import { SelectMenu } from "@/components/ui/select";
import type { PlayerFiltersInput } from "@/server/services/players/filter-schemas";
import { BulkBan, BulkGrant } from "./bulk-actions";
import { messageOf } from "./errors";
import { ExportButtons } from "./export-buttons";
import { useProject } from "./project-context";
import { useSlashFocus, useUrlState } from "./url-state";
import { When } from "./when";

type PlayerRow = RouterOutputs["players"]["search"]["players"][number];
type Sort = "newest" | "oldest" | "name";
const PAGE = 25;
const SORTS = [
  { value: "newest", label: "Newest first" },
  { value: "oldest", label: "Oldest first" },
  { value: "name", label: "By display name" },
] as const;
const BANNED = [
  { value: "any", label: "Any" },
  { value: "banned", label: "Banned" },
  { value: "active", label: "Not banned" },
] as const;
const EMAIL = [
  { value: "any", label: "Any" },
  { value: "with", label: "Has an e-mail" },
  { value: "without", label: "No e-mail" },
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

/** A date field (local calendar day) as the start of that day, or of the next one for an inclusive "to". */
const dayStart = (day: string, next = false): string | undefined => {
  if (!day) return undefined;
  const date = new Date(`${day}T00:00:00`);
  if (Number.isNaN(date.getTime())) return undefined;
  if (next) date.setDate(date.getDate() + 1);
  return date.toISOString();
};

const col = columnsFor<PlayerRow>();
function playerColumns(projectId: string, selection: Selection | null): DataTableColumns<PlayerRow> {
  return [
    ...(selection
      ? [
          col.display({
            id: "select",
            header: () => (
              <input
                type="checkbox"
                aria-label="Select every player on this page"
                className="size-4"
                checked={selection.allOnPage}
                onChange={(e) => selection.setPage(e.target.checked)}
              />
            ),
            cell: ({ row: { original: p } }) => (
              <input
                type="checkbox"
                aria-label={`Select ${p.displayName ?? p.id}`}
                className="size-4"
                checked={selection.ids.has(p.id)}
                onChange={(e) => selection.set(p.id, e.target.checked)}
              />
            ),
          }),
        ]
      : []),
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
    col.accessor("createdAt", { header: "Created", sortDescFirst: true, cell: (c) => <When value={c.getValue()} /> }),
    col.accessor("lastSeenAt", { header: "Last seen", enableSorting: false, cell: (c) => <When value={c.getValue()} /> }),
    col.accessor("banned", {
      header: "State",
      enableSorting: false,
      cell: (c) => (c.getValue() ? <Badge tone="red">banned</Badge> : <Badge tone="green">active</Badge>),
    }),
  ];
}

type Selection = { ids: Set<string>; allOnPage: boolean; set: (id: string, on: boolean) => void; setPage: (on: boolean) => void };

type Ranges = { createdFrom: string; createdTo: string; lastSeenFrom: string; lastSeenTo: string };
const NO_RANGES = { createdFrom: undefined, createdTo: undefined, lastSeenFrom: undefined, lastSeenTo: undefined };
const RANGE_KEYS = ["createdFrom", "createdTo", "lastSeenFrom", "lastSeenTo"] as const;
const oneOf = <T extends string>(value: string, allowed: readonly { value: T }[], fallback: T): T =>
  (allowed.find((a) => a.value === value)?.value ?? fallback) as T;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Search, filters, sort and page live in the URL (./url-state.ts): shareable, and kept when Back returns here. */
export function PlayerSearch({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { canEdit } = useProject();
  const url = useUrlState();
  const urlQuery = url.get("q");
  const [query, setQueryText] = useState(urlQuery);
  // Back/forward or a shared link changes the URL under the box: follow it.
  useEffect(() => setQueryText(urlQuery), [urlQuery]);
  const searchBox = useRef<HTMLInputElement>(null);
  useSlashFocus(searchBox);
  const offset = Math.min(100_000, Math.max(0, Number.parseInt(url.get("offset"), 10) || 0));
  const sort = oneOf<Sort>(url.get("sort"), SORTS, "newest");
  const banned = oneOf(url.get("banned"), BANNED, "any");
  const email = oneOf(url.get("email"), EMAIL, "any");
  const provider = url.get("provider") || "any";
  const tag = url.get("tag") || "any";
  const ranges = Object.fromEntries(RANGE_KEYS.map((k) => [k, DAY.test(url.get(k)) ? url.get(k) : ""])) as Ranges;
  const setOffset = (n: number) => url.set({ offset: n > 0 ? String(n) : undefined });
  const setFilter = (key: string, value: string, empty = "any") =>
    url.set({ [key]: value === empty ? undefined : value, offset: undefined });
  const setQuery = (value: string) => {
    setQueryText(value);
    url.set({ q: value || undefined, offset: undefined });
  };
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const providers = useQuery(trpc.providers.list.queryOptions({ projectId }));
  const tags = useQuery(trpc.support.tags.queryOptions({ projectId }));
  const filters: PlayerFiltersInput = {
    query,
    banned,
    email,
    provider: provider === "any" ? undefined : provider,
    createdFrom: dayStart(ranges.createdFrom),
    createdTo: dayStart(ranges.createdTo, true),
    lastSeenFrom: dayStart(ranges.lastSeenFrom),
    lastSeenTo: dayStart(ranges.lastSeenTo, true),
    tag: tag === "any" ? undefined : tag,
  };
  const players = useQuery({
    ...trpc.players.search.queryOptions({ projectId, ...filters, limit: PAGE, offset, sort }),
    placeholderData: keepPreviousData,
  });
  const count = useQuery({ ...trpc.players.count.queryOptions({ projectId, ...filters }), placeholderData: keepPreviousData });
  const total = count.data?.total;
  const filtered = banned !== "any" || email !== "any" || provider !== "any" || tag !== "any" || Object.values(ranges).some(Boolean);
  const pageIds = useMemo(() => players.data?.players.map((p) => p.id) ?? [], [players.data]);
  const selection: Selection | null = canEdit
    ? {
        ids: selected,
        allOnPage: pageIds.length > 0 && pageIds.every((id) => selected.has(id)),
        set: (id, on) =>
          setSelected((s) => {
            const next = new Set(s);
            if (on) next.add(id);
            else next.delete(id);
            return next;
          }),
        setPage: (on) =>
          setSelected((s) => {
            const next = new Set(s);
            for (const id of pageIds) on ? next.add(id) : next.delete(id);
            return next;
          }),
      }
    : null;
  const columns = playerColumns(projectId, selection);
  const tagOptions = [
    { value: "any", label: "Any" },
    ...(tags.data ?? []).map((t) => ({ value: t.tag, label: `${t.tag} (${t.players.toLocaleString()})` })),
    // A tag from a shared link that no player carries any more still shows as chosen.
    ...(tag !== "any" && tags.data && !tags.data.some((t) => t.tag === tag) ? [{ value: tag, label: `${tag} (0)` }] : []),
  ];
  const providerOptions = [
    { value: "any", label: "Any" },
    { value: "email", label: "E-mail and password" },
    { value: "anonymous", label: "Anonymous only" },
    ...(providers.data ?? []).map((p) => ({ value: p.id, label: `Linked: ${p.id}` })),
  ];
  const afterBulk = () => {
    setSelected(new Set());
    void queryClient.invalidateQueries({ queryKey: trpc.players.search.queryKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.players.count.queryKey() });
  };
  const q = query.trim();
  const filterField = (id: string, label: string, control: ReactNode) => (
    <div className="flex min-w-0 flex-col gap-1 text-xs text-zinc-600">
      <label htmlFor={id}>{label}</label>
      {control}
    </div>
  );
  const dateField = (key: keyof Ranges, label: string) =>
    filterField(
      `players-${key}`,
      label,
      <Input id={`players-${key}`} type="date" value={ranges[key]} onChange={(e) => setFilter(key, e.target.value, "")} />,
    );
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-semibold">Players</h1>
        <div className="flex flex-wrap items-center gap-3">
          <Link href={`/projects/${projectId}/moderation`} className="inline-flex items-center gap-1 text-sm underline underline-offset-2">
            <ShieldAlert className="size-4" aria-hidden />
            Moderation queue
          </Link>
          <ExportButtons projectId={projectId} kind="players" label="Export these players" params={{ ...filters, query: q || undefined }} />
        </div>
      </div>
      <Card>
        <div className="flex flex-col gap-2 sm:flex-row">
          <div className="relative flex-1">
            <Search className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-zinc-400" aria-hidden />
            <Input
              ref={searchBox}
              aria-label="Search players"
              aria-keyshortcuts="/"
              type="search"
              className="pl-9"
              placeholder="Start of an e-mail or player id, part of a display name, a linked identity, or a store order id (press /)"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
            />
          </div>
          <SelectMenu
            aria-label="Sort players"
            className="sm:w-48"
            value={sort}
            onValueChange={(v) => setFilter("sort", v, "newest")}
            options={SORTS}
          />
        </div>
        <fieldset className="mt-3 grid grid-cols-2 gap-2 sm:grid-cols-4 lg:grid-cols-8" aria-label="Filters">
          {filterField(
            "players-banned",
            "Ban state",
            <SelectMenu id="players-banned" value={banned} onValueChange={(v) => setFilter("banned", v)} options={BANNED} />,
          )}
          {filterField(
            "players-email",
            "E-mail",
            <SelectMenu id="players-email" value={email} onValueChange={(v) => setFilter("email", v)} options={EMAIL} />,
          )}
          {filterField(
            "players-provider",
            "Sign-in",
            <SelectMenu id="players-provider" value={provider} onValueChange={(v) => setFilter("provider", v)} options={providerOptions} />,
          )}
          {filterField(
            "players-tag",
            "Tag",
            <SelectMenu id="players-tag" value={tag} onValueChange={(v) => setFilter("tag", v)} options={tagOptions} />,
          )}
          {dateField("createdFrom", "Created from")}
          {dateField("createdTo", "Created to")}
          {dateField("lastSeenFrom", "Last seen from")}
          {dateField("lastSeenTo", "Last seen to")}
        </fieldset>
        {filtered && (
          <div className="mt-2 text-right">
            <Button
              variant="secondary"
              onClick={() =>
                url.set({ banned: undefined, email: undefined, provider: undefined, tag: undefined, offset: undefined, ...NO_RANGES })
              }
            >
              Clear filters
            </Button>
          </div>
        )}
        <div className="mt-4 flex flex-wrap items-center justify-between gap-2">
          {selection && pageIds.length > 0 && (
            // Phones have no table header: the page's select-all box is repeated here.
            <label className="flex items-center gap-2 text-sm text-zinc-700 sm:hidden">
              <input
                type="checkbox"
                className="size-4"
                checked={selection.allOnPage}
                onChange={(e) => selection.setPage(e.target.checked)}
              />
              Select this page
            </label>
          )}
          <p className="text-sm text-zinc-600" aria-live="polite" data-testid="player-total">
            {total === undefined ? " " : `${total.toLocaleString()} ${total === 1 ? "player" : "players"}`}
          </p>
          {selection && selected.size > 0 && (
            <div className="flex flex-wrap items-center gap-2" data-testid="bulk-actions">
              <span className="text-sm text-zinc-700">{selected.size} selected</span>
              <BulkGrant projectId={projectId} playerIds={[...selected]} onDone={afterBulk} />
              <BulkBan projectId={projectId} playerIds={[...selected]} onDone={afterBulk} />
              <Button variant="secondary" onClick={() => setSelected(new Set())}>
                Clear selection
              </Button>
            </div>
          )}
        </div>
        <div className="mt-3">
          {players.isPending ? (
            <State kind="loading">Searching…</State>
          ) : players.error ? (
            <State kind="error">{messageOf(players.error)}</State>
          ) : players.data.players.length === 0 ? (
            <State kind="empty">
              {q
                ? `No player's e-mail or id starts with “${q}”, and no display name or linked identity matches it${filtered ? " with these filters" : ""}.`
                : filtered
                  ? "No player matches these filters."
                  : "No players yet: they appear when a game signs one in with this project's client key."}
            </State>
          ) : (
            <DataTable
              columns={columns}
              data={players.data.players}
              getRowId={(p) => p.id}
              sorting={sortingOf(sort)}
              onSortingChange={(updater) =>
                setFilter("sort", sortOf(typeof updater === "function" ? updater(sortingOf(sort)) : updater, sort), "newest")
              }
              rowTestId="player-row"
              minWidth={900}
            />
          )}
          {players.data && (offset > 0 || players.data.hasMore) && (
            <nav aria-label="Pages" className="mt-3 flex items-center justify-between text-sm text-zinc-600">
              <Button variant="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
                <ChevronLeft className="mr-1 size-4" aria-hidden />
                Previous
              </Button>
              <span>
                {offset + 1}–{offset + players.data.players.length}
                {total === undefined ? "" : ` of ${total.toLocaleString()}`}
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
