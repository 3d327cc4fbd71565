"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Ban, Plus } from "lucide-react";
import { useMemo, useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Field, FieldError } from "@/components/ui/field";
import { OnceSecret } from "@/components/ui/once-secret";
import { Badge, Button, Card, Input, State } from "@/components/ui/primitives";
import { SelectMenu } from "@/components/ui/select";
import { TOKEN_ROLES, ZCreateOperatorToken } from "@/server/services/operator-token-schemas";
import { applyServerError, messageOf } from "./errors";
import { checkedWith } from "./form-schema";
import { plainly } from "./plain-issues";
import { When } from "./when";

type TokenRow = RouterOutputs["tokens"]["list"][number];
type Role = (typeof TOKEN_ROLES)[number];
const ROLES = [
  { value: "VIEWER", label: "Viewer (read only)" },
  { value: "ADMIN", label: "Admin (change configuration, keys, players)" },
  { value: "OWNER", label: "Owner" },
] as const satisfies ReadonlyArray<{ value: Role; label: string }>;

/** What the inputs hold; checked and turned into the router's input by the shared schema. */
type TokenFields = {
  name: string;
  role: Role;
  expiresInDays: string;
  allProjects: boolean;
  projectIds: string[];
  instanceAdmin: boolean;
};
const ZTokenFields = z.object({
  name: z.string(),
  role: z.enum(TOKEN_ROLES),
  expiresInDays: z.string(),
  allProjects: z.boolean(),
  projectIds: z.array(z.string()),
  instanceAdmin: z.boolean(),
});
const ZTokenForm = checkedWith(
  ZTokenFields,
  (f) => ({
    name: f.name,
    role: f.instanceAdmin ? "OWNER" : f.role,
    projectIds: f.allProjects || f.instanceAdmin ? null : f.projectIds,
    instanceAdmin: f.instanceAdmin,
    expiresInDays: f.expiresInDays.trim() === "" ? null : Number(f.expiresInDays),
  }),
  ZCreateOperatorToken,
  {
    check: (f) => [
      ...(f.expiresInDays.trim() !== "" && !Number.isFinite(Number(f.expiresInDays))
        ? [{ path: ["expiresInDays"], message: "A number of days, or empty for never." }]
        : []),
      ...(!f.allProjects && !f.instanceAdmin && f.projectIds.length === 0
        ? [{ path: ["projectIds"], message: "Pick at least one project, or all of them." }]
        : []),
    ],
  },
);
const TOKEN_FIELDS = ["name", "role", "expiresInDays", "projectIds"] as const;
const DEFAULTS: TokenFields = { name: "", role: "VIEWER", expiresInDays: "", allProjects: true, projectIds: [], instanceAdmin: false };
const col = columnsFor<TokenRow>();

