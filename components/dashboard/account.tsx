"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { signOut } from "next-auth/react";
import { type FormEvent, useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { Field } from "@/components/ui/field";
import { Badge, Button, Card, Input, State, Table } from "@/components/ui/primitives";
import { messageOf } from "./errors";
import { PASSWORD_RULES } from "./password-rules";
import { When } from "./when";

/**
 * The operator's own account: where they are signed in (end one session, or all of them), their
 * password (changing it ends the other sessions) and what was done with the account outside
 * projects (tokens, sessions, password, disabled by an admin).
 */
export function Account() {
  return (
    <div className="space-y-6">
      <h1 className="text-xl font-semibold">Account</h1>
      <Sessions />
      <ChangePassword />
      <Activity />
    </div>
  );
}

function Sessions() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const sessions = useQuery(trpc.account.sessions.queryOptions());
  const revoke = useMutation(trpc.account.revokeSession.mutationOptions());
  const everywhere = useMutation(trpc.account.signOutEverywhere.mutationOptions());
  return (
    <Card
      title="Where you are signed in"
      actions={
        <ConfirmDialog
          trigger={<Button variant="danger">Sign out everywhere</Button>}
          title="Sign out everywhere?"
          description="Every session of yours ends at once, this one included; copies of their cookies stop working too. Every access token of yours is revoked as well: scripts and the admin CLI need new ones."
          confirmLabel="Sign out everywhere"
          onConfirm={async () => {
            await everywhere.mutateAsync();
            await signOut({ callbackUrl: "/login" });
          }}
        />
      }
    >
      {sessions.isPending ? (
        <State kind="loading">Loading sessions…</State>
      ) : sessions.isError ? (
        <State kind="error">{messageOf(sessions.error)}</State>
      ) : (
        <Table
          head={[
            "Signed in",
            "Last used",
            "Browser",
            "Address",
            <span key="actions" className="sr-only">
              Actions
            </span>,
          ]}
        >
          {sessions.data.map((s) => (
            <tr key={s.id} data-testid="session-row">
              <td className="px-2 py-2">
                <When value={s.createdAt} /> {s.current && <Badge tone="green">this session</Badge>}
              </td>
              <td className="px-2 py-2">
                <When value={s.lastSeenAt} />
              </td>
              <td className="max-w-xs truncate px-2 py-2">{s.userAgent ?? "—"}</td>
              <td className="px-2 py-2 font-mono text-xs">{s.ip ?? "—"}</td>
              <td className="px-2 py-2 text-right">
                {!s.current && (
                  <Button
                    variant="secondary"
                    onClick={async () => {
                      try {
                        await revoke.mutateAsync({ sessionId: s.id });
                        toast.success("Session ended.");
                        await queryClient.invalidateQueries({ queryKey: trpc.account.sessions.queryKey() });
                      } catch (error) {
                        toast.error(messageOf(error));
                      }
                    }}
                  >
                    End
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </Card>
  );
}

function ChangePassword() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const change = useMutation(trpc.account.changePassword.mutationOptions());
  const [currentPassword, setCurrent] = useState("");
  const [newPassword, setNew] = useState("");
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const { endedSessions, revokedTokens } = await change.mutateAsync({ currentPassword, newPassword });
      setCurrent("");
      setNew("");
      toast.success(
        `Password changed${endedSessions ? `; ${endedSessions} other session(s) ended` : ""}${revokedTokens ? `; ${revokedTokens} access token(s) revoked` : ""}.`,
      );
      await queryClient.invalidateQueries({ queryKey: trpc.account.sessions.queryKey() });
    } catch (e) {
      setError(messageOf(e));
    }
  };
  return (
    <Card title="Password">
      <form onSubmit={submit} className="grid max-w-md gap-3">
        <Field label="Current password" htmlFor="current-password">
          <Input
            id="current-password"
            type="password"
            autoComplete="current-password"
            value={currentPassword}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </Field>
        <Field
          label="New password"
          htmlFor="new-password"
          hint={`${PASSWORD_RULES} Your other sessions end when it changes.`}
          error={error ? { message: error } : undefined}
        >
          <Input
            id="new-password"
            type="password"
            autoComplete="new-password"
            value={newPassword}
            onChange={(e) => setNew(e.target.value)}
          />
        </Field>
        <div>
          <Button type="submit" disabled={change.isPending || !currentPassword || !newPassword}>
            {change.isPending ? "Changing…" : "Change password"}
          </Button>
        </div>
      </form>
    </Card>
  );
}

function Activity() {
  const trpc = useTRPC();
  const activity = useQuery(trpc.account.activity.queryOptions());
  return (
    <Card title="Account activity">
      {activity.isPending ? (
        <State kind="loading">Loading…</State>
      ) : activity.isError ? (
        <State kind="error">{messageOf(activity.error)}</State>
      ) : activity.data.length === 0 ? (
        <State kind="empty">Nothing yet: tokens, sessions ended and password changes show here.</State>
      ) : (
        <Table head={["When", "Action", "Target", "By"]}>
          {activity.data.map((e) => (
            <tr key={e.id} data-testid="activity-row">
              <td className="px-2 py-2">
                <When value={e.createdAt} />
              </td>
              <td className="px-2 py-2 font-mono text-xs">{e.action}</td>
              <td className="px-2 py-2 font-mono text-xs">{e.target ?? "—"}</td>
              <td className="px-2 py-2">{e.tokenName ? `token ${e.tokenName}` : (e.operatorEmail ?? "—")}</td>
            </tr>
          ))}
        </Table>
      )}
    </Card>
  );
}
