"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Check, Copy, Download, FileSearch, Maximize2, Minimize2, Upload } from "lucide-react";
import { type ChangeEvent, useId, useMemo, useState } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Field, FieldError } from "@/components/ui/field";
import { Badge, Button, Card, ScrollRegion, State } from "@/components/ui/primitives";
import { ZConfigDocumentText } from "@/server/services/config/document-text";
import type { ConfigDocument } from "@/server/services/config/schemas";
import { applyServerError, messageOf } from "./errors";
import { plural } from "./format";
import { plainly } from "./plain-issues";
import { useProject } from "./project-context";

type ImportPlan = RouterOutputs["config"]["dryRun"];
type Action = "create" | "change" | "delete";
type DiffRow = { kind: string; id: string; action: Action; detail: string; refused: string };

const KIND_LABELS: Record<string, string> = {
  currencies: "Currency",
  items: "Item",
  purchases: "Purchase",
  storeProducts: "Store product",
  leaderboards: "Leaderboard",
  identityProviders: "Identity provider",
  webhooks: "Webhook endpoint",
  reportReasons: "Report reason",
};
const SHORT = 80;
/** A value as JSON, cut to SHORT characters unless `full`. */
const textOf = (value: unknown, full: boolean) => {
  const text = JSON.stringify(value);
  return text === undefined ? "—" : !full && text.length > SHORT ? `${text.slice(0, SHORT - 3)}…` : text;
};

/** One row per created, changed or deleted definition; a change lists each field before → after (values cut unless `full`). */
function rowsOf(plan: ImportPlan, full: boolean): DiffRow[] {
  const short = (value: unknown) => textOf(value, full);
  const refused = (kind: string, id: string) =>
    plan.refusals
      .filter((r) => r.kind === kind && r.id === id)
      .map((x) => `${x.code}: ${x.message}`)
      .join(" ");
  return Object.entries(plan.diff).flatMap(([kind, diff]) => [
    ...diff.created.map((c) => ({ kind, id: c.id, action: "create" as const, detail: short(c.after), refused: refused(kind, c.id) })),
    ...diff.changed.map((c) => ({
      kind,
      id: c.id,
      action: "change" as const,
      detail: c.fields.map((f) => `${f.field}: ${short(f.before)} → ${short(f.after)}`).join("; "),
      refused: refused(kind, c.id),
    })),
    ...diff.deleted.map((d) => ({ kind, id: d.id, action: "delete" as const, detail: short(d.before), refused: refused(kind, d.id) })),
  ]);
}

/** How many definitions the plan creates, changes and deletes. */
function countsOf(plan: ImportPlan): Record<Action, number> {
  const counts = { create: 0, change: 0, delete: 0 };
  for (const diff of Object.values(plan.diff)) {
    counts.create += diff.created.length;
    counts.change += diff.changed.length;
    counts.delete += diff.deleted.length;
  }
  return counts;
}

const col = columnsFor<DiffRow>();
const ORDER: Record<Action, number> = { create: 0, change: 1, delete: 2 };
const diffColumns: DataTableColumns<DiffRow> = [
  col.accessor((r) => KIND_LABELS[r.kind] ?? r.kind, { id: "kind", header: "Kind" }),
  col.accessor("id", { header: "Id", cell: (c) => <span className="break-all font-mono text-xs">{c.getValue()}</span> }),
  col.accessor((r) => ORDER[r.action], {
    id: "action",
    header: "Change",
    cell: (c) => {
      const action = c.row.original.action;
      return <Badge tone={action === "create" ? "green" : action === "delete" ? "red" : "neutral"}>{action}</Badge>;
    },
  }),
  col.accessor("detail", {
    header: "Details",
    enableSorting: false,
    cell: (c) => <span className="block min-w-0 max-w-md break-all font-mono text-xs">{c.getValue()}</span>,
  }),
  col.accessor("refused", {
    id: "refused",
    header: "Refused",
    cell: (c) => (c.getValue() ? <span className="text-sm text-red-700">{c.getValue()}</span> : null),
  }),
];

/** Rows shown before "Expand": a long diff scrolls inside its own (focusable) region until expanded. */
const FOLDED_ROWS = 8;