/** The operator's own access tokens for scripts and `npm run admin`: created with a scope, shown once, revocable. */
export function AccessTokens() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.tokens.list.queryOptions());
  const projects = useQuery(trpc.projects.list.queryOptions());
  const [secret, setSecret] = useState<string | null>(null);
  const create = useMutation(trpc.tokens.create.mutationOptions());
  const form = useForm<TokenFields, unknown, z.output<typeof ZTokenForm>>({
    resolver: zodResolver(ZTokenForm, plainly) as never,
    defaultValues: DEFAULTS,
  });
  const errors = form.formState.errors;
  const [allProjects, instanceAdmin] = form.watch(["allProjects", "instanceAdmin"]);
  const submit = form.handleSubmit(async (values) => {
    try {
      const created = await create.mutateAsync(values);
      setSecret(created.token);
      form.reset({ ...form.getValues(), name: "" });
      toast.success(`Created the token "${created.name}".`);
      await queryClient.invalidateQueries({ queryKey: trpc.tokens.list.queryKey() });
    } catch (error) {
      applyServerError(error, form.setError, TOKEN_FIELDS);
    }
  });
  const projectNames = useMemo(() => new Map(projects.data?.map((p) => [p.id, p.name])), [projects.data]);
  const columns = useMemo<DataTableColumns<TokenRow>>(
    () => [
      col.accessor("name", { header: "Name", cell: (c) => <span className="break-all">{c.getValue()}</span> }),
      col.accessor("prefix", {
        header: "Prefix",
        enableSorting: false,
        cell: (c) => <span className="font-mono text-xs">{c.getValue()}…</span>,
      }),
      col.accessor((t) => t.role.toLowerCase(), {
        id: "role",
        header: "Role",
        cell: (c) => (
          <span className="inline-flex flex-wrap items-center gap-1">
            {c.getValue()}
            {c.row.original.instanceAdmin && <Badge>instance admin</Badge>}
          </span>
        ),
      }),
      col.accessor((t) => (t.allProjects ? "all" : t.projectIds.map((id) => projectNames.get(id) ?? id.slice(0, 8)).join(", ")), {
        id: "projects",
        header: "Projects",
        enableSorting: false,
      }),
      col.accessor((t) => new Date(t.createdAt).getTime(), {
        id: "created",
        header: "Created",
        cell: (c) => <When value={c.row.original.createdAt} />,
      }),
      col.accessor((t) => (t.lastUsedAt ? new Date(t.lastUsedAt).getTime() : 0), {
        id: "lastUsed",
        header: "Last used",
        cell: (c) => <When value={c.row.original.lastUsedAt} />,
      }),
      col.accessor((t) => (t.expiresAt ? new Date(t.expiresAt).getTime() : Number.MAX_SAFE_INTEGER), {
        id: "expires",
        header: "Expires",
        cell: (c) => <When value={c.row.original.expiresAt} />,
      }),
      col.accessor((t) => stateOf(t), {
        id: "state",
        header: "State",
        cell: (c) => <Badge tone={c.getValue() === "active" ? "green" : "red"}>{c.getValue()}</Badge>,
      }),
      col.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: ({ row: { original: t } }) => (t.revokedAt ? null : <RevokeToken token={t} />),
      }),
    ],
    [projectNames],
  );

  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Access tokens</h1>
      <p className="text-sm text-zinc-600">
        For scripts and the CLI (<code>npm run admin</code>): sent as <code>Authorization: Bearer gbo_…</code>. A token acts as you on its
        projects with at most its role (never more than your own); it cannot create tokens.
      </p>
      <Card title="New token">
        <form onSubmit={submit} noValidate className="space-y-3">
          <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
            <Field label="Name" htmlFor="token-name" error={errors.name}>
              <Input
                id="token-name"
                placeholder="CI deploy"
                maxLength={100}
                aria-invalid={errors.name ? true : undefined}
                aria-describedby={errors.name ? "token-name-error" : undefined}
                {...form.register("name")}
              />
            </Field>
            <Field
              label="Maximum role"
              htmlFor="token-role"
              error={errors.role}
              hint={instanceAdmin ? "Owner: instance-admin tokens." : undefined}
            >
              <Controller
                control={form.control}
                name="role"
                render={({ field }) => (
                  <SelectMenu
                    id="token-role"
                    className="w-full"
                    value={instanceAdmin ? "OWNER" : field.value}
                    disabled={instanceAdmin}
                    onValueChange={field.onChange}
                    onBlur={field.onBlur}
                    options={ROLES}
                  />
                )}
              />
            </Field>
            <Field label="Expires after (days)" htmlFor="token-expiry" error={errors.expiresInDays} hint="Empty: never.">
              <Input
                id="token-expiry"
                type="number"
                inputMode="numeric"
                min={1}
                max={3650}
                placeholder="never"
                aria-invalid={errors.expiresInDays ? true : undefined}
                aria-describedby={errors.expiresInDays ? "token-expiry-error" : undefined}
                {...form.register("expiresInDays")}
              />
            </Field>
          </div>
          <fieldset className="space-y-1 text-sm">
            <legend className="mb-1 font-medium text-zinc-700">Projects</legend>
            <Controller
              control={form.control}
              name="allProjects"
              render={({ field }) => (
                <label className="flex items-center gap-2">
                  <input
                    type="checkbox"
                    disabled={instanceAdmin}
                    checked={field.value || instanceAdmin}
                    onChange={(e) => field.onChange(e.target.checked)}
                    onBlur={field.onBlur}
                  />
                  All my projects (also ones added later)
                </label>
              )}
            />
            {!allProjects && !instanceAdmin && (
              <div className="ml-6 flex flex-col gap-1">
                {projects.isPending && <State kind="loading">Loading projects…</State>}
                {projects.error && <State kind="error">{messageOf(projects.error)}</State>}
                <Controller
                  control={form.control}
                  name="projectIds"
                  render={({ field }) => (
                    <>
                      {projects.data?.map((p) => (
                        <label key={p.id} className="flex items-center gap-2">
                          <input
                            type="checkbox"
                            checked={field.value.includes(p.id)}
                            onChange={(e) =>
                              field.onChange(e.target.checked ? [...field.value, p.id] : field.value.filter((id) => id !== p.id))
                            }
                          />
                          {p.name}
                          <span className="text-xs text-zinc-600">
                            created <When value={p.createdAt} />
                          </span>
                        </label>
                      ))}
                    </>
                  )}
                />
                <FieldError error={errors.projectIds} />
              </div>
            )}
            <label className="flex items-center gap-2">
              <input type="checkbox" {...form.register("instanceAdmin")} />
              Instance-admin powers (plans; instance admins only; owner role on all projects)
            </label>
          </fieldset>
          <Button type="submit" disabled={form.formState.isSubmitting}>
            <Plus className="mr-1 size-4" aria-hidden />
            Create token
          </Button>
          <FieldError error={errors.root?.server} />
        </form>
        {secret && <OnceSecret secret={secret} noun="token" testId="new-token" onDone={() => setSecret(null)} />}
      </Card>
      <Card title="Your tokens">
        {tokens.isPending ? (
          <State kind="loading">Loading tokens…</State>
        ) : tokens.error ? (
          <State kind="error">{messageOf(tokens.error)}</State>
        ) : tokens.data.length === 0 ? (
          <State kind="empty">No tokens yet. Create one above for a script or the CLI.</State>
        ) : (
          <DataTable columns={columns} data={tokens.data} getRowId={(t) => t.id} rowTestId="token-row" minWidth={960} />
        )}
      </Card>
    </div>
  );
}

const stateOf = (t: TokenRow) =>
  t.revokedAt ? "revoked" : t.expiresAt && new Date(t.expiresAt).getTime() <= Date.now() ? "expired" : "active";

function RevokeToken({ token }: { token: TokenRow }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const revoke = useMutation(trpc.tokens.revoke.mutationOptions());
  return (
    <ConfirmDialog
      trigger={
        <Button variant="danger" aria-label={`Revoke ${token.name}`}>
          <Ban className="mr-1 size-4" aria-hidden />
          Revoke
        </Button>
      }
      title={`Revoke "${token.name}"?`}
      description="Scripts using this token stop working at once. This cannot be undone."
      confirmLabel="Revoke token"
      onConfirm={async () => {
        try {
          await revoke.mutateAsync({ tokenId: token.id });
          toast.success(`Revoked "${token.name}".`);
          await queryClient.invalidateQueries({ queryKey: trpc.tokens.list.queryKey() });
        } catch (error) {
          toast.error(messageOf(error));
          throw error;
        }
      }}
    />
  );
}
