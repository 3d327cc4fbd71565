"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus, X } from "lucide-react";
import { useDeferredValue, useId, useState } from "react";
import { useFieldArray, useForm, useWatch } from "react-hook-form";
import { toast } from "sonner";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { Field } from "@/components/ui/field";
import { Button, Card, Input, Select, Table } from "@/components/ui/primitives";
import { ZAudienceInput, ZAudienceRules } from "@/server/services/remote-config/schemas";
import { messageOf } from "./errors";
import { ACTIONS_HEAD, FormEnd, firstProblem, Listing, type LiveFormProps, NewButton } from "./live-kit";
import { type PendingChange, ReasonDialog } from "./live-reason";
import { emptyRow, FIELDS, fieldOf, type RuleRow, rowOf, ruleOf } from "./live-rules";
import { plainly, plainServerIssue } from "./plain-issues";
import { useProject } from "./project-context";

type Audience = RouterOutputs["remoteConfig"]["listAudiences"][number];
type Fields = { id: string; name: string; description: string; rows: RuleRow[] };

/** Audiences: who each one is (its rules) and how many players match now; admins build them with a live count. */
export function LiveAudiences({ projectId }: { projectId: string }) {
  const { canEdit } = useProject();
  const trpc = useTRPC();
  const audiences = useQuery(trpc.remoteConfig.listAudiences.queryOptions({ projectId }));
  const [editing, setEditing] = useState<Audience | "new" | null>(null);
  const [change, setChange] = useState<PendingChange | null>(null);
  return (
    <Card
      title="Audiences"
      actions={
        <NewButton shown={canEdit && editing === null} onClick={() => setEditing("new")}>
          New audience
        </NewButton>
      }
    >
      <p className="mb-3 text-sm text-zinc-600">Players chosen by rules over what the backend knows; every rule must hold.</p>
      {editing !== null && (
        <AudienceForm
          key={editing === "new" ? "new" : editing.id}
          initial={editing === "new" ? null : editing}
          onCancel={() => setEditing(null)}
          onSave={setChange}
          onSaved={() => setEditing(null)}
        />
      )}
      <Listing
        query={audiences}
        loading="Loading audiences…"
        empty={<>No audiences yet.{canEdit ? " Build one from rules, then override config for it." : ""}</>}
      >
        {(rows) => (
          <Table head={["Audience", "Rules", "Players", ACTIONS_HEAD]}>
            {rows.map((a) => (
              <tr key={a.id} data-testid="audience-row">
                <td className="px-2 py-2">
                  {a.name} <span className="font-mono text-xs text-zinc-500">{a.id}</span>
                </td>
                <td className="px-2 py-2 text-xs">
                  {a.rules.all.map((r) => {
                    const row = rowOf(r);
                    const f = fieldOf(row.field);
                    const op = f?.ops.find(([o]) => o === row.op)?.[1] ?? row.op;
                    return (
                      <span key={`${row.field}-${row.op}-${row.extra}-${row.value}`} className="block">
                        {f?.label}
                        {row.extra ? ` (${row.extra})` : ""} {op} {row.value}
                      </span>
                    );
                  })}
                </td>
                <td className="whitespace-nowrap px-2 py-2" data-testid="audience-matching">
                  {a.matching.toLocaleString("en-US")} players match now
                </td>
                <td className="px-2 py-2">
                  {canEdit && (
                    <Button variant="secondary" onClick={() => setEditing(a)}>
                      Edit<span className="sr-only"> {a.name}</span>
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Listing>
      <ReasonDialog change={change} onClose={() => setChange(null)} />
    </Card>
  );
}

function AudienceForm({ initial, onCancel, onSave, onSaved }: LiveFormProps<Audience>) {
  const { projectId } = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const upsert = useMutation(trpc.remoteConfig.upsertAudience.mutationOptions());
  const id = useId();
  const form = useForm<Fields>({
    defaultValues: initial
      ? { id: initial.id, name: initial.name, description: initial.description, rows: initial.rules.all.map(rowOf) }
      : { id: "", name: "", description: "", rows: [emptyRow()] },
  });
  const rows = useFieldArray({ control: form.control, name: "rows" });
  const watched = useWatch({ control: form.control, name: "rows" });
  const rules = ZAudienceRules.safeParse({ all: (watched ?? []).map(ruleOf) }, plainly);
  const preview = useDeferredValue(rules.success ? rules.data : null);
  const count = useQuery({
    ...trpc.remoteConfig.countAudience.queryOptions({ projectId, rules: preview ?? { all: [] } }),
    enabled: preview !== null,
  });
  const errors = form.formState.errors;
  const submit = form.handleSubmit((f) => {
    const parsed = ZAudienceInput.safeParse(
      { id: f.id, name: f.name, description: f.description, rules: { all: f.rows.map(ruleOf) } },
      plainly,
    );
    if (!parsed.success) return form.setError("root.server", { message: firstProblem(parsed.error.issues, "Check the audience.") });
    onSave({
      title: initial ? `Change ${initial.name}` : `Create ${f.name}`,
      before: initial ? { name: initial.name, description: initial.description, rules: initial.rules } : null,
      after: { name: parsed.data.name, description: parsed.data.description, rules: parsed.data.rules },
      run: async (reason) => {
        await upsert.mutateAsync({ projectId, reason, ...parsed.data });
        await queryClient.invalidateQueries({ queryKey: trpc.remoteConfig.listAudiences.queryKey({ projectId }) });
        toast.success(`Saved ${parsed.data.name}.`);
        onSaved();
      },
    });
  });
  return (
    <form noValidate onSubmit={submit} className="mb-4 space-y-3 rounded-md border border-zinc-200 p-3">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        <Field label="Audience id" htmlFor={`${id}-id`} hint="Such as lapsed-payers">
          <Input id={`${id}-id`} disabled={initial !== null} {...form.register("id")} />
        </Field>
        <Field label="Name" htmlFor={`${id}-name`}>
          <Input id={`${id}-name`} {...form.register("name")} />
        </Field>
        <Field label="Description" htmlFor={`${id}-description`}>
          <Input id={`${id}-description`} {...form.register("description")} />
        </Field>
      </div>
      <fieldset className="space-y-2">
        <legend className="text-sm font-medium">Rules (all must hold)</legend>
        {rows.fields.map((row, i) => {
          const field = fieldOf(watched?.[i]?.field ?? row.field);
          return (
            <div
              key={row.id}
              data-testid="rule-row"
              className="grid grid-cols-1 gap-2 rounded bg-zinc-50 p-2 sm:grid-cols-[10rem_12rem_minmax(0,1fr)_minmax(0,1fr)_auto]"
            >
              <Select
                aria-label={`Rule ${i + 1} field`}
                {...form.register(`rows.${i}.field`, {
                  onChange: (e) => form.setValue(`rows.${i}.op`, fieldOf(e.target.value)?.ops[0]?.[0] ?? ""),
                })}
              >
                {FIELDS.map((f) => (
                  <option key={f.field} value={f.field}>
                    {f.label}
                  </option>
                ))}
              </Select>
              <Select aria-label={`Rule ${i + 1} operator`} {...form.register(`rows.${i}.op`)}>
                {field?.ops.map(([op, label]) => (
                  <option key={op} value={op}>
                    {label}
                  </option>
                ))}
              </Select>
              {field?.extra ? (
                <Input aria-label={`Rule ${i + 1} ${field.extra}`} placeholder={field.extra} {...form.register(`rows.${i}.extra`)} />
              ) : (
                <span className="hidden sm:block" />
              )}
              <Input aria-label={`Rule ${i + 1} value`} placeholder={field?.hint} {...form.register(`rows.${i}.value`)} />
              <Button
                variant="secondary"
                onClick={() => rows.remove(i)}
                disabled={rows.fields.length === 1}
                aria-label={`Remove rule ${i + 1}`}
              >
                <X className="size-4" aria-hidden />
              </Button>
              {field?.note ? (
                <p className="text-xs text-zinc-600 sm:col-span-5" data-testid="rule-note">
                  {field.note}
                </p>
              ) : null}
            </div>
          );
        })}
        <Button variant="secondary" onClick={() => rows.append(emptyRow())}>
          <Plus className="mr-1 size-4" aria-hidden />
          Add rule
        </Button>
      </fieldset>
      <p role="status" data-testid="audience-preview" className="text-sm">
        {!rules.success
          ? `Incomplete rules: ${plainServerIssue({ path: rules.error.issues[0]?.path.join(".") ?? "", message: rules.error.issues[0]?.message ?? "" }, { place: true })}`
          : count.isPending
            ? "Counting players…"
            : count.error
              ? messageOf(count.error)
              : `${count.data.matching.toLocaleString("en-US")} players match now`}
      </p>
      <FormEnd error={errors.root?.server} submit="Review audience" onCancel={onCancel} />
    </form>
  );
}