function DiffTable({ plan }: { plan: ImportPlan }) {
  const [expanded, setExpanded] = useState(false);
  const rows = useMemo(() => rowsOf(plan, expanded), [plan, expanded]);
  const cut = useMemo(() => {
    const short = rowsOf(plan, false);
    return rowsOf(plan, true).some((r, i) => r.detail !== short[i]?.detail);
  }, [plan]);
  // The Refused column only when something is refused (otherwise an empty label on every phone card).
  const columns = useMemo(() => (plan.refusals.length > 0 ? diffColumns : diffColumns.filter((c) => c.id !== "refused")), [plan]);
  const regionId = useId();
  if (rows.length === 0) return <State kind="empty">No changes: the project already has this configuration.</State>;
  const foldable = rows.length > FOLDED_ROWS || cut;
  return (
    <div className="space-y-2">
      {foldable && (
        <div className="flex flex-wrap items-center justify-between gap-2 text-sm text-zinc-600">
          <span>{expanded ? "Every change in full." : "Long values are cut; the list scrolls."}</span>
          <Button variant="secondary" aria-expanded={expanded} aria-controls={regionId} onClick={() => setExpanded(!expanded)}>
            {expanded ? <Minimize2 className="mr-1 size-4" aria-hidden /> : <Maximize2 className="mr-1 size-4" aria-hidden />}
            {expanded ? "Collapse" : "Expand"}
          </Button>
        </div>
      )}
      <ScrollRegion
        id={regionId}
        label="Changes the import makes"
        data-testid="diff-region"
        scrolls={foldable && !expanded}
        className={foldable && !expanded ? "max-h-[32rem]" : undefined}
      >
        <DataTable
          columns={columns}
          data={rows}
          getRowId={(r) => `${r.kind}:${r.id}:${r.action}`}
          rowTestId="diff-row"
          caption="Changes the import makes"
          minWidth={760}
        />
      </ScrollRegion>
    </div>
  );
}

