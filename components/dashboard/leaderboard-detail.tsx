"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Badge, Button, Card, State } from "@/components/ui/primitives";
import { messageOf } from "./errors";
import { LeaderboardEntries, labelOf } from "./leaderboard-entries";
import { definitionOf, fieldsOf, LeaderboardForm } from "./leaderboards-form";

export function LeaderboardDetail({ projectId, leaderboardId }: { projectId: string; leaderboardId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const project = useQuery(trpc.projects.get.queryOptions({ projectId }));
  const ref = { projectId, id: leaderboardId };
  const board = useQuery(trpc.leaderboards.get.queryOptions(ref));
  const [editing, setEditing] = useState(false);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.leaderboards.get.queryKey(ref) }),
      queryClient.invalidateQueries({ queryKey: trpc.leaderboards.entries.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.leaderboards.periods.queryKey(ref) }),
    ]);
  const update = useMutation(
    trpc.leaderboards.update.mutationOptions({
      onSuccess: async () => {
        setEditing(false);
        await refresh();
      },
    }),
  );
  const reset = useMutation(trpc.leaderboards.reset.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(
    trpc.leaderboards.delete.mutationOptions({ onSuccess: () => router.push(`/projects/${projectId}/leaderboards`) }),
  );
  const canEdit = project.data && project.data.role !== "VIEWER";
  const failure = update.error ?? reset.error ?? remove.error;

  if (board.isPending) return <State kind="loading">Loading the leaderboard…</State>;
  if (board.error) return <State kind="error">{messageOf(board.error)}</State>;
  const b = board.data;
  return (
    <div className="space-y-6">
      <Link href={`/projects/${projectId}/leaderboards`} className="text-sm text-zinc-500 hover:text-zinc-900">
        ← All leaderboards
      </Link>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold" data-testid="leaderboard-name">
          {b.name}
        </h1>
        <Badge>{b.id}</Badge>
        <Badge>{b.sortOrder === "desc" ? "higher first" : "lower first"}</Badge>
        <Badge>{b.operator}</Badge>
        {!b.clientWritable && <Badge tone="red">server only</Badge>}
      </div>
      <Card
        title="Settings"
        actions={
          canEdit &&
          !editing && (
            <div className="flex flex-wrap gap-2">
              <Button variant="secondary" onClick={() => setEditing(true)}>
                Edit
              </Button>
              <Button
                variant="secondary"
                disabled={reset.isPending}
                onClick={() => {
                  if (window.confirm(`Reset "${b.name}" now? The current period is archived and the board starts empty.`))
                    reset.mutate(ref);
                }}
              >
                Reset now
              </Button>
              <Button
                variant="danger"
                disabled={remove.isPending}
                onClick={() => {
                  if (window.confirm(`Delete "${b.name}" with every period and entry? This cannot be undone.`)) remove.mutate(ref);
                }}
              >
                Delete
              </Button>
            </div>
          )
        }
      >
        {editing ? (
          <LeaderboardForm
            mode="edit"
            initial={fieldsOf(b)}
            pending={update.isPending}
            onSubmit={(f) => update.mutate({ ...ref, patch: definitionOf(f) })}
            onCancel={() => setEditing(false)}
          />
        ) : (
          <dl className="grid grid-cols-1 gap-2 text-sm sm:grid-cols-2 lg:grid-cols-3">
            <Fact label="Bounds" value={`${b.minScore ?? "−∞"} … ${b.maxScore ?? "+∞"}`} />
            <Fact label="Reset schedule (UTC)" value={b.resetSchedule ?? "never"} testId="leaderboard-schedule" />
            <Fact label="Next reset" value={b.resetsAt ? new Date(b.resetsAt).toLocaleString() : "—"} />
            <Fact label="Current period" value={labelOf(b.period)} />
            <Fact label="Submits from" value={b.clientWritable ? "game clients and servers" : "server keys only"} />
            <Fact label="Updated" value={new Date(b.updatedAt).toLocaleString()} />
          </dl>
        )}
        {failure && (
          <p role="alert" className="mt-2 text-sm text-red-700">
            {messageOf(failure)}
          </p>
        )}
      </Card>
      <LeaderboardEntries projectId={projectId} leaderboardId={leaderboardId} currentPeriod={b.period} canEdit={Boolean(canEdit)} />
    </div>
  );
}

function Fact({ label, value, mono, testId }: { label: string; value: string; mono?: boolean; testId?: string }) {
  return (
    <div>
      <dt className="text-zinc-500">{label}</dt>
      <dd className={mono ? "break-all font-mono text-xs" : ""} data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}
