"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Badge, Button, Card, Input, State, Table } from "@/components/ui/primitives";
import { DataEditor } from "./data-editor";
import { messageOf } from "./errors";
import { PlayerEconomy } from "./player-economy";

export function PlayerDetail({ projectId, playerId }: { projectId: string; playerId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const project = useQuery(trpc.projects.get.queryOptions({ projectId }));
  const player = useQuery(trpc.players.get.queryOptions({ projectId, playerId }));
  const [reason, setReason] = useState("");
  const [until, setUntil] = useState("");
  const [editing, setEditing] = useState<string | null>(null);
  const [confirm, setConfirm] = useState("");
  const router = useRouter();
  const remove = useMutation(trpc.players.delete.mutationOptions({ onSuccess: () => router.push(`/projects/${projectId}/players`) }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.players.get.queryKey({ projectId, playerId }) });
  const ban = useMutation(trpc.players.ban.mutationOptions({ onSuccess: refresh }));
  const unban = useMutation(trpc.players.unban.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.players.revokeSessions.mutationOptions({ onSuccess: refresh }));
  const canEdit = project.data && project.data.role !== "VIEWER";
  const failure = ban.error ?? unban.error ?? revoke.error ?? remove.error;

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
          <div className="flex flex-col gap-2 sm:flex-row">
            {p.banned ? (
              <Button onClick={() => unban.mutate({ projectId, playerId })}>Unban</Button>
            ) : (
              <>
                <Input
                  aria-label="Ban reason"
                  placeholder="Reason (shown to the player)"
                  value={reason}
                  onChange={(e) => setReason(e.target.value)}
                />
                <Input
                  aria-label="Ban ends (empty: until unbanned)"
                  type="datetime-local"
                  value={until}
                  onChange={(e) => setUntil(e.target.value)}
                />
                <Button
                  variant="danger"
                  disabled={reason.trim() === ""}
                  onClick={() => {
                    if (window.confirm("Ban this player? Their sessions end now."))
                      ban.mutate({ projectId, playerId, reason, until: until ? new Date(until).toISOString() : null });
                  }}
                >
                  Ban
                </Button>
              </>
            )}
            <Button variant="secondary" onClick={() => revoke.mutate({ projectId, playerId })}>
              Revoke sessions
            </Button>
          </div>
          {failure && (
            <p role="alert" className="mt-2 text-sm text-red-700">
              {messageOf(failure)}
            </p>
          )}
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
          <p className="mb-2 text-sm text-zinc-600">
            Deletes the player and everything they own: sessions, data, saves, identities, leaderboard entries, balances, inventory and
            ledger. Type <strong>delete</strong> to confirm.
          </p>
          <div className="flex flex-col gap-2 sm:flex-row">
            <Input aria-label="Type delete to confirm" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
            <Button
              variant="danger"
              disabled={confirm !== "delete" || remove.isPending}
              onClick={() => remove.mutate({ projectId, playerId, confirm: "delete" })}
            >
              Delete player
            </Button>
          </div>
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
