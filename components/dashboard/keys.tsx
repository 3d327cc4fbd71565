"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus, RotateCw } from "lucide-react";
import { useMemo, useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { toast } from "sonner";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Field, FieldError } from "@/components/ui/field";
import { OnceSecret } from "@/components/ui/once-secret";
import { Badge, Button, Card, Input, State } from "@/components/ui/primitives";
import { SelectMenu } from "@/components/ui/select";
import { ZCreateApiKey } from "@/server/services/projects/schemas";
import { applyServerError, messageOf } from "./errors";
import { plainly } from "./plain-issues";
import { useProject } from "./project-context";
import { When } from "./when";

type KeyRow = RouterOutputs["projects"]["keys"][number];
const KINDS = [
  { value: "CLIENT", label: "Client (ships in game builds)" },
  { value: "SERVER", label: "Server (secret, acts as any player)" },
] as const;
const col = columnsFor<KeyRow>();

export function ApiKeys({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.projects.keys.queryOptions({ projectId }));
  const [secret, setSecret] = useState<string | null>(null);
  const [rotatedSecret, setRotatedSecret] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.projects.keys.queryKey({ projectId }) });
  const create = useMutation(trpc.projects.createKey.mutationOptions());
  const { canEdit } = useProject();
  const form = useForm({ resolver: zodResolver(ZCreateApiKey, plainly), defaultValues: { kind: "CLIENT" as const, name: "" } });
  const errors = form.formState.errors;
  const submit = form.handleSubmit(async (values) => {
    try {
      const key = await create.mutateAsync({ projectId, ...values });
      setSecret(key.key);
      form.reset({ kind: values.kind, name: "" });
      toast.success(`Created the ${values.kind.toLowerCase()} key "${key.name}".`);
      await refresh();
    } catch (error) {
      applyServerError(error, form.setError, ["name", "kind"]);
    }
  });
  const columns = useMemo<DataTableColumns<KeyRow>>(
    () => [
      col.accessor("name", { header: "Name" }),
      col.accessor((k) => k.kind.toLowerCase(), { id: "kind", header: "Kind" }),
      col.accessor("prefix", {
        header: "Prefix",
        enableSorting: false,
        cell: (c) => <span className="font-mono text-xs">{c.getValue()}…</span>,
      }),
      col.accessor((k) => new Date(k.createdAt).getTime(), {
        id: "created",
        header: "Created",
        cell: (c) => <When value={c.row.original.createdAt} />,
      }),
      col.accessor((k) => (k.lastUsedAt ? new Date(k.lastUsedAt).getTime() : 0), {
        id: "lastUsed",
        header: "Last used",
        cell: (c) => <When value={c.row.original.lastUsedAt} />,
      }),
      col.accessor(stateOf, {
        id: "state",
        header: "State",
        cell: ({ row: { original: k } }) => <KeyState apiKey={k} />,
      }),
      col.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: ({ row: { original: k } }) =>
          canEdit && stateOf(k) !== "revoked" ? (
            <div className="flex flex-wrap gap-2">
              {stateOf(k) === "active" && <RotateKey projectId={projectId} apiKey={k} onRotated={setRotatedSecret} />}
              <RevokeKey projectId={projectId} apiKey={k} />
            </div>
          ) : null,
      }),
    ],
    [canEdit, projectId],
  );
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">API keys</h1>
      {canEdit && (
        <Card title="New key">
          <form
            onSubmit={submit}
            noValidate
            className="grid grid-cols-1 gap-3 sm:grid-cols-[minmax(0,16rem)_minmax(0,1fr)_auto] sm:items-end"
          >
            <Field label="Kind" htmlFor="key-kind" error={errors.kind}>
              <Controller
                control={form.control}
                name="kind"
                render={({ field }) => (
                  <SelectMenu
                    id="key-kind"
                    aria-label="Key kind"
                    className="w-full"
                    value={field.value}
                    onValueChange={field.onChange}
                    onBlur={field.onBlur}
                    options={KINDS}
                  />
                )}
              />
            </Field>
            <Field label="Name" htmlFor="key-name" error={errors.name}>
              <Input
                id="key-name"
                aria-label="Key name"
                placeholder="iOS build"
                aria-invalid={errors.name ? true : undefined}
                {...form.register("name")}
              />
            </Field>
            <Button type="submit" disabled={form.formState.isSubmitting} className="self-start sm:mt-6">
              <Plus className="mr-1 size-4" aria-hidden />
              Create key
            </Button>
          </form>
          <FieldError error={errors.root?.server} />
          {secret && <OnceSecret secret={secret} noun="key" testId="new-key" onDone={() => setSecret(null)} />}
        </Card>
      )}
      <Card title="Keys">
        {rotatedSecret && <OnceSecret secret={rotatedSecret} noun="key" testId="rotated-key" onDone={() => setRotatedSecret(null)} />}
        {keys.isPending ? (
          <State kind="loading">Loading keys…</State>
        ) : keys.error ? (
          <State kind="error">{messageOf(keys.error)}</State>
        ) : keys.data.length === 0 ? (
          <State kind="empty">
            No keys yet.{canEdit ? " Create one above: a client key for game builds, a server key for your servers." : ""}
          </State>
        ) : (
          <DataTable columns={columns} data={keys.data} getRowId={(k) => k.id} minWidth={720} />
        )}
      </Card>
    </div>
  );
}

