"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { KeyRound } from "lucide-react";
import Link from "next/link";
import { useEffect, useMemo, useState } from "react";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Button, Card, Input, State } from "@/components/ui/primitives";
import { SelectMenu } from "@/components/ui/select";
import { auditDiff } from "@/server/services/audit-diff";
import { messageOf } from "./errors";
import { ExportButtons } from "./export-buttons";
import { useUrlState } from "./url-state";
import { When } from "./when";

type Entry = RouterOutputs["audit"]["list"]["entries"][number];
type TargetRef = NonNullable<Entry["targetRef"]>;
/** Radix Select has no empty value: "all" stands for no filter. */
const ACTIONS = [
  { value: "all", label: "All actions" },
  ...["project.", "key.", "player.", "economy.", "leaderboard.", "member.", "provider.", "config.", "export."].map((a) => ({
    value: a,
    label: `${a}*`,
  })),
];
const NOUN: Record<TargetRef["kind"], string> = {
  player: "player",
  key: "API key",
  leaderboard: "leaderboard",
  currency: "currency",
  item: "item",
  purchase: "purchase",
  operator: "operator",
  webhook: "webhook endpoint",
};

function hrefOf(projectId: string, ref: TargetRef): string | null {
  switch (ref.kind) {
    case "player":
      return `/projects/${projectId}/players/${ref.id}`;
    case "key":
      return `/projects/${projectId}/keys`;
    case "leaderboard":
      return `/projects/${projectId}/leaderboards/${ref.id}`;
    case "currency":
    case "item":
    case "purchase":
      return `/projects/${projectId}/economy`;
    case "operator":
      return `/projects/${projectId}/members`;
    case "webhook":
      return `/projects/${projectId}/webhooks`;
  }
}

function Target({ projectId, entry }: { projectId: string; entry: Entry }) {
  const ref = entry.targetRef;
  if (!entry.target) return <span>—</span>;
  if (!ref) return <span className="break-all font-mono text-xs">{entry.target}</span>;
  const href = hrefOf(projectId, ref);
  // "/key" of a data key, "/player" of an entry; nothing for a config import's "kind:id".
  const rest = entry.target.startsWith(ref.id) ? entry.target.slice(ref.id.length) : "";
  return (
    <span className="flex min-w-0 flex-col">
      {ref.name && href ? (
        <Link className="text-blue-700 hover:underline" href={href}>
          {ref.name}
        </Link>
      ) : (
        <span className="text-zinc-600">{ref.name ?? `deleted ${NOUN[ref.kind]}`}</span>
      )}
      <span className="break-all font-mono text-xs text-zinc-500">
        {NOUN[ref.kind]} {ref.id.length > 20 ? `${ref.id.slice(0, 8)}…` : ref.id}
        {rest}
      </span>
    </span>
  );
}

/** The config import an entry belongs to (its summary and one entry per definition it changed carry the id). */
const importIdOf = (entry: Entry): string | null => {
  const after = entry.after as { importId?: unknown } | null;
  return after && typeof after === "object" && typeof after.importId === "string" ? after.importId : null;
};

/** Field-level changes: changed fields old → new, added (+) and removed (−) ones; nested values as compact JSON. */
function Change({ entry, onImport }: { entry: Entry; onImport: (importId: string) => void }) {
  const importId = importIdOf(entry);
  const changes = auditDiff(entry.before, entry.after).filter((c) => !(importId && c.field === "importId"));
  const link = importId && (
    <button
      type="button"
      className="mb-1 text-xs text-blue-700 hover:underline"
      title={`Import ${importId}: show every entry of this import`}
      onClick={() => onImport(importId)}
    >
      Import {importId.slice(-8)}
    </button>
  );
  if (changes.length === 0) return link || <span className="text-zinc-500">—</span>;
  return (
    <div className="min-w-0">
      {link}
      <ChangeList changes={changes} />
    </div>
  );
}

