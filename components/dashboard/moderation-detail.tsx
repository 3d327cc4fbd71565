"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Eraser, MessageSquareWarning, XCircle } from "lucide-react";
import Link from "next/link";
import { useId, useState } from "react";
import { toast } from "sonner";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { Badge, Button, Card, Input, Label, State, Table } from "@/components/ui/primitives";
import { BanForm } from "./ban-form";
import { messageOf } from "./errors";
import { when } from "./format";
import { useProject } from "./project-context";
import { When } from "./when";

type Detail = RouterOutputs["moderation"]["player"];

/** One reported player's file: the reports against them, their recent board entries, ban state and history, and the actions. */
export function ModerationDetail({ projectId, playerId, onClose }: { projectId: string; playerId: string; onClose: () => void }) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.moderation.player.queryOptions({ projectId, playerId }));
  const d = detail.data;
  const name = d ? (d.player.displayName ?? d.player.id) : "Player";
  return (
    <Card
      title={`Reports about ${name}`}
      actions={
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      }
    >
      {detail.isPending ? (
        <State kind="loading">Loading the player's file…</State>
      ) : detail.error ? (
        <State kind="error">{messageOf(detail.error)}</State>
      ) : d ? (
        <div className="space-y-5" data-testid="moderation-detail">
          <dl className="grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
            <dt className="text-zinc-500">Player</dt>
            <dd>
              <Link className="underline" href={`/projects/${projectId}/players/${d.player.id}`}>
                {d.player.displayName ?? d.player.id}
              </Link>
            </dd>
            <dt className="text-zinc-500">Created / last seen</dt>
            <dd>
              <When value={d.player.createdAt} /> / <When value={d.player.lastSeenAt} />
            </dd>
            <dt className="text-zinc-500">Ban</dt>
            <dd data-testid="moderation-ban-state">
              {d.player.ban ? (
                <>
                  <Badge tone="red">banned</Badge> {d.player.ban.reason} (
                  {d.player.ban.until ? `until ${when(d.player.ban.until)}` : "until unbanned"})
                </>
              ) : (
                "not banned"
              )}
            </dd>
            <dt className="text-zinc-500">Last warning</dt>
            <dd>{d.warning ? `${d.warning.reason} (${when(d.warning.at)})` : "none"}</dd>
          </dl>
          <Reports reports={d.reports} />
          <Entries entries={d.entries} />
          <BanHistory history={d.banHistory} />
          <Actions projectId={projectId} detail={d} />
        </div>
      ) : null}
    </Card>
  );
}

function Reports({ reports }: { reports: Detail["reports"] }) {
  return (
    <div>
      <h3 className="mb-1 text-sm font-semibold">Reports</h3>
      <Table head={["Filed", "By", "Reason", "Note", "Status"]}>
        {reports.map((r) => (
          <tr key={r.id}>
            <td className="whitespace-nowrap px-2 py-1">
              <When value={r.updatedAt} />
            </td>
            <td className="px-2 py-1">{r.reporterName ?? <span className="font-mono text-xs">{r.reporterId.slice(0, 8)}…</span>}</td>
            <td className="px-2 py-1">{r.reason}</td>
            <td className="max-w-72 break-words px-2 py-1">{r.note ?? "—"}</td>
            <td className="px-2 py-1">{r.status === "open" ? "open" : `resolved: ${r.resolution?.replace("_", " ")}`}</td>
          </tr>
        ))}
      </Table>
    </div>
  );
}

