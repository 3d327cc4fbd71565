"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { LogOut, ShieldCheck, Trash2 } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { Badge, Button, Card, State, Table } from "@/components/ui/primitives";
import { BanForm } from "./ban-form";
import { DataEditor } from "./data-editor";
import { messageOf } from "./errors";
import { PlayerEconomy } from "./player-economy";

export function PlayerDetail({ projectId, playerId }: { projectId: string; playerId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const project = useQuery(trpc.projects.get.queryOptions({ projectId }));
  const player = useQuery(trpc.players.get.queryOptions({ projectId, playerId }));
  const [editing, setEditing] = useState<string | null>(null);
  const router = useRouter();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.players.get.queryKey({ projectId, playerId }) });
  const failed = (error: unknown) => toast.error(messageOf(error));
  const remove = useMutation(trpc.players.delete.mutationOptions({ onError: failed }));
  const ban = useMutation(trpc.players.ban.mutationOptions({ onSuccess: refresh }));
  const unban = useMutation(
    trpc.players.unban.mutationOptions({
      onSuccess: async () => {
        toast.success("Player unbanned.");
        await refresh();
      },
      onError: failed,
    }),
  );
  const revoke = useMutation(trpc.players.revokeSessions.mutationOptions({ onError: failed }));
  const canEdit = project.data && project.data.role !== "VIEWER";

  if (player.isPending) return <State kind="loading">Loading the player…</State>;
  if (player.error) return <State kind="error">{messageOf(player.error)}</State>;
  const p = player.data;
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold">{p.displayName ?? "Unnamed player"}</h1>
        {p.banned ? <Badge tone="red">banned{p.banReason ? `: ${p.banReason}` : ""}</Badge> : <Badge tone="green">active</Badge>}
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
            <dd>{p.email ?? "—"}</dd>
          </div>
          <div>
            <dt className="text-zinc-500">Created</dt>
            <dd>{new Date(p.createdAt).toLocaleString()}</dd>
          </div>
          <div>
            <dt className="text-zinc-500">Linked identities</dt>
            <dd>{p.identities.length ? p.identities.map((i) => `${i.provider}: ${i.subject}`).join(", ") : "—"}</dd>
          </div>
        </dl>
      </Card>
      {canEdit && (
        <Card title="Actions">
          {p.banned ? (
            <p className="mb-3 text-sm text-zinc-600">
              Banned{p.bannedUntil ? ` until ${new Date(p.bannedUntil).toLocaleString()}` : " until unbanned"}.
            </p>
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
          <Table head={["Key", "Visibility", "Version", "Bytes", "Updated", ""]}>
            {p.data.map((d) => (
              <tr key={d.key}>
                <td className="px-2 py-2 font-mono text-xs">{d.key}</td>
                <td className="px-2 py-2">{d.visibility}</td>
                <td className="px-2 py-2">{d.version}</td>
                <td className="px-2 py-2">{d.sizeBytes}</td>
                <td className="px-2 py-2">{new Date(d.updatedAt).toLocaleString()}</td>
                <td className="px-2 py-2 text-right">
                  {canEdit && (
                    <Button variant="secondary" onClick={() => setEditing(d.key)}>
                      Edit {d.key}
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
        {editing && (
          <DataEditor key={editing} projectId={projectId} playerId={playerId} dataKey={editing} onDone={() => setEditing(null)} />
        )}
      </Card>
      <PlayerEconomy projectId={projectId} playerId={playerId} canEdit={Boolean(canEdit)} />
      <Card title="Cloud saves">
        {p.saves.length === 0 ? (
          <State kind="empty">No saves.</State>
        ) : (
          <Table head={["Key", "Version", "Bytes", "Updated"]}>
            {p.saves.map((s) => (
              <tr key={s.key}>
                <td className="px-2 py-2 font-mono text-xs">{s.key}</td>
                <td className="px-2 py-2">{s.version}</td>
                <td className="px-2 py-2">{s.sizeBytes}</td>
                <td className="px-2 py-2">{new Date(s.updatedAt).toLocaleString()}</td>
              </tr>
            ))}
          </Table>
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
      <Card title="Active sessions">
        {p.sessions.length === 0 ? (
          <State kind="empty">No active sessions.</State>
        ) : (
          <Table head={["Session", "Started", "Expires"]}>
            {p.sessions.map((s) => (
              <tr key={s.id}>
                <td className="px-2 py-2 font-mono text-xs">{s.id}</td>
                <td className="px-2 py-2">{new Date(s.createdAt).toLocaleString()}</td>
                <td className="px-2 py-2">{new Date(s.expiresAt).toLocaleString()}</td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
    </div>
  );
}
