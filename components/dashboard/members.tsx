"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { MoreHorizontal, UserPlus } from "lucide-react";
import { useMemo, useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { toast } from "sonner";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuRadioGroup,
  DropdownMenuRadioItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "@/components/ui/dropdown-menu";
import { Field, FieldError } from "@/components/ui/field";
import { OnceSecret } from "@/components/ui/once-secret";
import { Button, Card, Input, State } from "@/components/ui/primitives";
import { SelectMenu } from "@/components/ui/select";
import { ZAddMember } from "@/server/services/members/schemas";
import { applyServerError, messageOf } from "./errors";
import { plainly } from "./plain-issues";
import { useProject } from "./project-context";
import { When } from "./when";

type Role = "OWNER" | "ADMIN" | "VIEWER";
type Member = RouterOutputs["members"]["list"]["members"][number];
type Invite = RouterOutputs["members"]["list"]["invites"][number];
const ROLES = [
  { value: "VIEWER", label: "Viewer (read only)" },
  { value: "ADMIN", label: "Admin (all but members and deletion)" },
  { value: "OWNER", label: "Owner" },
] as const;
const memberCol = columnsFor<Member>();
const inviteCol = columnsFor<Invite>();

export function Members({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const members = useQuery(trpc.members.list.queryOptions({ projectId }));
  const [invite, setInvite] = useState<{ link: string; email: string; emailed: boolean } | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.members.list.queryKey({ projectId }) });
  const add = useMutation(trpc.members.add.mutationOptions());
  const failed = (error: unknown) => toast.error(messageOf(error));
  const remove = useMutation(trpc.members.remove.mutationOptions());
  const { isOwner } = useProject();
  const form = useForm({ resolver: zodResolver(ZAddMember, plainly), defaultValues: { email: "", role: "VIEWER" as Role } });
  const errors = form.formState.errors;
  const submit = form.handleSubmit(async (values) => {
    try {
      const result = await add.mutateAsync({ projectId, ...values });
      const email = values.email.trim();
      setInvite(result.invitePath ? { link: `${window.location.origin}${result.invitePath}`, email, emailed: result.emailed } : null);
      toast.success(
        !result.invitePath ? `${email} added.` : result.emailed ? `Invite e-mailed to ${email}.` : `Invite link for ${email} created.`,
      );
      form.reset({ email: "", role: values.role });
      await refresh();
    } catch (error) {
      applyServerError(error, form.setError, ["email", "role"], { ALREADY_EXISTS: "email" });
    }
  });

  const memberColumns = useMemo<DataTableColumns<Member>>(
    () => [
      memberCol.accessor("email", { header: "E-mail" }),
      memberCol.accessor("name", { header: "Name" }),
      memberCol.accessor((m) => m.role.toLowerCase(), { id: "role", header: "Role" }),
      memberCol.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: ({ row: { original: m } }) => (isOwner ? <MemberActions projectId={projectId} member={m} onRemove={setRemoving} /> : null),
      }),
    ],
    [isOwner, projectId],
  );
  const inviteColumns = useMemo<DataTableColumns<Invite>>(
    () => [
      inviteCol.accessor("email", { header: "E-mail" }),
      inviteCol.accessor((i) => i.role.toLowerCase(), { id: "role", header: "Role" }),
      inviteCol.accessor((i) => new Date(i.expiresAt).getTime(), {
        id: "expires",
        header: "Expires",
        cell: (c) => <When value={c.row.original.expiresAt} />,
      }),
      inviteCol.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: ({ row: { original: i } }) => (isOwner ? <RevokeInvite projectId={projectId} invite={i} /> : null),
      }),
    ],
    [isOwner, projectId],
  );

  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Members</h1>
      {isOwner && (
        <Card title="Add a member">
          <form onSubmit={submit} noValidate className="grid grid-cols-1 gap-3 sm:grid-cols-[minmax(0,1fr)_minmax(0,18rem)_auto]">
            <Field label="E-mail" htmlFor="member-email" error={errors.email}>
              <Input
                id="member-email"
                aria-label="Member e-mail"
                type="email"
                placeholder="teammate@studio.com"
                aria-invalid={errors.email ? true : undefined}
                {...form.register("email")}
              />
            </Field>
            <Field label="Role" htmlFor="member-role" error={errors.role}>
              <Controller
                control={form.control}
                name="role"
                render={({ field }) => (
                  <SelectMenu
                    id="member-role"
                    aria-label="Member role"
                    className="w-full"
                    value={field.value}
                    onValueChange={field.onChange}
                    onBlur={field.onBlur}
                    options={ROLES}
                  />
                )}
              />
            </Field>
            <Button type="submit" disabled={form.formState.isSubmitting} className="self-start sm:mt-6">
              <UserPlus className="mr-1 size-4" aria-hidden />
              Add
            </Button>
          </form>
          <FieldError error={errors.root?.server} />
          {invite && (
            <>
              <p className="mt-3 text-sm" data-testid="invite-sent">
                {invite.emailed
                  ? `We e-mailed an invite to ${invite.email}. The one-time link (valid 7 days) is also here if you want to send it yourself.`
                  : `No account has this e-mail. This instance has no mail server (SMTP_URL), so no invite was e-mailed: send ${invite.email} this one-time link (valid 7 days) yourself.`}
              </p>
              <OnceSecret
                secret={invite.link}
                noun="invite link"
                testId="invite-link"
                stored="we store a hash"
                onDone={() => setInvite(null)}
              />
            </>
          )}
        </Card>
      )}
      <Card title="Members">
        {members.isPending ? (
          <State kind="loading">Loading members…</State>
        ) : members.error ? (
          <State kind="error">{messageOf(members.error)}</State>
        ) : (
          <DataTable columns={memberColumns} data={members.data.members} getRowId={(m) => m.operatorId} minWidth={520} />
        )}
      </Card>
      {members.data && members.data.invites.length > 0 && (
        <Card title="Open invites">
          <DataTable columns={inviteColumns} data={members.data.invites} getRowId={(i) => i.id} minWidth={520} />
        </Card>
      )}
      <ConfirmDialog
        open={removing !== null}
        onOpenChange={(open) => !open && setRemoving(null)}
        title={`Remove ${removing?.email ?? ""} from this project?`}
        description="They lose access to this project now. Their account stays."
        confirmLabel="Remove member"
        onConfirm={async () => {
          const m = removing;
          if (!m) return;
          try {
            await remove.mutateAsync({ projectId, operatorId: m.operatorId });
            toast.success(`${m.email} removed.`);
            await refresh();
          } catch (error) {
            failed(error);
            throw error;
          }
        }}
      />
    </div>
  );
}

