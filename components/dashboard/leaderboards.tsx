"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo } from "react";
import { toast } from "sonner";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Badge, Card, State } from "@/components/ui/primitives";
import { messageOf } from "./errors";
import { emptyBoard, LeaderboardForm } from "./leaderboards-form";
import { nextResetText } from "./next-reset";
import { useProject } from "./project-context";

type BoardRow = RouterOutputs["leaderboards"]["list"][number];
const SORT = { desc: "higher first", asc: "lower first" } as const;
const col = columnsFor<BoardRow>();

export function Leaderboards({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const boards = useQuery(trpc.leaderboards.list.queryOptions({ projectId }));
  const create = useMutation(trpc.leaderboards.create.mutationOptions());
  const { canEdit } = useProject();
  const columns = useMemo<DataTableColumns<BoardRow>>(
    () => [
      col.accessor("name", {
        header: "Board",
        cell: (c) => (
          <div className="min-w-0">
            <Link className="text-blue-700 hover:underline" href={`/projects/${projectId}/leaderboards/${c.row.original.id}`}>
              {c.getValue()}
            </Link>
            <div className="break-all font-mono text-xs text-zinc-500">{c.row.original.id}</div>
          </div>
        ),
      }),
      col.accessor((b) => SORT[b.sortOrder], {
        id: "order",
        header: "Order",
        cell: (c) => <span className="whitespace-nowrap">{c.getValue()}</span>,
      }),
      col.accessor("operator", { header: "Operator" }),
      col.accessor((b) => `${b.minScore ?? "−∞"} … ${b.maxScore ?? "+∞"}`, {
        id: "bounds",
        header: "Bounds",
        enableSorting: false,
        cell: (c) => <span className="whitespace-nowrap">{c.getValue()}</span>,
      }),
      col.accessor("resetsAt", {
        id: "resets",
        header: "Next reset",
        enableSorting: false,
        cell: (c) => (
          <div className="min-w-0" data-testid="next-reset">
            <div>{nextResetText(c.getValue())}</div>
            {c.row.original.resetSchedule && <div className="font-mono text-xs text-zinc-500">{c.row.original.resetSchedule}</div>}
          </div>
        ),
      }),
      col.accessor("clientWritable", {
        header: "Writes",
        cell: (c) => (c.getValue() ? <Badge>clients</Badge> : <Badge tone="red">server only</Badge>),
      }),
    ],
    [projectId],
  );
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Leaderboards</h1>
      <Card title="Boards">
        {boards.isPending ? (
          <State kind="loading">Loading leaderboards…</State>
        ) : boards.error ? (
          <State kind="error">{messageOf(boards.error)}</State>
        ) : boards.data.length === 0 ? (
          <State kind="empty">No leaderboards yet.{canEdit ? " Create one below." : ""}</State>
        ) : (
          <DataTable columns={columns} data={boards.data} getRowId={(b) => b.id} rowTestId="leaderboard-row" minWidth={640} />
        )}
      </Card>
      {canEdit && (
        <Card title="New leaderboard">
          <LeaderboardForm
            mode="create"
            initial={emptyBoard}
            onSubmit={async (board) => {
              const created = await create.mutateAsync({ projectId, board });
              toast.success(`Created the leaderboard "${created.name}".`);
              await queryClient.invalidateQueries({ queryKey: trpc.leaderboards.list.queryKey({ projectId }) });
            }}
          />
        </Card>
      )}
    </div>
  );
}
