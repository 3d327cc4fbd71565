"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Badge, Card, State } from "@/components/ui/primitives";
import { messageOf } from "./errors";
import { GameTable, WIDE } from "./game-table";
import { definitionOf, emptyBoard, LeaderboardForm } from "./leaderboards-form";

const SORT = { desc: "higher first", asc: "lower first" } as const;

export function Leaderboards({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const project = useQuery(trpc.projects.get.queryOptions({ projectId }));
  const boards = useQuery(trpc.leaderboards.list.queryOptions({ projectId }));
  const [formKey, setFormKey] = useState(0);
  const create = useMutation(
    trpc.leaderboards.create.mutationOptions({
      onSuccess: async () => {
        setFormKey((k) => k + 1);
        await queryClient.invalidateQueries({ queryKey: trpc.leaderboards.list.queryKey({ projectId }) });
      },
    }),
  );
  const canEdit = project.data && project.data.role !== "VIEWER";
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
          <GameTable
            head={[
              { label: "Board" },
              { label: "Order" },
              { label: "Operator" },
              { label: "Bounds", wide: true },
              { label: "Resets" },
              { label: "Writes", wide: true },
            ]}
          >
            {boards.data.map((b) => (
              <tr key={b.id} data-testid="leaderboard-row">
                <td className="px-2 py-2">
                  <Link className="text-blue-700 hover:underline" href={`/projects/${projectId}/leaderboards/${b.id}`}>
                    {b.name}
                  </Link>
                  <div className="font-mono text-xs text-zinc-500">{b.id}</div>
                </td>
                <td className="px-2 py-2 whitespace-nowrap">{SORT[b.sortOrder]}</td>
                <td className="px-2 py-2">{b.operator}</td>
                <td className={`px-2 py-2 whitespace-nowrap ${WIDE}`}>
                  {b.minScore ?? "−∞"} … {b.maxScore ?? "+∞"}
                </td>
                <td className="px-2 py-2 font-mono text-xs">{b.resetSchedule ?? "never"}</td>
                <td className={`px-2 py-2 ${WIDE}`}>{b.clientWritable ? <Badge>clients</Badge> : <Badge tone="red">server only</Badge>}</td>
              </tr>
            ))}
          </GameTable>
        )}
      </Card>
      {canEdit && (
        <Card title="New leaderboard">
          <LeaderboardForm
            key={formKey}
            mode="create"
            initial={emptyBoard}
            pending={create.isPending}
            onSubmit={(f) =>
              create.mutate({ projectId, board: { id: f.id, sortOrder: f.sortOrder, operator: f.operator, ...definitionOf(f) } })
            }
          />
          {create.error && (
            <p role="alert" className="mt-2 text-sm text-red-700">
              {messageOf(create.error)}
            </p>
          )}
        </Card>
      )}
    </div>
  );
}
