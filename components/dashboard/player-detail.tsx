"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Download, LogOut, Mail, MailCheck, ShieldCheck, Trash2 } from "lucide-react";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { toast } from "sonner";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Badge, Button, Card, State } from "@/components/ui/primitives";
import { BanForm } from "./ban-form";
import { DataEditor } from "./data-editor";
import { messageOf } from "./errors";
import { when } from "./format";
import { PlayerEconomy } from "./player-economy";
import { DisplayNameEditor, SaveViewer } from "./player-profile-edit";
import { PlayerStore } from "./player-store";
import { PlayerSupport } from "./player-support";
import { useProject } from "./project-context";
import { When } from "./when";

type Player = RouterOutputs["players"]["get"];
type DataRow = Player["data"][number];
type SaveRow = Player["saves"][number];
type SessionRow = Player["sessions"][number];

const mono = (value: string) => <span className="break-all font-mono text-xs">{value}</span>;

const dataCol = columnsFor<DataRow>();
const dataColumns = (edit: ((key: string) => void) | null): DataTableColumns<DataRow> => [
  dataCol.accessor("key", { header: "Key", cell: (c) => mono(c.getValue()) }),
  dataCol.accessor("visibility", { header: "Visibility" }),
  dataCol.accessor("version", { header: "Version" }),
  dataCol.accessor("sizeBytes", { header: "Bytes" }),
  dataCol.accessor("updatedAt", { header: "Updated", sortFn: "basic", cell: (c) => <When value={c.getValue()} /> }),
  ...(edit
    ? [
        dataCol.display({
          id: "actions",
          header: "",
          cell: ({ row: { original: d } }) => (
            <Button variant="secondary" onClick={() => edit(d.key)}>
              Edit {d.key}
            </Button>
          ),
        }),
      ]
    : []),
];

const saveCol = columnsFor<SaveRow>();
const saveColumns = (projectId: string, playerId: string): DataTableColumns<SaveRow> => [
  saveCol.accessor("key", { header: "Key", cell: (c) => mono(c.getValue()) }),
  saveCol.accessor("version", { header: "Version" }),
  saveCol.accessor("sizeBytes", { header: "Bytes" }),
  saveCol.accessor("updatedAt", { header: "Updated", sortFn: "basic", cell: (c) => <When value={c.getValue()} /> }),
  saveCol.display({
    id: "actions",
    header: "",
    cell: ({ row: { original: s } }) => <SaveViewer projectId={projectId} playerId={playerId} saveKey={s.key} />,
  }),
];

const sessionCol = columnsFor<SessionRow>();
const sessionColumns: DataTableColumns<SessionRow> = [
  sessionCol.accessor("id", { header: "Session", cell: (c) => mono(c.getValue()) }),
  sessionCol.accessor("createdAt", { header: "Started", sortFn: "basic", cell: (c) => <When value={c.getValue()} /> }),
  sessionCol.accessor("expiresAt", { header: "Expires", sortFn: "basic", cell: (c) => <When value={c.getValue()} /> }),
];

/** The export as a JSON file download (the audit log records who downloaded it). */
function download(doc: unknown, playerId: string): void {
  const url = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2)], { type: "application/json" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = `player-${playerId}-export.json`;
  link.click();
  URL.revokeObjectURL(url);
  toast.success("Export downloaded.");
}