export function ProjectConfig({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const exported = useQuery(trpc.config.export.queryOptions({ projectId }));
  const [reviewed, setReviewed] = useState<{ plan: ImportPlan; document: ConfigDocument } | null>(null);
  const [applied, setApplied] = useState<number | null>(null);
  const dryRun = useMutation(trpc.config.dryRun.mutationOptions());
  const apply = useMutation(trpc.config.import.mutationOptions());
  const form = useForm({ resolver: zodResolver(ZConfigDocumentText, plainly), defaultValues: { text: "" } });
  const errors = form.formState.errors;
  const uploadId = useId();
  const { canEdit: canImport, name } = useProject();
  const json = exported.data ? `${JSON.stringify(exported.data, null, 2)}\n` : "";

  const copy = () =>
    navigator.clipboard?.writeText(json).then(
      () => toast.success("Copied the configuration."),
      () => toast.error("The browser refused to copy; select the text instead."),
    );
  const download = () => {
    const url = URL.createObjectURL(new Blob([json], { type: "application/json" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = `${(name).replace(/[^a-z0-9_-]+/gi, "-")}.config.json`;
    link.click();
    URL.revokeObjectURL(url);
  };
  const upload = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    form.setValue("text", await file.text(), { shouldDirty: true });
    form.clearErrors();
    setReviewed(null);
    toast.success(`Loaded ${file.name}; run the dry run to see what it changes.`);
  };
  const review = form.handleSubmit(async ({ text: document }) => {
    setApplied(null);
    setReviewed(null);
    try {
      const plan = await dryRun.mutateAsync({ projectId, document: document as ConfigDocument });
      setReviewed({ plan, document: document as ConfigDocument });
    } catch (error) {
      applyServerError(error, form.setError, []);
    }
  });
  const confirmApply = async () => {
    if (!reviewed) return;
    try {
      const plan = await apply.mutateAsync({ projectId, document: reviewed.document, expectDiffHash: reviewed.plan.diffHash });
      setApplied(plan.changes);
      setReviewed(null);
      toast.success(`Configuration imported: ${plural(plan.changes, "change")}.`);
      await queryClient.invalidateQueries({ queryKey: trpc.config.export.queryKey({ projectId }) });
    } catch (error) {
      toast.error("Nothing was applied.");
      throw error;
    }
  };
  const counts = reviewed ? countsOf(reviewed.plan) : null;
  const refusals = reviewed?.plan.refusals.length ?? 0;

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
              <Button variant="secondary" onClick={copy}>
                <Copy className="mr-1 size-4" aria-hidden />
                Copy
              </Button>
              <Button onClick={download}>
                <Download className="mr-1 size-4" aria-hidden />
                Download
              </Button>
            </div>
          )
        }
      >
        {exported.isPending ? (
          <State kind="loading">Loading configuration…</State>
        ) : exported.error ? (
          <State kind="error">{messageOf(exported.error)}</State>
        ) : (
          <ScrollRegion label="Exported configuration (JSON)" className="max-h-96 bg-zinc-50 p-3">
            <pre data-testid="config-export" className="text-xs text-zinc-800">
              {json}
            </pre>
          </ScrollRegion>
        )}
      </Card>
      {canImport && (
        <Card title="Import">
          <form onSubmit={review} noValidate className="space-y-3">
            <Field label="Configuration document" htmlFor="config-document" error={errors.text}>
              <textarea
                id="config-document"
                className="h-48 w-full rounded-md border border-zinc-300 p-2 font-mono text-xs aria-[invalid=true]:border-red-500"
                placeholder='{"version": 1, "leaderboards": [], ...}'
                spellCheck={false}
                aria-invalid={errors.text ? true : undefined}
                aria-describedby={errors.text ? "config-document-error" : undefined}
                {...form.register("text", { onChange: () => setReviewed(null) })}
              />
            </Field>
            <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
              <label
                htmlFor={uploadId}
                className="inline-flex cursor-pointer items-center justify-center gap-1 rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm font-medium text-zinc-900 hover:bg-zinc-50 focus-within:ring-2 focus-within:ring-zinc-300"
              >
                <Upload className="size-4" aria-hidden />
                Upload a file…
                <input
                  id={uploadId}
                  aria-label="Upload a configuration file"
                  type="file"
                  accept="application/json,.json"
                  onChange={upload}
                  className="sr-only"
                />
              </label>
              <Button type="submit" disabled={form.formState.isSubmitting}>
                <FileSearch className="mr-1 size-4" aria-hidden />
                {form.formState.isSubmitting ? "Computing…" : "Dry run"}
              </Button>
            </div>
            <FieldError error={errors.root?.server} />
            {applied !== null && (
              <p role="status" className="flex items-center gap-1 text-sm text-green-700">
                <Check className="size-4" aria-hidden />
                Applied {plural(applied, "change")}.
              </p>
            )}
          </form>
        </Card>
      )}
      {reviewed && counts && (
        <Card
          title={`Diff: ${plural(reviewed.plan.changes, "change")}${refusals ? `, ${refusals} refused` : ""}`}
          actions={
            <ConfirmDialog
              trigger={
                <Button variant="danger" disabled={reviewed.plan.changes === 0 || refusals > 0}>
                  Apply
                </Button>
              }
              title={`Apply ${plural(reviewed.plan.changes, "change")} to ${name}?`}
              description={
                <span className="block space-y-2">
                  <span data-testid="apply-counts" className="flex flex-wrap gap-2">
                    <Badge tone="green">{counts.create} created</Badge>
                    <Badge>{counts.change} changed</Badge>
                    <Badge tone="red">{counts.delete} deleted</Badge>
                  </span>
                  <span className="block">
                    {counts.delete > 0 ? "Deleted definitions are removed for good." : "Nothing is deleted."} If the project changed since
                    the dry run, nothing is applied.
                  </span>
                </span>
              }
              confirmLabel="Apply changes"
              error={apply.error ? messageOf(apply.error) : undefined}
              onOpenChange={(open) => {
                if (open) apply.reset();
              }}
              onConfirm={confirmApply}
            />
          }
        >
          {refusals > 0 && (
            <p role="alert" className="mb-3 text-sm text-red-700">
              Nothing can be applied while changes are refused; fix the document and run the dry run again.
            </p>
          )}
          {reviewed.plan.warnings.length > 0 && (
            <ul data-testid="plan-warnings" className="mb-3 space-y-1 text-sm text-amber-800">
              {reviewed.plan.warnings.map((w) => (
                <li key={`${w.kind}:${w.id}`}>
                  <span className="font-mono">{w.id}</span>: {w.message}
                </li>
              ))}
            </ul>
          )}
          <DiffTable plan={reviewed.plan} />
        </Card>
      )}
    </div>
  );
}
