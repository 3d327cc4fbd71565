"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Trash2 } from "lucide-react";
import { useMemo } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Field, FieldError } from "@/components/ui/field";
import { Button, Card, Input, State } from "@/components/ui/primitives";
import { OIDC_ALGORITHMS, ZIdentityProviderInput } from "@/server/services/identity-providers/schemas";
import { applyServerError, messageOf } from "./errors";
import { plainly } from "./plain-issues";

type Provider = RouterOutputs["providers"]["list"][number];
type TextField = "id" | "issuer" | "jwksUrl" | "audience";
const FIELDS = ["id", "issuer", "jwksUrl", "audience", "algorithms"] as const;
const EMPTY = { id: "", issuer: "", jwksUrl: "", audience: "", algorithms: ["RS256", "ES256"] as Array<(typeof OIDC_ALGORITHMS)[number]> };
const col = columnsFor<Provider>();

export function IdentityProviders({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const project = useQuery(trpc.projects.get.queryOptions({ projectId }));
  const providers = useQuery(trpc.providers.list.queryOptions({ projectId }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.providers.list.queryKey({ projectId }) });
  const save = useMutation(trpc.providers.save.mutationOptions());
  const canEdit = Boolean(project.data && project.data.role !== "VIEWER");
  const form = useForm({ resolver: zodResolver(ZIdentityProviderInput, plainly), defaultValues: EMPTY });
  const errors = form.formState.errors;
  const submit = form.handleSubmit(async (provider) => {
    try {
      const saved = await save.mutateAsync({ projectId, provider });
      toast.success(`Saved provider ${saved.id}.`);
      form.reset(EMPTY);
      await refresh();
    } catch (error) {
      applyServerError(error, form.setError, FIELDS);
    }
  });
  const field = (name: TextField, label: string, placeholder: string) => (
    <Field label={label} htmlFor={`idp-${name}`} error={errors[name]}>
      <Input id={`idp-${name}`} placeholder={placeholder} aria-invalid={errors[name] ? true : undefined} {...form.register(name)} />
    </Field>
  );
  const columns = useMemo<DataTableColumns<Provider>>(
    () => [
      col.accessor("id", { header: "Id", cell: (c) => <span className="font-mono text-xs">{c.getValue()}</span> }),
      col.accessor("issuer", { header: "Issuer", cell: (c) => <span className="break-all">{c.getValue()}</span> }),
      col.accessor("audience", { header: "Audience", cell: (c) => <span className="break-all">{c.getValue()}</span> }),
      col.accessor((p) => p.algorithms.join(", "), { id: "algorithms", header: "Algorithms", enableSorting: false }),
      col.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: ({ row: { original: p } }) => (canEdit ? <RemoveProvider projectId={projectId} provider={p} /> : null),
      }),
    ],
    [canEdit, projectId],
  );
  const algorithms = form.watch("algorithms") ?? [];
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Identity providers</h1>
      <p className="text-sm text-zinc-600">
        Players sign in with an OpenID Connect ID token from these providers (<code>POST /api/v1/auth/idp</code>). Tokens are checked
        against the JWKS (https, public addresses only), the issuer, the audience and the allowed algorithms.
      </p>
      {canEdit && (
        <Card title="Add or update a provider">
          <form onSubmit={submit} noValidate className="grid grid-cols-1 gap-3 sm:grid-cols-2">
            {field("id", "Provider id", "google")}
            {field("issuer", "Issuer", "https://accounts.google.com")}
            {field("jwksUrl", "JWKS URL", "https://www.googleapis.com/oauth2/v3/certs")}
            {field("audience", "Audience (client id)", "1234.apps.googleusercontent.com")}
            <fieldset className="sm:col-span-2" aria-describedby={errors.algorithms ? "idp-algorithms-error" : undefined}>
              <legend className="mb-1 text-sm font-medium text-zinc-700">Allowed algorithms</legend>
              <div className="flex flex-wrap gap-x-4 gap-y-2 text-sm">
                {OIDC_ALGORITHMS.map((a) => (
                  <label key={a} className="flex items-center gap-1.5">
                    <input
                      type="checkbox"
                      className="size-4 accent-zinc-900"
                      checked={algorithms.includes(a)}
                      onChange={(e) =>
                        form.setValue("algorithms", e.target.checked ? [...algorithms, a] : algorithms.filter((x) => x !== a), {
                          shouldValidate: form.formState.isSubmitted,
                        })
                      }
                    />
                    {a}
                  </label>
                ))}
              </div>
              <FieldError id="idp-algorithms-error" error={errors.algorithms} />
            </fieldset>
            <div className="sm:col-span-2">
              <Button type="submit" disabled={form.formState.isSubmitting}>
                Save provider
              </Button>
            </div>
          </form>
          <FieldError error={errors.root?.server} />
        </Card>
      )}
      <Card title="Providers">
        {providers.isPending ? (
          <State kind="loading">Loading…</State>
        ) : providers.error ? (
          <State kind="error">{messageOf(providers.error)}</State>
        ) : providers.data.length === 0 ? (
          <State kind="empty">No identity providers: players sign in anonymously or with e-mail.</State>
        ) : (
          <DataTable columns={columns} data={providers.data} getRowId={(p) => p.id} minWidth={640} />
        )}
      </Card>
    </div>
  );
}

function RemoveProvider({ projectId, provider }: { projectId: string; provider: Provider }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.providers.delete.mutationOptions());
  return (
    <ConfirmDialog
      trigger={
        <Button variant="danger" aria-label={`Remove ${provider.id}`}>
          <Trash2 className="size-4" aria-hidden />
        </Button>
      }
      title={`Remove ${provider.id}?`}
      description="Its players cannot sign in with it until it is added again. Their linked identities stay."
      confirmLabel="Remove provider"
      onConfirm={async () => {
        try {
          await remove.mutateAsync({ projectId, id: provider.id });
          toast.success(`Removed ${provider.id}.`);
          await queryClient.invalidateQueries({ queryKey: trpc.providers.list.queryKey({ projectId }) });
        } catch (error) {
          toast.error(messageOf(error));
          throw error;
        }
      }}
    />
  );
}
