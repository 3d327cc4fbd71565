"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Badge, Button, Card, Input, Select, State, Table } from "@/components/ui/primitives";
import { messageOf } from "./errors";

const when = (d: Date | string | null) => (d ? new Date(d).toLocaleString() : "—");

export function ApiKeys({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const project = useQuery(trpc.projects.get.queryOptions({ projectId }));
  const keys = useQuery(trpc.projects.keys.queryOptions({ projectId }));
  const [name, setName] = useState("");
  const [kind, setKind] = useState<"CLIENT" | "SERVER">("CLIENT");
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.projects.keys.queryKey({ projectId }) });
  const create = useMutation(
    trpc.projects.createKey.mutationOptions({
      onSuccess: async (key) => {
        setSecret(key.key);
        setName("");
        await refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.projects.revokeKey.mutationOptions({ onSuccess: refresh }));
  const canEdit = project.data && project.data.role !== "VIEWER";
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ projectId, kind, name });
  };
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">API keys</h1>
      {canEdit && (
        <Card title="New key">
          <form onSubmit={submit} className="flex flex-col gap-2 sm:flex-row">
            <Select aria-label="Key kind" value={kind} onChange={(e) => setKind(e.target.value as "CLIENT" | "SERVER")}>
              <option value="CLIENT">Client (ships in game builds)</option>
              <option value="SERVER">Server (secret, acts as any player)</option>
            </Select>
            <Input
              aria-label="Key name"
              placeholder="iOS build"
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              maxLength={100}
            />
            <Button type="submit" disabled={create.isPending || name.trim() === ""}>
              Create key
            </Button>
          </form>
          {create.error && (
            <p role="alert" className="mt-2 text-sm text-red-700">
              {messageOf(create.error)}
            </p>
          )}
          {secret && (
            <div className="mt-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm">
              <p className="mb-1 font-medium">Copy the key now: it is shown only once (we store a hash).</p>
              <div className="flex flex-col gap-2 sm:flex-row">
                <code data-testid="new-key" className="break-all rounded bg-white px-2 py-1">
                  {secret}
                </code>
                <Button variant="secondary" onClick={() => navigator.clipboard?.writeText(secret)}>
                  Copy
                </Button>
                <Button variant="secondary" onClick={() => setSecret(null)}>
                  Done
                </Button>
              </div>
            </div>
          )}
        </Card>
      )}
      <Card title="Keys">
        {keys.isPending ? (
          <State kind="loading">Loading keys…</State>
        ) : keys.error ? (
          <State kind="error">{messageOf(keys.error)}</State>
        ) : keys.data.length === 0 ? (
          <State kind="empty">No keys yet.</State>
        ) : (
          <Table head={["Name", "Kind", "Prefix", "Created", "Last used", "State", ""]}>
            {keys.data.map((k) => (
              <tr key={k.id}>
                <td className="px-2 py-2">{k.name}</td>
                <td className="px-2 py-2">{k.kind.toLowerCase()}</td>
                <td className="px-2 py-2 font-mono text-xs">{k.prefix}…</td>
                <td className="px-2 py-2">{when(k.createdAt)}</td>
                <td className="px-2 py-2">{when(k.lastUsedAt)}</td>
                <td className="px-2 py-2">{k.revokedAt ? <Badge tone="red">revoked</Badge> : <Badge tone="green">active</Badge>}</td>
                <td className="px-2 py-2 text-right">
                  {canEdit && !k.revokedAt && (
                    <Button
                      variant="danger"
                      onClick={() => {
                        if (window.confirm(`Revoke "${k.name}"? Games using it stop working within 30 seconds.`))
                          revoke.mutate({ projectId, keyId: k.id });
                      }}
                    >
                      Revoke
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
    </div>
  );
}
