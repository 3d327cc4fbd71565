"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus, X } from "lucide-react";
import Link from "next/link";
import { useId, useState } from "react";
import { useFieldArray, useForm, useWatch } from "react-hook-form";
import { toast } from "sonner";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { Field } from "@/components/ui/field";
import { Badge, Button, Card, Input, Select, Table } from "@/components/ui/primitives";
import { type ExperimentStatus, METRIC_KINDS, type Metric, ZExperimentFields } from "@/server/services/remote-config/schemas";
import { ACTIONS_HEAD, FormEnd, firstProblem, Listing, type LiveFormProps, NewButton } from "./live-kit";
import { type PendingChange, ReasonDialog } from "./live-reason";
import { plainly } from "./plain-issues";
import { useProject } from "./project-context";

type Experiment = RouterOutputs["remoteConfig"]["listExperiments"][number];
type VariantRow = { id: string; name: string; weight: string; values: string };
type Fields = {
  id: string;
  name: string;
  description: string;
  audienceId: string;
  metricKind: string;
  metricParam: string;
  variants: VariantRow[];
};

export const METRIC_LABELS: Record<Metric["kind"], string> = {
  purchases: "Purchases (conversion)",
  revenue: "Revenue per player",
  retention: "Retention (seen again after N days)",
  scoreSubmissions: "Score submissions",
  currencySpend: "Currency spend",
};
const METRIC_PARAM: Partial<Record<Metric["kind"], { label: string; field: "currency" | "days" | "leaderboardId" }>> = {
  revenue: { label: "Currency code (USD)", field: "currency" },
  retention: { label: "Days (1)", field: "days" },
  scoreSubmissions: { label: "Leaderboard id (empty: every board)", field: "leaderboardId" },
  currencySpend: { label: "Currency id", field: "currency" },
};

const share = (weight: number, total: number) => (total > 0 ? `${Math.round((weight / total) * 1000) / 10} %` : "—");

export function metricLabel(m: Metric | null): string {
  if (!m) return "Purchases (conversion)";
  const param = m.currency ?? m.leaderboardId ?? (m.days !== undefined ? `${m.days} d` : undefined);
  return `${METRIC_LABELS[m.kind]}${param ? ` · ${param}` : ""}`;
}

/** Experiments: variants with their share of the audience, status, and their results; admins edit drafts and start or stop them. */
export function LiveExperiments({ projectId }: { projectId: string }) {
  const { canEdit } = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const experiments = useQuery(trpc.remoteConfig.listExperiments.queryOptions({ projectId }));
  const status = useMutation(trpc.remoteConfig.setExperimentStatus.mutationOptions());
  const [editing, setEditing] = useState<Experiment | "new" | null>(null);
  const [change, setChange] = useState<PendingChange | null>(null);
  const move = (e: Experiment, to: ExperimentStatus) =>
    setChange({
      title: `${to === "running" ? "Start" : "Stop"} ${e.name}`,
      before: { status: e.status },
      after: { status: to },
      run: async (reason) => {
        await status.mutateAsync({ projectId, id: e.id, status: to, reason });
        await queryClient.invalidateQueries({ queryKey: trpc.remoteConfig.listExperiments.queryKey({ projectId }) });
        toast.success(`${e.name} is ${to}.`);
      },
    });
  return (
    <Card
      title="Experiments"
      actions={
        <NewButton shown={canEdit && editing === null} onClick={() => setEditing("new")}>
          New experiment
        </NewButton>
      }
    >
      <p className="mb-3 text-sm text-zinc-600">
        Variants split an audience by weight; a player keeps their variant. Variants, weights and audience change only in draft.
      </p>
      {editing !== null && (
        <ExperimentForm
          key={editing === "new" ? "new" : editing.id}
          initial={editing === "new" ? null : editing}
          onCancel={() => setEditing(null)}
          onSave={setChange}
          onSaved={() => setEditing(null)}
        />
      )}
      <Listing
        query={experiments}
        loading="Loading experiments…"
        empty={<>No experiments yet.{canEdit ? " Create one with two or more variants." : ""}</>}
      >
        {(rows) => (
          <Table head={["Experiment", "Status", "Audience", "Variants", "Metric", ACTIONS_HEAD]}>
            {rows.map((e) => {
              const total = e.variants.reduce((a, v) => a + v.weight, 0);
              return (
                <tr key={e.id} data-testid="experiment-row">
                  <td className="px-2 py-2">
                    <Link className="underline" href={`/projects/${projectId}/live/experiments/${e.id}`}>
                      {e.name}
                    </Link>{" "}
                    <span className="font-mono text-xs text-zinc-500">{e.id}</span>
                  </td>
                  <td className="px-2 py-2">
                    <Badge tone={e.status === "running" ? "green" : "neutral"}>{e.status}</Badge>
                  </td>
                  <td className="px-2 py-2">{e.audienceId ?? "Every player"}</td>
                  <td className="px-2 py-2 text-xs">
                    {e.variants.map((v) => (
                      <span key={v.id} className="block">
                        {v.name}: {share(v.weight, total)}
                      </span>
                    ))}
                  </td>
                  <td className="px-2 py-2 text-xs">{metricLabel(e.metric)}</td>
                  <td className="space-x-2 whitespace-nowrap px-2 py-2">
                    <Link className="text-sm underline" href={`/projects/${projectId}/live/experiments/${e.id}`}>
                      Results<span className="sr-only"> of {e.name}</span>
                    </Link>
                    {canEdit && e.status === "draft" && (
                      <>
                        <Button variant="secondary" onClick={() => setEditing(e)}>
                          Edit<span className="sr-only"> {e.name}</span>
                        </Button>
                        <Button onClick={() => move(e, "running")}>
                          Start<span className="sr-only"> {e.name}</span>
                        </Button>
                      </>
                    )}
                    {canEdit && e.status === "running" && (
                      <Button variant="danger" onClick={() => move(e, "stopped")}>
                        Stop<span className="sr-only"> {e.name}</span>
                      </Button>
                    )}
                  </td>
                </tr>
              );
            })}
          </Table>
        )}
      </Listing>
      <ReasonDialog change={change} onClose={() => setChange(null)} />
    </Card>
  );
}