function Entries({ entries }: { entries: Detail["entries"] }) {
  return (
    <div>
      <h3 className="mb-1 text-sm font-semibold">Recent scores</h3>
      {entries.length === 0 ? (
        <p className="text-sm text-zinc-500">No board entries.</p>
      ) : (
        <Table head={["Board", "Score", "Period", "Updated"]}>
          {entries.map((e) => (
            <tr key={`${e.leaderboardId}/${e.period}`}>
              <td className="px-2 py-1">{e.leaderboardName}</td>
              <td className="px-2 py-1 tabular-nums">{e.score.toLocaleString()}</td>
              <td className="px-2 py-1">{e.current ? "current" : e.period}</td>
              <td className="whitespace-nowrap px-2 py-1">
                <When value={e.updatedAt} />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </div>
  );
}

function BanHistory({ history }: { history: Detail["banHistory"] }) {
  return (
    <div>
      <h3 className="mb-1 text-sm font-semibold">Ban history</h3>
      {history.length === 0 ? (
        <p className="text-sm text-zinc-500">Never banned.</p>
      ) : (
        <ul className="text-sm">
          {history.map((h) => (
            <li key={`${h.action}-${h.at}`}>
              <When value={h.at} />:{" "}
              {h.action === "ban" ? `banned (${h.reason ?? "no reason"}${h.until ? `, until $<When value={h.until} />` : ""})` : "unbanned"}
              {h.by ? ` by ${h.by}` : ""}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Admins only: each action closes the player's open reports with its resolution and is recorded in the audit log. */
function Actions({ projectId, detail }: { projectId: string; detail: Detail }) {
  const { canEdit } = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ref = { projectId, playerId: detail.player.id };
  const done = async (message: string) => {
    toast.success(message);
    await queryClient.invalidateQueries({ queryKey: trpc.moderation.pathKey() });
  };
  const failed = (error: unknown) => {
    toast.error(messageOf(error));
    throw error;
  };
  const dismiss = useMutation(trpc.moderation.dismiss.mutationOptions());
  const warn = useMutation(trpc.moderation.warn.mutationOptions());
  const ban = useMutation(trpc.moderation.ban.mutationOptions());
  const remove = useMutation(trpc.moderation.removeEntries.mutationOptions());
  const [warning, setWarning] = useState("");
  const [warnProblem, setWarnProblem] = useState<string | null>(null);
  const warnId = useId();
  if (!canEdit) return <p className="text-sm text-zinc-500">Viewers read the queue; admins act on it.</p>;
  const open = detail.reports.filter((r) => r.status === "open").length;
  const current = detail.entries.filter((e) => e.current).length;
  return (
    <div className="space-y-4 rounded-md border border-zinc-200 p-3">
      <h3 className="text-sm font-semibold">Act ({open === 1 ? "closes 1 open report" : `closes ${open} open reports`})</h3>
      <div className="flex flex-wrap gap-2">
        <ConfirmDialog
          trigger={
            <Button variant="secondary">
              <XCircle className="mr-1 size-4" aria-hidden />
              Dismiss reports
            </Button>
          }
          tone="primary"
          title="Dismiss these reports?"
          description="Nothing happens to the player; their open reports are closed as dismissed."
          confirmLabel="Dismiss"
          onConfirm={() =>
            dismiss
              .mutateAsync(ref)
              .then(() => done("Reports dismissed."))
              .catch(failed)
          }
        />
        <ConfirmDialog
          trigger={
            <Button variant="secondary" disabled={current === 0}>
              <Eraser className="mr-1 size-4" aria-hidden />
              Remove entries
            </Button>
          }
          title="Remove this player's entries?"
          description={`Their entries in the current period of ${current === 1 ? "1 board" : `${current} boards`} are removed; the players behind move up.`}
          confirmLabel="Remove entries"
          onConfirm={() =>
            remove
              .mutateAsync(ref)
              .then(() => done("Entries removed."))
              .catch(failed)
          }
        />
      </div>
      <form
        className="flex flex-wrap items-end gap-2"
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          if (!warning.trim()) {
            setWarnProblem("Give the warning's text (the game may show it to the player).");
            return;
          }
          setWarnProblem(null);
          try {
            await warn.mutateAsync({ ...ref, reason: warning.trim() });
            setWarning("");
            await done("Warning written.");
          } catch (error) {
            setWarnProblem(messageOf(error));
          }
        }}
      >
        <div className="min-w-64 flex-1">
          <Label htmlFor={warnId}>Warning (written to the player's data as moderation.warning)</Label>
          <Input
            id={warnId}
            value={warning}
            maxLength={500}
            onChange={(e) => setWarning(e.target.value)}
            aria-invalid={warnProblem ? true : undefined}
            aria-describedby={warnProblem ? `${warnId}-error` : undefined}
          />
        </div>
        <Button type="submit" variant="secondary" disabled={warn.isPending}>
          <MessageSquareWarning className="mr-1 size-4" aria-hidden />
          Warn
        </Button>
      </form>
      {warnProblem && (
        <p id={`${warnId}-error`} role="alert" className="text-sm text-red-700">
          {warnProblem}
        </p>
      )}
      {!detail.player.ban && (
        <BanForm onBan={(b) => ban.mutateAsync({ ...ref, reason: b.reason, until: b.until }).then(() => done("Player banned."))} />
      )}
    </div>
  );
}
