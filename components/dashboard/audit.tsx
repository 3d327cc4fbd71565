"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { KeyRound } from "lucide-react";
import { useMemo, useState } from "react";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Button, Card, State } from "@/components/ui/primitives";
import { SelectMenu } from "@/components/ui/select";
import { messageOf } from "./errors";

type Entry = RouterOutputs["audit"]["list"]["entries"][number];
/** Radix Select has no empty value: "all" stands for no filter. */
const ACTIONS = [
  { value: "all", label: "All actions" },
  ...["project.", "key.", "player.", "member.", "provider.", "leaderboard.", "economy.", "config."].map((a) => ({
    value: a,
    label: `${a}*`,
  })),
];
const json = (v: unknown) => (v === null || v === undefined ? "" : JSON.stringify(v));

const col = columnsFor<Entry>();
const columns: DataTableColumns<Entry> = [
  col.accessor("createdAt", {
    header: "When",
    enableSorting: false,
    cell: (c) => <span className="whitespace-nowrap">{new Date(c.getValue()).toLocaleString()}</span>,
  }),
  col.accessor("operatorEmail", {
    header: "Who",
    enableSorting: false,
    cell: ({ row: { original: e } }) => (
      <span>
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
    cell: (c) => <span className="break-all font-mono text-xs">{c.getValue() ?? "—"}</span>,
  }),
  col.display({
    id: "change",
    header: "Before → after",
    cell: ({ row: { original: e } }) => (
      <span className="block max-w-md break-all font-mono text-xs">
        {json(e.before)} {e.after === null ? "" : `→ ${json(e.after)}`}
      </span>
    ),
  }),
  col.accessor("requestId", {
    header: "Request",
    enableSorting: false,
    cell: (c) => <span className="font-mono text-xs">{c.getValue() ?? "—"}</span>,
  }),
];

/** Newest first, paged by cursor ("Older entries"), filtered by action prefix on the server. */
export function AuditLog({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const [action, setAction] = useState("all");
  const log = useInfiniteQuery(
    trpc.audit.list.infiniteQueryOptions(
      { projectId, limit: 50, ...(action !== "all" ? { action } : {}) },
      { getNextPageParam: (last) => last.nextCursor ?? undefined },
    ),
  );
  const entries = useMemo(() => log.data?.pages.flatMap((p) => p.entries), [log.data]);
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Audit log</h1>
      <Card
        title="Entries"
        actions={<SelectMenu aria-label="Filter by action" className="w-44" value={action} onValueChange={setAction} options={ACTIONS} />}
      >
        {log.isPending ? (
          <State kind="loading">Loading…</State>
        ) : log.error ? (
          <State kind="error">{messageOf(log.error)}</State>
        ) : !entries || entries.length === 0 ? (
          <State kind="empty">{action === "all" ? "Nothing recorded yet." : `No ${action}* entries.`}</State>
        ) : (
          <DataTable columns={columns} data={entries} getRowId={(e) => e.id} rowTestId="audit-row" minWidth={900} />
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