const rowOf = (v: Experiment["variants"][number]): VariantRow => ({
  id: v.id,
  name: v.name,
  weight: String(v.weight),
  values: JSON.stringify(v.values),
});
const emptyVariants = (): VariantRow[] => [
  { id: "control", name: "Control", weight: "50", values: "{}" },
  { id: "variant-b", name: "Variant B", weight: "50", values: "{}" },
];

function metricOf(kind: string, param: string): Metric | null {
  const k = kind as Metric["kind"];
  const p = METRIC_PARAM[k];
  if (!p || param.trim() === "") return { kind: k };
  return p.field === "days" ? { kind: k, days: Number(param) } : { kind: k, [p.field]: param.trim() };
}

function ExperimentForm({ initial, onCancel, onSave, onSaved }: LiveFormProps<Experiment>) {
  const { projectId } = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const audiences = useQuery(trpc.remoteConfig.listAudiences.queryOptions({ projectId }));
  const upsert = useMutation(trpc.remoteConfig.upsertExperiment.mutationOptions());
  const id = useId();
  const form = useForm<Fields>({
    defaultValues: initial
      ? {
          id: initial.id,
          name: initial.name,
          description: initial.description,
          audienceId: initial.audienceId ?? "",
          metricKind: initial.metric?.kind ?? "purchases",
          metricParam: String(initial.metric?.currency ?? initial.metric?.leaderboardId ?? initial.metric?.days ?? ""),
          variants: initial.variants.map(rowOf),
        }
      : { id: "", name: "", description: "", audienceId: "", metricKind: "purchases", metricParam: "", variants: emptyVariants() },
  });
  const variants = useFieldArray({ control: form.control, name: "variants" });
  const watched = useWatch({ control: form.control, name: "variants" }) ?? [];
  const metricKind = useWatch({ control: form.control, name: "metricKind" }) as Metric["kind"];
  const total = watched.reduce((a, v) => a + (Number(v.weight) || 0), 0);
  const errors = form.formState.errors;
  const submit = form.handleSubmit((f) => {
    let values: unknown[];
    try {
      values = f.variants.map((v) => JSON.parse(v.values || "{}"));
    } catch {
      return form.setError("root.server", { message: 'Each variant\'s values are a JSON object such as {"gem.price": 0.49}.' });
    }
    const body = {
      id: f.id,
      name: f.name,
      description: f.description,
      audienceId: f.audienceId || null,
      metric: metricOf(f.metricKind, f.metricParam),
      variants: f.variants.map((v, i) => ({ id: v.id, name: v.name, weight: Number(v.weight), values: values[i] })),
    };
    const parsed = ZExperimentFields.safeParse(body, plainly);
    if (!parsed.success) return form.setError("root.server", { message: firstProblem(parsed.error.issues, "Check the experiment.") });
    onSave({
      title: initial ? `Change ${initial.name}` : `Create ${parsed.data.name}`,
      before: initial ? { name: initial.name, audienceId: initial.audienceId, variants: initial.variants, metric: initial.metric } : null,
      after: { name: parsed.data.name, audienceId: parsed.data.audienceId, variants: parsed.data.variants, metric: parsed.data.metric },
      run: async (reason) => {
        await upsert.mutateAsync({ projectId, reason, ...parsed.data });
        await queryClient.invalidateQueries({ queryKey: trpc.remoteConfig.listExperiments.queryKey({ projectId }) });
        toast.success(`Saved ${parsed.data.name}.`);
        onSaved();
      },
    });
  });
  const param = METRIC_PARAM[metricKind];
  return (
    <form noValidate onSubmit={submit} className="mb-4 space-y-3 rounded-md border border-zinc-200 p-3">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <Field label="Experiment id" htmlFor={`${id}-id`} hint="Such as starter-pack-price">
          <Input id={`${id}-id`} disabled={initial !== null} {...form.register("id")} />
        </Field>
        <Field label="Name" htmlFor={`${id}-name`}>
          <Input id={`${id}-name`} {...form.register("name")} />
        </Field>
        <Field label="Audience" htmlFor={`${id}-audience`}>
          <Select id={`${id}-audience`} className="w-full" {...form.register("audienceId")}>
            <option value="">Every player</option>
            {(audiences.data ?? []).map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Description" htmlFor={`${id}-description`}>
          <Input id={`${id}-description`} {...form.register("description")} />
        </Field>
        <Field label="Metric" htmlFor={`${id}-metric`}>
          <Select id={`${id}-metric`} className="w-full" {...form.register("metricKind")}>
            {METRIC_KINDS.map((k) => (
              <option key={k} value={k}>
                {METRIC_LABELS[k]}
              </option>
            ))}
          </Select>
        </Field>
        {param && (
          <Field label={param.label} htmlFor={`${id}-param`}>
            <Input id={`${id}-param`} {...form.register("metricParam")} />
          </Field>
        )}
      </div>
      <fieldset className="space-y-2">
        <legend className="text-sm font-medium">Variants (weights: {total} in all)</legend>
        {variants.fields.map((row, i) => (
          <div
            key={row.id}
            data-testid="variant-row"
            className="grid grid-cols-1 gap-2 rounded bg-zinc-50 p-2 sm:grid-cols-[8rem_minmax(0,1fr)_6rem_4rem_minmax(0,2fr)_auto] sm:items-center"
          >
            <Input aria-label={`Variant ${i + 1} id`} {...form.register(`variants.${i}.id`)} />
            <Input aria-label={`Variant ${i + 1} name`} {...form.register(`variants.${i}.name`)} />
            <Input aria-label={`Variant ${i + 1} weight`} inputMode="numeric" {...form.register(`variants.${i}.weight`)} />
            <span className="text-sm text-zinc-600" data-testid="variant-share">
              {share(Number(watched[i]?.weight) || 0, total)}
            </span>
            <Input aria-label={`Variant ${i + 1} values (JSON)`} className="font-mono" {...form.register(`variants.${i}.values`)} />
            <Button
              variant="secondary"
              onClick={() => variants.remove(i)}
              disabled={variants.fields.length <= 2}
              aria-label={`Remove variant ${i + 1}`}
            >
              <X className="size-4" aria-hidden />
            </Button>
          </div>
        ))}
        <Button variant="secondary" onClick={() => variants.append({ id: "", name: "", weight: "50", values: "{}" })}>
          <Plus className="mr-1 size-4" aria-hidden />
          Add variant
        </Button>
      </fieldset>
      <FormEnd error={errors.root?.server} submit="Review experiment" onCancel={onCancel} />
    </form>
  );
}
