"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Badge, Button, Card, Input, Label, Select, State, Table } from "@/components/ui/primitives";
import { messageOf } from "./errors";

type Role = "VIEWER" | "ADMIN" | "OWNER";
const when = (d: Date | string | null) => (d ? new Date(d).toLocaleString() : "—");

/** The operator's own access tokens for scripts and `npm run admin`: created with a scope, shown once, revocable. */
export function AccessTokens() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.tokens.list.queryOptions());
  const projects = useQuery(trpc.projects.list.queryOptions());
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("VIEWER");
  const [allProjects, setAllProjects] = useState(true);
  const [chosen, setChosen] = useState<string[]>([]);
  const [instanceAdmin, setInstanceAdmin] = useState(false);
  const [expiresInDays, setExpiresInDays] = useState("");
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.tokens.list.queryKey() });
  const create = useMutation(
    trpc.tokens.create.mutationOptions({
      onSuccess: async (created) => {
        setSecret(created.token);
        setName("");
        await refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.tokens.revoke.mutationOptions({ onSuccess: refresh }));
  const projectName = (id: string) => projects.data?.find((p) => p.id === id)?.name ?? id.slice(0, 8);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({
      name,
      role: instanceAdmin ? "OWNER" : role,
      projectIds: allProjects || instanceAdmin ? null : chosen,
      instanceAdmin,
      expiresInDays: expiresInDays ? Number(expiresInDays) : null,
    });
  };

  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Access tokens</h1>
      <p className="text-sm text-zinc-600">
        For scripts and the CLI (<code>npm run admin</code>): sent as <code>Authorization: Bearer gbo_…</code>. A token acts as you on its
        projects with at most its role (never more than your own); it cannot create tokens.
      </p>
      <Card title="New token">
        <form onSubmit={submit} className="space-y-3">
          <div className="grid gap-3 sm:grid-cols-3">
            <div>
              <Label htmlFor="token-name">Name</Label>
              <Input
                id="token-name"
                placeholder="CI deploy"
                value={name}
                onChange={(e) => setName(e.target.value)}
                required
                maxLength={100}
              />
            </div>
            <div>
              <Label htmlFor="token-role">Maximum role</Label>
              <Select
                id="token-role"
                value={role}
                disabled={instanceAdmin}
                onChange={(e) => setRole(e.target.value as Role)}
                className="w-full"
              >
                <option value="VIEWER">Viewer (read only)</option>
                <option value="ADMIN">Admin (change configuration, keys, players)</option>
                <option value="OWNER">Owner</option>
              </Select>
            </div>
            <div>
              <Label htmlFor="token-expiry">Expires after (days, empty: never)</Label>
              <Input
                id="token-expiry"
                type="number"
                min={1}
                max={3650}
                value={expiresInDays}
                onChange={(e) => setExpiresInDays(e.target.value)}
              />
            </div>
          </div>
          <fieldset className="space-y-1 text-sm">
            <legend className="font-medium">Projects</legend>
            <label className="flex items-center gap-2">
              <input
                type="checkbox"
                checked={allProjects || instanceAdmin}
                disabled={instanceAdmin}
                onChange={(e) => setAllProjects(e.target.checked)}
              />
              All my projects (also ones added later)
            </label>
            {!allProjects && !instanceAdmin && (
              <div className="ml-6 flex flex-col gap-1">
                {projects.isPending && <State kind="loading">Loading projects…</State>}
                {projects.data?.map((p) => (
                  <label key={p.id} className="flex items-center gap-2">
                    <input
                      type="checkbox"
                      checked={chosen.includes(p.id)}
                      onChange={(e) => setChosen(e.target.checked ? [...chosen, p.id] : chosen.filter((id) => id !== p.id))}
                    />
                    {p.name}
                  </label>
                ))}
              </div>
            )}
            <label className="flex items-center gap-2">
              <input type="checkbox" checked={instanceAdmin} onChange={(e) => setInstanceAdmin(e.target.checked)} />
              Instance-admin powers (plans; instance admins only; owner role on all projects)
            </label>
          </fieldset>
          <Button
            type="submit"
            disabled={create.isPending || name.trim() === "" || (!allProjects && !instanceAdmin && chosen.length === 0)}
          >
            Create token
          </Button>
          {create.error && (
            <p role="alert" className="text-sm text-red-700">
              {messageOf(create.error)}
            </p>
          )}
        </form>
        {secret && (
          <div className="mt-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm">
            <p className="mb-1 font-medium">Copy the token now: it is shown only once (we store a hash).</p>
            <div className="flex flex-col gap-2 sm:flex-row">
              <code data-testid="new-token" className="break-all rounded bg-white px-2 py-1">
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
      <Card title="Your tokens">
        {tokens.isPending ? (
          <State kind="loading">Loading tokens…</State>
        ) : tokens.error ? (
          <State kind="error">{messageOf(tokens.error)}</State>
        ) : tokens.data.length === 0 ? (
          <State kind="empty">No tokens yet.</State>
        ) : (
          <Table head={["Name", "Prefix", "Role", "Projects", "Created", "Last used", "Expires", "State", ""]}>
            {tokens.data.map((t) => (
              <tr key={t.id}>
                <td className="px-2 py-2">{t.name}</td>
                <td className="px-2 py-2 font-mono text-xs">{t.prefix}…</td>
                <td className="px-2 py-2">
                  {t.role.toLowerCase()}
                  {t.instanceAdmin && (
                    <span className="ml-1">
                      <Badge>instance admin</Badge>
                    </span>
                  )}
                </td>
                <td className="px-2 py-2">{t.allProjects ? "all" : t.projectIds.map(projectName).join(", ")}</td>
                <td className="px-2 py-2">{when(t.createdAt)}</td>
                <td className="px-2 py-2">{when(t.lastUsedAt)}</td>
                <td className="px-2 py-2">{when(t.expiresAt)}</td>
                <td className="px-2 py-2">{t.revokedAt ? <Badge tone="red">revoked</Badge> : <Badge tone="green">active</Badge>}</td>
                <td className="px-2 py-2 text-right">
                  {!t.revokedAt && (
                    <Button
                      variant="danger"
                      onClick={() => {
                        if (window.confirm(`Revoke "${t.name}"? Scripts using it stop working at once.`)) revoke.mutate({ tokenId: t.id });
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
