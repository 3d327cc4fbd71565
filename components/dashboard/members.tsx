"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Button, Card, Input, Select, State, Table } from "@/components/ui/primitives";
import { messageOf } from "./errors";

type Role = "OWNER" | "ADMIN" | "VIEWER";

export function Members({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const project = useQuery(trpc.projects.get.queryOptions({ projectId }));
  const members = useQuery(trpc.members.list.queryOptions({ projectId }));
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("VIEWER");
  const [link, setLink] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.members.list.queryKey({ projectId }) });
  const add = useMutation(
    trpc.members.add.mutationOptions({
      onSuccess: async (result) => {
        setEmail("");
        setLink(result.invitePath ? `${window.location.origin}${result.invitePath}` : null);
        await refresh();
      },
    }),
  );
  const setMemberRole = useMutation(trpc.members.setRole.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.members.remove.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.members.revokeInvite.mutationOptions({ onSuccess: refresh }));
  const isOwner = project.data?.role === "OWNER";
  const failure = add.error ?? setMemberRole.error ?? remove.error ?? revoke.error;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate({ projectId, email, role });
  };
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Members</h1>
      {isOwner && (
        <Card title="Add a member">
          <form onSubmit={submit} className="flex flex-col gap-2 sm:flex-row">
            <Input
              aria-label="Member e-mail"
              type="email"
              placeholder="teammate@studio.com"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              required
            />
            <Select aria-label="Member role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
              <option value="VIEWER">Viewer (read only)</option>
              <option value="ADMIN">Admin (all but members and deletion)</option>
              <option value="OWNER">Owner</option>
            </Select>
            <Button type="submit" disabled={add.isPending}>
              Add
            </Button>
          </form>
          {link && (
            <div className="mt-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm">
              <p className="mb-1 font-medium">No account has this e-mail: send them this one-time link (shown once, valid 7 days).</p>
              <code data-testid="invite-link" className="break-all">
                {link}
              </code>
            </div>
          )}
        </Card>
      )}
      {failure && (
        <p role="alert" className="text-sm text-red-700">
          {messageOf(failure)}
        </p>
      )}
      <Card title="Members">
        {members.isPending ? (
          <State kind="loading">Loading members…</State>
        ) : members.error ? (
          <State kind="error">{messageOf(members.error)}</State>
        ) : (
          <Table head={["E-mail", "Name", "Role", ""]}>
            {members.data.members.map((m) => (
              <tr key={m.operatorId}>
                <td className="px-2 py-2">{m.email}</td>
                <td className="px-2 py-2">{m.name}</td>
                <td className="px-2 py-2">
                  {isOwner ? (
                    <Select
                      aria-label={`Role of ${m.email}`}
                      value={m.role}
                      onChange={(e) => setMemberRole.mutate({ projectId, operatorId: m.operatorId, role: e.target.value as Role })}
                    >
                      <option value="VIEWER">viewer</option>
                      <option value="ADMIN">admin</option>
                      <option value="OWNER">owner</option>
                    </Select>
                  ) : (
                    m.role.toLowerCase()
                  )}
                </td>
                <td className="px-2 py-2 text-right">
                  {isOwner && (
                    <Button
                      variant="secondary"
                      onClick={() => {
                        if (window.confirm(`Remove ${m.email} from this project?`)) remove.mutate({ projectId, operatorId: m.operatorId });
                      }}
                    >
                      Remove
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
      {members.data && members.data.invites.length > 0 && (
        <Card title="Open invites">
          <Table head={["E-mail", "Role", "Expires", ""]}>
            {members.data.invites.map((i) => (
              <tr key={i.id}>
                <td className="px-2 py-2">{i.email}</td>
                <td className="px-2 py-2">{i.role.toLowerCase()}</td>
                <td className="px-2 py-2">{new Date(i.expiresAt).toLocaleString()}</td>
                <td className="px-2 py-2 text-right">
                  {isOwner && (
                    <Button variant="secondary" onClick={() => revoke.mutate({ projectId, inviteId: i.id })}>
                      Revoke
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        </Card>
      )}
    </div>
  );
}