export function PlayerDetail({ projectId, playerId }: { projectId: string; playerId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const player = useQuery(trpc.players.get.queryOptions({ projectId, playerId }));
  const [editing, setEditing] = useState<string | null>(null);
  const router = useRouter();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.players.get.queryKey({ projectId, playerId }) });
  const failed = (error: unknown) => toast.error(messageOf(error));
  const remove = useMutation(trpc.players.delete.mutationOptions({ onError: failed }));
  // A ban or unban adds a row to the ban history (the support read).
  const refreshAll = () =>
    Promise.all([refresh(), queryClient.invalidateQueries({ queryKey: trpc.support.player.queryKey({ projectId, playerId }) })]);
  const ban = useMutation(trpc.players.ban.mutationOptions({ onSuccess: refreshAll }));
  const unban = useMutation(
    trpc.players.unban.mutationOptions({
      onSuccess: async () => {
        toast.success("Player unbanned.");
        await refreshAll();
      },
      onError: failed,
    }),
  );
  const revoke = useMutation(trpc.players.revokeSessions.mutationOptions({ onError: failed }));
  const exported = useMutation(trpc.players.export.mutationOptions({ onSuccess: (doc) => download(doc, playerId), onError: failed }));
  const resetCode = useMutation(
    trpc.players.sendResetCode.mutationOptions({
      onSuccess: ({ sentTo }) => toast.success(`A reset code is on its way to ${sentTo}.`),
      onError: failed,
    }),
  );
  const verification = useMutation(
    trpc.players.resendVerification.mutationOptions({
      onSuccess: ({ sent }) => toast.success(sent ? "A new verification code is on its way." : "Nothing sent: the address is verified."),
      onError: failed,
    }),
  );
  const { canEdit } = useProject();
  const keyColumns = useMemo(() => dataColumns(canEdit ? setEditing : null), [canEdit]);
  const savesColumns = useMemo(() => saveColumns(projectId, playerId), [projectId, playerId]);

  if (player.isPending) return <State kind="loading">Loading the player…</State>;
  if (player.error) return <State kind="error">{messageOf(player.error)}</State>;
  const p = player.data;
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold">{p.displayName ?? "Unnamed player"}</h1>
        {p.banned ? <Badge tone="red">banned{p.banReason ? `: ${p.banReason}` : ""}</Badge> : <Badge tone="green">active</Badge>}
        {canEdit && <DisplayNameEditor projectId={projectId} playerId={playerId} current={p.displayName} onSaved={refresh} />}
      </div>
      <Card title="Profile">
        <dl className="grid grid-cols-1 gap-2 text-sm sm:grid-cols-2">
          <div>
            <dt className="text-zinc-500">Player id</dt>
            <dd className="font-mono text-xs" data-testid="player-id">
              {p.id}
            </dd>
          </div>
          <div>
            <dt className="text-zinc-500">E-mail</dt>
            <dd data-testid="player-email">
              {p.email ?? "—"}
              {p.email && (
                <span className="ml-2">{p.emailVerified ? <Badge tone="green">verified</Badge> : <Badge>not verified</Badge>}</span>
              )}
            </dd>
          </div>
          <div>
            <dt className="text-zinc-500">Created</dt>
            <dd>
              <When value={p.createdAt} />
            </dd>
          </div>
          <div>
            <dt className="text-zinc-500">Linked identities</dt>
            <dd>{p.identities.length ? p.identities.map((i) => `${i.provider}: ${i.subject}`).join(", ") : "—"}</dd>
          </div>
        </dl>
      </Card>
      <PlayerSupport projectId={projectId} playerId={playerId} canEdit={Boolean(canEdit)} />
      {canEdit && (
        <Card title="Actions">
          {p.banned ? (
            <p className="mb-3 text-sm text-zinc-600">Banned{p.bannedUntil ? ` until ${when(p.bannedUntil)}` : " until unbanned"}.</p>
          ) : (
            <BanForm
              onBan={async (b) => {
                await ban.mutateAsync({ projectId, playerId, ...b });
                toast.success("Player banned; their sessions ended.");
              }}
            />
          )}
          <div className="mt-3 flex flex-col gap-2 border-t border-zinc-100 pt-3 sm:flex-row">
            {p.banned && (
              <Button disabled={unban.isPending} onClick={() => unban.mutate({ projectId, playerId })}>
                <ShieldCheck className="mr-1 size-4" aria-hidden />
                Unban
              </Button>
            )}
            {p.email && (
              <Button variant="secondary" disabled={resetCode.isPending} onClick={() => resetCode.mutate({ projectId, playerId })}>
                <Mail className="mr-1 size-4" aria-hidden />
                Send reset code
              </Button>
            )}
            {p.email && !p.emailVerified && (
              <Button variant="secondary" disabled={verification.isPending} onClick={() => verification.mutate({ projectId, playerId })}>
                <MailCheck className="mr-1 size-4" aria-hidden />
                Resend verification
              </Button>
            )}
            <Button variant="secondary" disabled={exported.isPending} onClick={() => exported.mutate({ projectId, playerId })}>
              <Download className="mr-1 size-4" aria-hidden />
              Download export
            </Button>
            <ConfirmDialog
              trigger={
                <Button variant="secondary">
                  <LogOut className="mr-1 size-4" aria-hidden />
                  Revoke sessions
                </Button>
              }
              title="Revoke this player's sessions?"
              description="Every refresh token ends now; the game must sign the player in again."
              confirmLabel="Revoke sessions"
              onConfirm={async () => {
                const { revoked } = await revoke.mutateAsync({ projectId, playerId });
                toast.success(`${revoked} session${revoked === 1 ? "" : "s"} revoked.`);
                await refresh();
              }}
            />
          </div>
        </Card>
      )}
      <Card title="Data keys">
        {p.data.length === 0 ? (
          <State kind="empty">No data keys.</State>
        ) : (
          <DataTable columns={keyColumns} data={p.data} getRowId={(d) => d.key} caption="Data keys" />
        )}
        {editing && (
          <DataEditor key={editing} projectId={projectId} playerId={playerId} dataKey={editing} onDone={() => setEditing(null)} />
        )}
      </Card>
      <PlayerEconomy projectId={projectId} playerId={playerId} canEdit={Boolean(canEdit)} />
      <PlayerStore projectId={projectId} playerId={playerId} />
      <Card title="Cloud saves">
        {p.saves.length === 0 ? (
          <State kind="empty">No saves.</State>
        ) : (
          <DataTable columns={savesColumns} data={p.saves} getRowId={(d) => d.key} caption="Cloud saves" minWidth={560} />
        )}
      </Card>
      <Card title="Active sessions">
        {p.sessions.length === 0 ? (
          <State kind="empty">No active sessions.</State>
        ) : (
          <DataTable columns={sessionColumns} data={p.sessions} getRowId={(d) => d.id} caption="Active sessions" minWidth={640} />
        )}
      </Card>
      {canEdit && (
        <Card title="Delete this player">
          <p className="mb-3 text-sm text-zinc-600">
            Deletes the player and everything they own: sessions, data, saves, identities, leaderboard entries, balances, inventory and
            ledger. This cannot be undone.
          </p>
          <ConfirmDialog
            trigger={
              <Button variant="danger">
                <Trash2 className="mr-1 size-4" aria-hidden />
                Delete player
              </Button>
            }
            title="Delete this player and everything they own?"
            description={`${p.displayName ?? p.id}: sessions, data, saves, identities, leaderboard entries, balances, inventory and ledger. Type delete to confirm.`}
            typed="delete"
            typedLabel="Type delete to confirm"
            confirmLabel="Delete player"
            onConfirm={async () => {
              await remove.mutateAsync({ projectId, playerId, confirm: "delete" });
              toast.success("Player deleted.");
              router.push(`/projects/${projectId}/players`);
            }}
          />
        </Card>
      )}
    </div>
  );
}
