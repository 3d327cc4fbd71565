"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { type ChangeEvent, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Badge, Button, Card, State, Table } from "@/components/ui/primitives";
import type { ConfigDocument } from "@/server/services/config/schemas";
import type { AppRouter } from "@/server/trpc/router";
import { messageOf } from "./errors";

type ImportPlan = inferRouterOutputs<AppRouter>["config"]["dryRun"];

const KIND_LABELS: Record<string, string> = {
  currencies: "Currency",
  items: "Item",
  purchases: "Purchase",
  leaderboards: "Leaderboard",
  identityProviders: "Identity provider",
};
const short = (value: unknown) => {
  const text = JSON.stringify(value);
  return text === undefined ? "—" : text.length > 80 ? `${text.slice(0, 77)}…` : text;
};

/** One row per created, changed or deleted definition; a change lists each field before → after. */
function DiffTable({ plan }: { plan: ImportPlan }) {
  const rows = Object.entries(plan.diff).flatMap(([kind, diff]) => [
    ...diff.created.map((c) => ({ kind, id: c.id, action: "create", detail: short(c.after) })),
    ...diff.changed.map((c) => ({
      kind,
      id: c.id,
      action: "change",
      detail: c.fields.map((f) => `${f.field}: ${short(f.before)} → ${short(f.after)}`).join("; "),
    })),
    ...diff.deleted.map((d) => ({ kind, id: d.id, action: "delete", detail: short(d.before) })),
  ]);
  const refusalOf = (kind: string, id: string) => plan.refusals.filter((r) => r.kind === kind && r.id === id);
  if (rows.length === 0) return <State kind="empty">No changes: the project already has this configuration.</State>;
  return (
    <Table head={["Kind", "Id", "Change", "Details", "Refused"]}>
      {rows.map((r) => (
        <tr key={`${r.kind}:${r.id}:${r.action}`} data-testid="diff-row">
          <td className="px-2 py-2">{KIND_LABELS[r.kind] ?? r.kind}</td>
          <td className="px-2 py-2 font-mono text-xs">{r.id}</td>
          <td className="px-2 py-2">
            <Badge tone={r.action === "create" ? "green" : r.action === "delete" ? "red" : "neutral"}>{r.action}</Badge>
          </td>
          <td className="max-w-md px-2 py-2 font-mono text-xs break-all">{r.detail}</td>
          <td className="px-2 py-2 text-sm text-red-700">
            {refusalOf(r.kind, r.id)
              .map((x) => `${x.code}: ${x.message}`)
              .join(" ")}
          </td>
        </tr>
      ))}
    </Table>
  );
}

export function ProjectConfig({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const project = useQuery(trpc.projects.get.queryOptions({ projectId }));
  const exported = useQuery(trpc.config.export.queryOptions({ projectId }));
  const [text, setText] = useState("");
  const [parseError, setParseError] = useState<string | null>(null);
  const [reviewed, setReviewed] = useState<{ plan: ImportPlan; document: ConfigDocument } | null>(null);
  const [applied, setApplied] = useState<number | null>(null);
  const dryRun = useMutation(trpc.config.dryRun.mutationOptions());
  const apply = useMutation(
    trpc.config.import.mutationOptions({
      onSuccess: async (plan) => {
        setApplied(plan.changes);
        setReviewed(null);
        await queryClient.invalidateQueries({ queryKey: trpc.config.export.queryKey({ projectId }) });
      },
    }),
  );
  const canImport = project.data && project.data.role !== "VIEWER";
  const json = exported.data ? `${JSON.stringify(exported.data, null, 2)}\n` : "";

  const download = () => {
    const url = URL.createObjectURL(new Blob([json], { type: "application/json" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = `${(project.data?.name ?? "project").replace(/[^a-z0-9_-]+/gi, "-")}.config.json`;
    link.click();
    URL.revokeObjectURL(url);
  };
  const upload = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (file) setText(await file.text());
  };
  const review = () => {
    setApplied(null);
    setReviewed(null);
    let document: ConfigDocument;
    try {
      document = JSON.parse(text) as ConfigDocument;
      setParseError(null);
    } catch (error) {
      setParseError(`Not JSON: ${(error as Error).message}`);
      return;
    }
    dryRun.mutate({ projectId, document }, { onSuccess: (plan) => setReviewed({ plan, document }) });
  };
  const confirmApply = () => {
    if (!reviewed) return;
    if (!window.confirm(`Apply ${reviewed.plan.changes} change(s) to this project? Deletions remove definitions for good.`)) return;
    apply.mutate({ projectId, document: reviewed.document, expectDiffHash: reviewed.plan.diffHash });
  };

  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Configuration</h1>
      <p className="text-sm text-zinc-600">
        Leaderboards, currencies, items, purchases and identity providers as one JSON document (schema:{" "}
        <a className="underline" href="/api/config-schema.json">
          /api/config-schema.json
        </a>
        ). Importing makes the project match the document: what it lacks is deleted.
      </p>
      <Card
        title="Export"
        actions={
          exported.data && (
            <div className="flex gap-2">
              <Button variant="secondary" onClick={() => navigator.clipboard?.writeText(json)}>
                Copy
              </Button>
              <Button onClick={download}>Download</Button>
            </div>
          )
        }
      >
        {exported.isPending ? (
          <State kind="loading">Loading configuration…</State>
        ) : exported.error ? (
          <State kind="error">{messageOf(exported.error)}</State>
        ) : (
          <pre data-testid="config-export" className="max-h-96 overflow-auto rounded bg-zinc-50 p-3 text-xs">
            {json}
          </pre>
        )}
      </Card>
      {canImport && (
        <Card title="Import">
          <div className="space-y-3">
            <textarea
              aria-label="Configuration document"
              className="h-48 w-full rounded-md border border-zinc-300 p-2 font-mono text-xs"
              placeholder='{"version": 1, "leaderboards": [], ...}'
              value={text}
              onChange={(e) => {
                setText(e.target.value);
                setReviewed(null);
              }}
            />
            <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
              <input
                aria-label="Upload a configuration file"
                type="file"
                accept="application/json,.json"
                onChange={upload}
                className="text-sm"
              />
              <Button onClick={review} disabled={text.trim() === "" || dryRun.isPending}>
                {dryRun.isPending ? "Computing…" : "Dry run"}
              </Button>
            </div>
            {(parseError || dryRun.error) && (
              <p role="alert" className="text-sm text-red-700">
                {parseError ?? messageOf(dryRun.error)}
              </p>
            )}
            {applied !== null && (
              <p role="status" className="text-sm text-green-700">
                Applied {applied} change(s).
              </p>
            )}
          </div>
        </Card>
      )}
      {reviewed && (
        <Card
          title={`Diff: ${reviewed.plan.changes} change(s)${reviewed.plan.refusals.length ? `, ${reviewed.plan.refusals.length} refused` : ""}`}
          actions={
            <Button
              variant="danger"
              onClick={confirmApply}
              disabled={apply.isPending || reviewed.plan.changes === 0 || reviewed.plan.refusals.length > 0}
            >
              {apply.isPending ? "Applying…" : "Apply"}
            </Button>
          }
        >
          {reviewed.plan.refusals.length > 0 && (
            <p role="alert" className="mb-3 text-sm text-red-700">
              Nothing can be applied while changes are refused; fix the document and run the dry run again.
            </p>
          )}
          {apply.error && (
            <p role="alert" className="mb-3 text-sm text-red-700">
              {messageOf(apply.error)}
            </p>
          )}
          <DiffTable plan={reviewed.plan} />
        </Card>
      )}
    </div>
  );
}
