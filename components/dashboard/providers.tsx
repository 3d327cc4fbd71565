"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Button, Card, Input, Label, State, Table } from "@/components/ui/primitives";
import { messageOf } from "./errors";

const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"] as const;
type Algorithm = (typeof ALGORITHMS)[number];

export function IdentityProviders({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const project = useQuery(trpc.projects.get.queryOptions({ projectId }));
  const providers = useQuery(trpc.providers.list.queryOptions({ projectId }));
  const empty = { id: "", issuer: "", jwksUrl: "", audience: "", algorithms: ["RS256", "ES256"] as Algorithm[] };
  const [form, setForm] = useState(empty);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.providers.list.queryKey({ projectId }) });
  const save = useMutation(
    trpc.providers.save.mutationOptions({
      onSuccess: async () => {
        setForm(empty);
        await refresh();
      },
    }),
  );
  const remove = useMutation(trpc.providers.delete.mutationOptions({ onSuccess: refresh }));
  const canEdit = project.data && project.data.role !== "VIEWER";
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ projectId, provider: form });
  };
  const field = (name: "id" | "issuer" | "jwksUrl" | "audience", label: string, placeholder: string) => (
    <div>
      <Label htmlFor={`idp-${name}`}>{label}</Label>
      <Input
        id={`idp-${name}`}
        placeholder={placeholder}
        value={form[name]}
        onChange={(e) => setForm({ ...form, [name]: e.target.value })}
        required
      />
    </div>
  );
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Identity providers</h1>
      <p className="text-sm text-zinc-600">
        Players sign in with an OpenID Connect ID token from these providers (<code>POST /api/v1/auth/idp</code>). Tokens are checked
        against the JWKS (https, public addresses only), the issuer, the audience and the allowed algorithms.
      </p>
      {canEdit && (
        <Card title="Add or update a provider">
          <form onSubmit={submit} className="grid grid-cols-1 gap-3 sm:grid-cols-2">
            {field("id", "Provider id", "google")}
            {field("issuer", "Issuer", "https://accounts.google.com")}
            {field("jwksUrl", "JWKS URL", "https://www.googleapis.com/oauth2/v3/certs")}
            {field("audience", "Audience (client id)", "1234.apps.googleusercontent.com")}
            <fieldset className="sm:col-span-2">
              <legend className="mb-1 text-sm font-medium text-zinc-700">Allowed algorithms</legend>
              <div className="flex flex-wrap gap-3 text-sm">
                {ALGORITHMS.map((a) => (
                  <label key={a} className="flex items-center gap-1">
                    <input
                      type="checkbox"
                      checked={form.algorithms.includes(a)}
                      onChange={(e) =>
                        setForm({
                          ...form,
                          algorithms: e.target.checked ? [...form.algorithms, a] : form.algorithms.filter((x) => x !== a),
                        })
                      }
                    />
                    {a}
                  </label>
                ))}
              </div>
            </fieldset>
            <div className="sm:col-span-2">
              <Button type="submit" disabled={save.isPending}>
                Save provider
              </Button>
            </div>
          </form>
          {save.error && (
            <p role="alert" className="mt-2 text-sm text-red-700">
              {messageOf(save.error)}
            </p>
          )}
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
          <Table head={["Id", "Issuer", "Audience", "Algorithms", ""]}>
            {providers.data.map((p) => (
              <tr key={p.id}>
                <td className="px-2 py-2 font-mono text-xs">{p.id}</td>
                <td className="px-2 py-2">{p.issuer}</td>
                <td className="px-2 py-2">{p.audience}</td>
                <td className="px-2 py-2 text-xs">{p.algorithms.join(", ")}</td>
                <td className="px-2 py-2 text-right">
                  {canEdit && (
                    <Button
                      variant="danger"
                      onClick={() => {
                        if (window.confirm(`Remove ${p.id}? Its players cannot sign in with it until it is added again.`))
                          remove.mutate({ projectId, id: p.id });
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
    </div>
  );
}
