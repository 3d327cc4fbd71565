"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Badge, Button, Card, State } from "@/components/ui/primitives";
import type { ProjectCreators } from "@/server/services/projects/schemas";
import { messageOf } from "./errors";

type OperatorRow = RouterOutputs["operators"]["list"][number];
const col = columnsFor<OperatorRow>();

/**
 * Instance admins: every operator of the installation; disabling or removing one ends their
 * sessions and tokens at once. Name and badges sit under the e-mail, so the table is three
 * columns and stacks into cards on a phone.
 */
export function Operators({ selfId, creators }: { selfId: string; creators: ProjectCreators }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const operators = useQuery(trpc.operators.list.queryOptions());
  const setDisabled = useMutation(trpc.operators.setDisabled.mutationOptions());
  const setCanCreate = useMutation(trpc.operators.setCanCreateProjects.mutationOptions());
  const remove = useMutation(trpc.operators.remove.mutationOptions());
  /** Runs one change: a toast either way, the list read again after success; a refusal is rethrown (a confirm dialog stays open on it). */
  const act = async (run: () => Promise<unknown>, done: string) => {
    try {
      await run();
      toast.success(done);
      await queryClient.invalidateQueries({ queryKey: trpc.operators.list.queryKey() });
    } catch (error) {
      toast.error(messageOf(error));
      throw error;
    }
  };
  const removeOperator = (operatorId: string) => act(() => remove.mutateAsync({ operatorId }), "Operator removed.");
  const allowProjects = (operatorId: string, allowed: boolean) =>
    act(
      () => setCanCreate.mutateAsync({ operatorId, allowed }),
      allowed ? "They may create projects now." : "They may no longer create projects.",
    ).catch(() => undefined);
  const toggle = (operatorId: string, disabled: boolean) =>
    act(() => setDisabled.mutateAsync({ operatorId, disabled }), disabled ? "Operator disabled." : "Operator enabled.");
  const columns: DataTableColumns<OperatorRow> = [
    col.accessor("email", {
      header: "Operator",
      cell: ({ row: { original: o } }) => (
        <div className="min-w-0">
          <div className="break-all">{o.email}</div>
          <div className="text-xs text-zinc-600">{o.name}</div>
          {(o.isInstanceAdmin || o.disabled) && (
            <div className="mt-1 flex flex-wrap gap-1">
              {o.isInstanceAdmin && <Badge>instance admin</Badge>}
              {o.disabled && <Badge tone="red">disabled</Badge>}
            </div>
          )}
        </div>
      ),
    }),
    col.accessor("canCreateProjects", {
      header: "Creates projects",
      enableSorting: false,
      cell: ({ row: { original: o } }) =>
        o.isInstanceAdmin ? (
          "always"
        ) : creators === "everyone" ? (
          "yes (every operator on this instance)"
        ) : creators === "admins" ? (
          "no (instance admins only on this instance)"
        ) : (
          <label className="inline-flex items-center gap-2">
            <input
              type="checkbox"
              checked={o.canCreateProjects}
              onChange={(e) => allowProjects(o.id, e.target.checked)}
              aria-label={`${o.email} may create projects`}
            />
            {o.canCreateProjects ? "allowed" : "no"}
          </label>
        ),
    }),
    col.display({
      id: "actions",
      header: () => <span className="sr-only">Actions</span>,
      cell: ({ row: { original: o } }) =>
        o.id === selfId ? null : (
          <div className="flex flex-wrap justify-end gap-2">
            <ConfirmDialog
              trigger={
                <Button variant="secondary" aria-label={`Remove ${o.email}`}>
                  Remove
                </Button>
              }
              title={`Remove ${o.email}?`}
              description="They leave every project, their access tokens are deleted and they are signed out at once. The audit log keeps what they did. Refused while they are a project's only owner."
              confirmLabel="Remove operator"
              onConfirm={() => removeOperator(o.id)}
            />
            {o.disabled ? (
              <Button variant="secondary" onClick={() => toggle(o.id, false).catch(() => undefined)}>
                Enable
              </Button>
            ) : (
              <ConfirmDialog
                trigger={
                  <Button variant="danger" aria-label={`Disable ${o.email}`}>
                    Disable
                  </Button>
                }
                title={`Disable ${o.email}?`}
                description="They are signed out everywhere at once, their access tokens stop working, and they cannot sign in until enabled again."
                confirmLabel="Disable operator"
                onConfirm={() => toggle(o.id, true)}
              />
            )}
          </div>
        ),
    }),
  ];
  return (
    <div className="space-y-6">
      <h1 className="text-xl font-semibold">Operators</h1>
      <Card>
        {operators.isPending ? (
          <State kind="loading">Loading operators…</State>
        ) : operators.isError ? (
          <State kind="error">{messageOf(operators.error)}</State>
        ) : (
          <DataTable columns={columns} data={operators.data} getRowId={(o) => o.id} rowTestId="operator-row" minWidth={560} />
        )}
      </Card>
    </div>
  );
}