function MemberActions({ projectId, member, onRemove }: { projectId: string; member: Member; onRemove: (m: Member) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const setRole = useMutation(
    trpc.members.setRole.mutationOptions({
      onSuccess: async (_, v) => {
        toast.success(`${member.email} is now ${v.role.toLowerCase()}.`);
        await queryClient.invalidateQueries({ queryKey: trpc.members.list.queryKey({ projectId }) });
      },
      onError: (error) => toast.error(messageOf(error)),
    }),
  );
  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button variant="secondary" aria-label={`Actions for ${member.email}`} className="px-2">
          <MoreHorizontal className="size-4" aria-hidden />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent>
        <DropdownMenuLabel>Role</DropdownMenuLabel>
        <DropdownMenuRadioGroup
          value={member.role}
          onValueChange={(role) => {
            if (role !== member.role) setRole.mutate({ projectId, operatorId: member.operatorId, role: role as Role });
          }}
        >
          <DropdownMenuRadioItem value="VIEWER">Viewer</DropdownMenuRadioItem>
          <DropdownMenuRadioItem value="ADMIN">Admin</DropdownMenuRadioItem>
          <DropdownMenuRadioItem value="OWNER">Owner</DropdownMenuRadioItem>
        </DropdownMenuRadioGroup>
        <DropdownMenuSeparator />
        <DropdownMenuItem tone="danger" onSelect={() => onRemove(member)}>
          Remove from project…
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}

function RevokeInvite({ projectId, invite }: { projectId: string; invite: Invite }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const revoke = useMutation(trpc.members.revokeInvite.mutationOptions());
  return (
    <ConfirmDialog
      trigger={<Button variant="secondary">Revoke</Button>}
      title={`Revoke the invite for ${invite.email}?`}
      description="The link stops working now. You can invite them again later."
      confirmLabel="Revoke invite"
      onConfirm={async () => {
        try {
          await revoke.mutateAsync({ projectId, inviteId: invite.id });
          toast.success(`Invite for ${invite.email} revoked.`);
          await queryClient.invalidateQueries({ queryKey: trpc.members.list.queryKey({ projectId }) });
        } catch (error) {
          toast.error(messageOf(error));
          throw error;
        }
      }}
    />
  );
}