/** revoked (or past its overlap), expiring (a rotated key in its overlap) or active. */
function stateOf(k: KeyRow): "revoked" | "expiring" | "active" {
  if (k.revokedAt || (k.expiresAt && new Date(k.expiresAt).getTime() <= Date.now())) return "revoked";
  return k.expiresAt ? "expiring" : "active";
}

function KeyState({ apiKey }: { apiKey: KeyRow }) {
  const state = stateOf(apiKey);
  if (state === "revoked") return <Badge tone="red">{apiKey.revokedAt ? "revoked" : "expired"}</Badge>;
  if (state === "expiring")
    return (
      <Badge tone="neutral">
        works until <When value={apiKey.expiresAt} />
      </Badge>
    );
  return <Badge tone="green">active</Badge>;
}

const ROTATION_OVERLAP_HOURS = 24;

/** Rotation with an overlap, like a webhook secret's: builds carrying the old key keep working while the new build ships. */
function RotateKey({ projectId, apiKey, onRotated }: { projectId: string; apiKey: KeyRow; onRotated: (key: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const rotate = useMutation(trpc.projects.rotateKey.mutationOptions());
  return (
    <ConfirmDialog
      trigger={
        <Button variant="secondary" aria-label={`Rotate ${apiKey.name} (${apiKey.prefix}…)`}>
          <RotateCw className="mr-1 size-4" aria-hidden />
          Rotate
        </Button>
      }
      title={`Rotate "${apiKey.name}"?`}
      description={
        <>
          <span className="block">
            A new {apiKey.kind.toLowerCase()} key named "{apiKey.name}" is made and shown once. The old key{" "}
            <span className="font-mono">{apiKey.prefix}…</span> keeps working for {ROTATION_OVERLAP_HOURS} hours, then stops.
          </span>
          <span className="mt-1 block">For another overlap (0–720 hours) use the CLI: npm run admin -- keys rotate.</span>
        </>
      }
      confirmLabel="Rotate key"
      onConfirm={async () => {
        try {
          const rotated = await rotate.mutateAsync({ projectId, keyId: apiKey.id, overlapHours: ROTATION_OVERLAP_HOURS });
          onRotated(rotated.key.key);
          toast.success(`Rotated "${apiKey.name}": copy the new key now.`);
          await queryClient.invalidateQueries({ queryKey: trpc.projects.keys.queryKey({ projectId }) });
        } catch (error) {
          toast.error(messageOf(error));
          throw error;
        }
      }}
    />
  );
}

function RevokeKey({ projectId, apiKey }: { projectId: string; apiKey: KeyRow }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const revoke = useMutation(trpc.projects.revokeKey.mutationOptions());
  return (
    <ConfirmDialog
      trigger={
        <Button variant="danger" aria-label={`Revoke ${apiKey.name} (${apiKey.prefix}…)`}>
          Revoke
        </Button>
      }
      title={`Revoke "${apiKey.name}"?`}
      description={
        <>
          {/* Names may repeat (a key being rotated keeps its name): the prefix and dates say which key this is. */}
          <span className="block" data-testid="revoke-key-identity">
            The {apiKey.kind.toLowerCase()} key <span className="font-mono">{apiKey.prefix}…</span>, created{" "}
            <When value={apiKey.createdAt} />, last used {apiKey.lastUsedAt ? <When value={apiKey.lastUsedAt} /> : "never"}.
          </span>
          <span className="mt-1 block">Games using this key stop working within 30 seconds. This cannot be undone.</span>
        </>
      }
      confirmLabel="Revoke key"
      onConfirm={async () => {
        try {
          await revoke.mutateAsync({ projectId, keyId: apiKey.id });
          toast.success(`Revoked "${apiKey.name}" (${apiKey.prefix}…).`);
          await queryClient.invalidateQueries({ queryKey: trpc.projects.keys.queryKey({ projectId }) });
        } catch (error) {
          toast.error(messageOf(error));
          throw error;
        }
      }}
    />
  );
}
