"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ArrowLeft, Pencil, RotateCcw, Trash2 } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { Badge, Button, Card, State } from "@/components/ui/primitives";
import { messageOf } from "./errors";
import { LeaderboardExport } from "./export-buttons";
import { when } from "./format";
import { LeaderboardEntries, labelOf } from "./leaderboard-entries";
import { fieldsOf, LeaderboardForm } from "./leaderboards-form";
import { whenUtcAndLocal } from "./live-format";
import { nextResetText } from "./next-reset";
import { useProject } from "./project-context";
import { tierInWords } from "./reward-tiers";

export function LeaderboardDetail({ projectId, leaderboardId }: { projectId: string; leaderboardId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const ref = { projectId, id: leaderboardId };
  const board = useQuery(trpc.leaderboards.get.queryOptions(ref));
  const [editing, setEditing] = useState(false);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.leaderboards.get.queryKey(ref) }),
      queryClient.invalidateQueries({ queryKey: trpc.leaderboards.entries.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.leaderboards.periods.queryKey(ref) }),
    ]);
  const update = useMutation(trpc.leaderboards.update.mutationOptions());
  const reset = useMutation(trpc.leaderboards.reset.mutationOptions());
  const remove = useMutation(trpc.leaderboards.delete.mutationOptions());
  const { canEdit } = useProject();
  const names = useRewardNames(projectId);
  /** A confirmed action: a toast either way; a failure keeps the dialog open. */
  const confirmed = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work();
      toast.success(done);
    } catch (error) {
      toast.error(messageOf(error));
      throw error;
    }
  };

  if (board.isPending) return <State kind="loading">Loading the leaderboard…</State>;
  if (board.error) return <State kind="error">{messageOf(board.error)}</State>;
  const b = board.data;
  return (
    <div className="space-y-6">
      <Link href={`/projects/${projectId}/leaderboards`} className="text-sm text-zinc-500 hover:text-zinc-900">
        <span className="inline-flex items-center gap-1">
          <ArrowLeft className="size-4" aria-hidden />
          All leaderboards
        </span>
      </Link>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold" data-testid="leaderboard-name">
          {b.name}
        </h1>
        <Badge>{b.id}</Badge>
        <Badge>{b.sortOrder === "desc" ? "higher first" : "lower first"}</Badge>
        <Badge>{b.operator}</Badge>
        {!b.clientWritable && <Badge tone="red">server only</Badge>}
        {(b.startsAt || b.endsAt) && <Badge>{windowState(b.startsAt, b.endsAt)}</Badge>}
      </div>
      <Card
        title="Settings"
        actions={
          canEdit &&
          !editing && (
            <div className="flex flex-wrap gap-2">
              <Button variant="secondary" onClick={() => setEditing(true)}>
                <Pencil className="mr-1 size-4" aria-hidden />
                Edit
              </Button>
              <ConfirmDialog
                trigger={
                  <Button variant="secondary">
                    <RotateCcw className="mr-1 size-4" aria-hidden />
                    Reset now
                  </Button>
                }
                title={`Reset "${b.name}" now?`}
                description="The current period is archived (still browsable below) and the board starts empty. The period is closed within a minute and its rewards, if the board has any, are paid."
                confirmLabel="Reset board"
                tone="primary"
                onConfirm={() =>
                  confirmed(async () => {
                    await reset.mutateAsync(ref);
                    await refresh();
                  }, `Reset "${b.name}": a new period started.`)
                }
              />
              <ConfirmDialog
                trigger={
                  <Button variant="danger">
                    <Trash2 className="mr-1 size-4" aria-hidden />
                    Delete
                  </Button>
                }
                title={`Delete "${b.name}"?`}
                description="Every period and entry of this board is deleted, and game clients submitting to it get 404. This cannot be undone."
                confirmLabel="Delete leaderboard"
                typed={b.id}
                typedLabel={`Type the board's id, ${b.id}, to confirm`}
                onConfirm={() =>
                  confirmed(async () => {
                    await remove.mutateAsync(ref);
                    router.push(`/projects/${projectId}/leaderboards`);
                  }, `Deleted the leaderboard "${b.name}".`)
                }
              />
            </div>
          )
        }
      >
        {editing ? (
          <LeaderboardForm
            mode="edit"
            initial={fieldsOf(b)}
            onSubmit={async (patch) => {
              await update.mutateAsync({ ...ref, patch });
              toast.success("Saved the leaderboard.");
              setEditing(false);
              await refresh();
            }}
            onCancel={() => setEditing(false)}
          />
        ) : (
          <dl className="grid grid-cols-1 gap-2 text-sm sm:grid-cols-2 lg:grid-cols-3">
            <Fact label="Bounds" value={`${b.minScore ?? "−∞"} … ${b.maxScore ?? "+∞"}`} />
            <Fact label="Reset schedule (UTC)" value={b.resetSchedule ?? "never"} testId="leaderboard-schedule" />
            <Fact label="Next reset" value={nextResetText(b.resetsAt)} testId="leaderboard-next-reset" />
            <Fact label="Current period" value={labelOf(b.period)} />
            <Fact label="Submits from" value={b.clientWritable ? "game clients and servers" : "server keys only"} />
            {(b.startsAt || b.endsAt) && (
              <>
                <Fact label="Accepts scores from" value={instantText(b.startsAt, "the start")} testId="leaderboard-starts" />
                <Fact label="Accepts scores until" value={instantText(b.endsAt, "no end")} testId="leaderboard-ends" />
              </>
            )}
            <Fact label="Score webhook events" value={b.scoreEvents ? "on" : "off"} />
            <Fact label="Updated" value={when(b.updatedAt)} />
          </dl>
        )}
        {!editing && (
          <div className="mt-3 text-sm">
            <h3 className="text-zinc-500">Rewards at each close</h3>
            {b.rewards.length === 0 ? (
              <p data-testid="leaderboard-rewards">none</p>
            ) : (
              <ol className="list-none" data-testid="leaderboard-rewards">
                {b.rewards.map((t) => (
                  <li key={tierInWords(t)} data-testid="leaderboard-reward-tier">
                    {tierInWords(t, names)}
                  </li>
                ))}
              </ol>
            )}
          </div>
        )}
      </Card>
      <LeaderboardExport projectId={projectId} leaderboardId={leaderboardId} />
      <LeaderboardEntries
        projectId={projectId}
        leaderboardId={leaderboardId}
        currentPeriod={b.period}
        canEdit={Boolean(canEdit)}
        bounds={{ minScore: b.minScore, maxScore: b.maxScore }}
      />
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

/** An instant of the board's window in UTC and in the operator's zone, or what its absence means. */
function instantText(iso: string | null, none: string): string {
  if (!iso) return none;
  const w = whenUtcAndLocal(iso);
  return `${w.utc} (${w.local})`;
}

/** A limited-time board's state now (the page's render time). */
function windowState(startsAt: string | null, endsAt: string | null): string {
  const now = Date.now();
  if (startsAt && now < Date.parse(startsAt)) return "not started";
  if (endsAt && now >= Date.parse(endsAt)) return "ended";
  return "limited time";
}

/** The project's currency and item names by "currency:<id>" / "item:<id>" (ids are shown until they load). */
function useRewardNames(projectId: string): ReadonlyMap<string, string> {
  const trpc = useTRPC();
  const currencies = useQuery(trpc.economy.currencies.queryOptions({ projectId }));
  const items = useQuery(trpc.economy.items.queryOptions({ projectId }));
  return useMemo(
    () =>
      new Map([
        ...(currencies.data ?? []).map((c) => [`currency:${c.id}`, c.name] as const),
        ...(items.data ?? []).map((i) => [`item:${i.id}`, i.name] as const),
      ]),
    [currencies.data, items.data],
  );
}