function ChangeList({ changes }: { changes: ReturnType<typeof auditDiff> }) {
  return (
    <ul className="min-w-0 space-y-0.5 text-xs" data-testid="audit-diff">
      {changes.map((c) => (
        <li key={c.field} className="break-words">
          <span className="font-medium text-zinc-800">{c.field}</span>{" "}
          {c.kind === "changed" ? (
            <>
              <del className="font-mono text-red-700">{c.before}</del> →{" "}
              <ins className="font-mono text-green-800 no-underline">{c.after}</ins>
            </>
          ) : c.kind === "added" ? (
            <>
              <span className="text-zinc-500">added</span> <ins className="font-mono text-green-800 no-underline">{c.after}</ins>
            </>
          ) : (
            <>
              <span className="text-zinc-500">removed</span> <del className="font-mono text-red-700">{c.before}</del>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

const col = columnsFor<Entry>();
const auditColumns = (projectId: string, onImport: (importId: string) => void): DataTableColumns<Entry> => [
  col.accessor("createdAt", {
    header: "When",
    enableSorting: false,
    cell: (c) => <When value={c.getValue()} />,
  }),
  col.accessor("operatorEmail", {
    header: "Who",
    enableSorting: false,
    cell: ({ row: { original: e } }) => (
      <span className="break-words">
        {e.operatorEmail ?? "—"}
        {e.tokenId && (
          <span
            data-testid="audit-token"
            className="mt-0.5 flex items-center gap-1 text-xs text-zinc-500"
            title={`Access token ${e.tokenId}${e.tokenPrefix ? ` (${e.tokenPrefix}…)` : ""}`}
          >
            <KeyRound className="size-3 shrink-0" aria-hidden />
            via token {e.tokenName ? `"${e.tokenName}"` : <span className="font-mono">{e.tokenId.slice(0, 8)}</span>}
          </span>
        )}
      </span>
    ),
  }),
  col.accessor("action", {
    header: "Action",
    enableSorting: false,
    cell: (c) => <span className="font-mono text-xs">{c.getValue()}</span>,
  }),
  col.accessor("target", {
    header: "Target",
    enableSorting: false,
    cell: ({ row: { original: e } }) => <Target projectId={projectId} entry={e} />,
  }),
  col.display({ id: "change", header: "Change", cell: ({ row: { original: e } }) => <Change entry={e} onImport={onImport} /> }),
  // Request ids are long: cut to fit the card on a laptop, whole in the title (and the export).
  col.accessor("requestId", {
    header: "Request",
    enableSorting: false,
    cell: (c) => (
      <span className="block max-w-[8rem] truncate font-mono text-xs text-zinc-600" title={c.getValue() ?? undefined}>
        {c.getValue() ?? "—"}
      </span>
    ),
  }),
];

/** A local calendar day as the start of that day (or of the next one, for an inclusive "to"), in ISO. */
const dayStart = (day: string, next = false): string | undefined => {
  if (!day) return undefined;
  const date = new Date(`${day}T00:00:00`);
  if (Number.isNaN(date.getTime())) return undefined;
  if (next) date.setDate(date.getDate() + 1);
  return date.toISOString();
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Newest first, paged by cursor ("Older entries"), filtered on the server by action, operator,
 * target ("purchase:buy-potion" or "buy-potion"), config import and days; the filters live in
 * the URL (shareable, kept by Back).
 */
export function AuditLog({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const url = useUrlState();
  const action = url.get("action") || "all";
  const operatorId = UUID.test(url.get("operator")) ? url.get("operator") : "all";
  const importId = UUID.test(url.get("import")) ? url.get("import") : "";
  const from = DAY.test(url.get("from")) ? url.get("from") : "";
  const to = DAY.test(url.get("to")) ? url.get("to") : "";
  const urlTarget = url.get("target");
  const [target, setTargetText] = useState(urlTarget);
  useEffect(() => setTargetText(urlTarget), [urlTarget]);
  const setTarget = (value: string) => {
    setTargetText(value);
    url.set({ target: value.trim() || undefined });
  };
  const setAction = (v: string) => url.set({ action: v === "all" ? undefined : v });
  const setOperatorId = (v: string) => url.set({ operator: v === "all" ? undefined : v });
  const setFrom = (v: string) => url.set({ from: v || undefined });
  const setTo = (v: string) => url.set({ to: v || undefined });
  const operators = useQuery(trpc.audit.operators.queryOptions({ projectId }));
  const filters = {
    ...(action !== "all" ? { action } : {}),
    ...(operatorId !== "all" ? { operatorId } : {}),
    ...(target.trim() ? { target: target.trim() } : {}),
    ...(importId ? { importId } : {}),
    ...(dayStart(from) ? { from: dayStart(from) } : {}),
    ...(dayStart(to, true) ? { to: dayStart(to, true) } : {}),
  };
  const filtered = Object.keys(filters).length > 0;
  const log = useInfiniteQuery(
    trpc.audit.list.infiniteQueryOptions(
      { projectId, limit: 50, ...filters },
      { getNextPageParam: (last) => last.nextCursor ?? undefined },
    ),
  );
  const entries = useMemo(() => log.data?.pages.flatMap((p) => p.entries), [log.data]);
  const columns = useMemo(() => auditColumns(projectId, (id) => url.set({ import: id })), [projectId, url]);
  const operatorOptions = [
    { value: "all", label: "Every operator" },
    ...(operators.data ?? []).map((o) => ({ value: o.id, label: o.email })),
  ];
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-semibold">Audit log</h1>
        <ExportButtons projectId={projectId} kind="audit" label="Export these entries" params={filters} />
      </div>
      <Card title="Entries">
        <fieldset aria-label="Filters" className="mb-4 grid grid-cols-1 gap-2 sm:grid-cols-2 lg:grid-cols-5">
          <SelectMenu aria-label="Filter by action" value={action} onValueChange={setAction} options={ACTIONS} />
          <SelectMenu aria-label="Filter by operator" value={operatorId} onValueChange={setOperatorId} options={operatorOptions} />
          <Input
            type="search"
            aria-label="Filter by target"
            placeholder="Target: purchase:buy-potion, buy-potion, a player id"
            value={target}
            onChange={(e) => setTarget(e.target.value)}
          />
          <div className="flex items-center gap-2 text-sm text-zinc-600">
            <label htmlFor="audit-from" className="w-10 shrink-0">
              From
            </label>
            <Input id="audit-from" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
          </div>
          <div className="flex items-center gap-2 text-sm text-zinc-600">
            <label htmlFor="audit-to" className="w-10 shrink-0">
              To
            </label>
            <Input id="audit-to" type="date" value={to} onChange={(e) => setTo(e.target.value)} />
          </div>
        </fieldset>
        {importId && (
          <p className="mb-3 flex flex-wrap items-center gap-2 text-sm text-zinc-700" data-testid="audit-import-filter">
            Entries of config import <span className="break-all font-mono text-xs">{importId}</span>
            <Button variant="secondary" onClick={() => url.set({ import: undefined })}>
              Show every import
            </Button>
          </p>
        )}
        {log.isPending ? (
          <State kind="loading">Loading…</State>
        ) : log.error ? (
          <State kind="error">{messageOf(log.error)}</State>
        ) : !entries || entries.length === 0 ? (
          <State kind="empty">{filtered ? "No entries match these filters." : "Nothing recorded yet."}</State>
        ) : (
          <DataTable columns={columns} data={entries} getRowId={(e) => e.id} rowTestId="audit-row" minWidth={880} />
        )}
        {log.hasNextPage && (
          <div className="mt-3 text-center">
            <Button variant="secondary" disabled={log.isFetchingNextPage} onClick={() => log.fetchNextPage()}>
              {log.isFetchingNextPage ? "Loading…" : "Older entries"}
            </Button>
          </div>
        )}
      </Card>
    </div>
  );
}
