"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { Field } from "@/components/ui/field";
import { Badge, Button, Card, Input, Select, State, Table } from "@/components/ui/primitives";
import { CONFIG_TYPES, ZConfigKeyFields, ZOverrideFields } from "@/server/services/remote-config/schemas";
import { isoOfLocal, localOfIso, shown, whenUtcAndLocal } from "./live-format";
import { ACTIONS_HEAD, FormEnd, Listing, type LiveFormProps, NewButton } from "./live-kit";
import { type PendingChange, ReasonDialog } from "./live-reason";
import { parseValue, textOfValue } from "./live-value";
import { plainly } from "./plain-issues";
import { useProject } from "./project-context";

type Key = RouterOutputs["remoteConfig"]["listKeys"][number];
type Override = Key["overrides"][number];

/** Remote config: every key with its default and overrides; a key's panel lists its overrides in the order they win. */
export function LiveConfig({ projectId }: { projectId: string }) {
  const { canEdit } = useProject();
  const trpc = useTRPC();
  const keys = useQuery(trpc.remoteConfig.listKeys.queryOptions({ projectId }));
  const [open, setOpen] = useState<string | null>(null);
  const [editing, setEditing] = useState<Key | "new" | null>(null);
  const [change, setChange] = useState<PendingChange | null>(null);
  const selected = keys.data?.find((k) => k.key === open) ?? null;
  return (
    <div className="space-y-4">
      <Card
        title="Remote config"
        actions={
          <NewButton shown={canEdit && editing === null} onClick={() => setEditing("new")}>
            New key
          </NewButton>
        }
      >
        <p className="mb-3 text-sm text-zinc-600">
          Values the game reads with <code>GET /config</code>: a default per key, overridden for audiences, in time windows and for a share
          of players.
        </p>
        {editing !== null && (
          <KeyForm
            initial={editing === "new" ? null : editing}
            onCancel={() => setEditing(null)}
            onSave={setChange}
            onSaved={() => setEditing(null)}
          />
        )}
        <Listing
          query={keys}
          loading="Loading keys…"
          empty={<>No config keys yet.{canEdit ? " Add one, then override it for an audience." : ""}</>}
        >
          {(rows) => (
            <Table head={["Key", "Type", "Default", "Overrides", ACTIONS_HEAD]}>
              {rows.map((k) => (
                <tr key={k.key} data-testid="config-key-row">
                  <td className="px-2 py-2 font-mono text-xs">{k.key}</td>
                  <td className="px-2 py-2">{k.type}</td>
                  <td className="max-w-64 truncate px-2 py-2 font-mono text-xs">{shown(k.defaultValue)}</td>
                  <td className="px-2 py-2">{k.overrides.length}</td>
                  <td className="space-x-2 whitespace-nowrap px-2 py-2">
                    <Button variant="secondary" onClick={() => setOpen(open === k.key ? null : k.key)} aria-expanded={open === k.key}>
                      {open === k.key ? "Close" : "Overrides"}
                      <span className="sr-only"> of {k.key}</span>
                    </Button>
                    {canEdit && (
                      <Button variant="secondary" onClick={() => setEditing(k)} aria-label={`Edit ${k.key}`}>
                        Edit
                      </Button>
                    )}
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </Listing>
      </Card>
      {selected && <KeyPanel projectId={projectId} k={selected} onChange={setChange} />}
      <ReasonDialog change={change} onClose={() => setChange(null)} />
    </div>
  );
}

const ZKeyForm = z.object({
  key: ZConfigKeyFields.shape.key,
  type: z.enum(CONFIG_TYPES),
  value: z.string(),
  description: z.string().max(500),
});

function KeyForm({ initial, onCancel, onSave, onSaved }: LiveFormProps<Key>) {
  const { projectId } = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const upsert = useMutation(trpc.remoteConfig.upsertKey.mutationOptions());
  const id = useId();
  const form = useForm({
    resolver: zodResolver(ZKeyForm, plainly),
    defaultValues: initial
      ? { key: initial.key, type: initial.type, value: textOfValue(initial.type, initial.defaultValue), description: initial.description }
      : { key: "", type: "number" as const, value: "", description: "" },
  });
  const errors = form.formState.errors;
  const submit = form.handleSubmit((f) => {
    const parsed = parseValue(f.type, f.value);
    if ("problem" in parsed) return form.setError("value", { message: parsed.problem });
    const after = { key: f.key, type: f.type, defaultValue: parsed.value, description: f.description };
    const checked = ZConfigKeyFields.safeParse(after, plainly);
    if (!checked.success) return form.setError("root.server", { message: checked.error.issues[0]?.message ?? "Check the key." });
    onSave({
      title: initial ? `Change ${f.key}` : `Create ${f.key}`,
      before: initial ? { type: initial.type, defaultValue: initial.defaultValue, description: initial.description } : null,
      after: { type: f.type, defaultValue: parsed.value, description: f.description },
      run: async (reason) => {
        await upsert.mutateAsync({ projectId, reason, ...checked.data });
        await queryClient.invalidateQueries({ queryKey: trpc.remoteConfig.listKeys.queryKey({ projectId }) });
        toast.success(`Saved ${f.key}.`);
        onSaved();
      },
    });
  });
  return (
    <form noValidate onSubmit={submit} className="mb-4 grid grid-cols-1 gap-3 rounded-md border border-zinc-200 p-3 sm:grid-cols-2">
      <Field label="Key" htmlFor={`${id}-key`} error={errors.key} hint="Such as shop.discount">
        <Input id={`${id}-key`} disabled={initial !== null} {...form.register("key")} aria-invalid={errors.key ? true : undefined} />
      </Field>
      <Field label="Type" htmlFor={`${id}-type`}>
        <Select id={`${id}-type`} className="w-full" {...form.register("type")}>
          {CONFIG_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </Select>
      </Field>
      <Field
        label="Default value"
        htmlFor={`${id}-value`}
        error={errors.value}
        hint="Numbers as 4.99, booleans as true or false, JSON as JSON."
      >
        <Input id={`${id}-value`} {...form.register("value")} aria-invalid={errors.value ? true : undefined} />
      </Field>
      <Field label="Description" htmlFor={`${id}-description`} error={errors.description}>
        <Input id={`${id}-description`} {...form.register("description")} />
      </Field>
      <FormEnd error={errors.root?.server} submit="Review change" onCancel={onCancel} className="flex gap-2 sm:col-span-2" />
    </form>
  );
}

function Window({ iso, label }: { iso: string | null; label: string }) {
  if (!iso) return <span className="text-zinc-500">{label === "Starts" ? "now" : "never"}</span>;
  const w = whenUtcAndLocal(iso);
  return (
    <span className="block whitespace-nowrap">
      <span className="block">{w.utc}</span>
      <span className="block text-xs text-zinc-500">{w.local}</span>
    </span>
  );
}

/** A key's overrides, highest priority first (the first that applies wins), with the form to add or change one. */
function KeyPanel({ projectId, k, onChange }: { projectId: string; k: Key; onChange: (c: PendingChange) => void }) {
  const { canEdit } = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.remoteConfig.deleteOverride.mutationOptions());
  const [editing, setEditing] = useState<Override | "new" | null>(null);
  const ordered = [...k.overrides].sort((a, b) => b.priority - a.priority);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.remoteConfig.listKeys.queryKey({ projectId }) });
  return (
    <Card
      title={`Overrides of ${k.key}`}
      actions={
        <NewButton shown={canEdit && editing === null} onClick={() => setEditing("new")}>
          Add override
        </NewButton>
      }
    >
      <p className="mb-3 text-sm text-zinc-600">
        Default {shown(k.defaultValue)}. Among the overrides that apply to a player now, the highest priority wins. Times in UTC, and below
        in your time zone.
      </p>
      {editing !== null && (
        <OverrideForm
          k={k}
          initial={editing === "new" ? null : editing}
          onCancel={() => setEditing(null)}
          onSave={(c) =>
            onChange({
              ...c,
              run: async (reason) => {
                await c.run(reason);
                await refresh();
                setEditing(null);
              },
            })
          }
        />
      )}
      {ordered.length === 0 ? (
        <State kind="empty">No overrides: every player gets the default.</State>
      ) : (
        <Table head={["Priority", "Audience", "Value", "Rollout", "Starts", "Ends", "Enabled", ACTIONS_HEAD]}>
          {ordered.map((o) => (
            <tr key={o.id} data-testid="override-row">
              <td className="px-2 py-2">{o.priority}</td>
              <td className="px-2 py-2">{o.audienceId ?? "Every player"}</td>
              <td className="max-w-48 truncate px-2 py-2 font-mono text-xs">{shown(o.value)}</td>
              <td className="px-2 py-2">{o.rolloutPercent} %</td>
              <td className="px-2 py-2">
                <Window iso={o.startsAt} label="Starts" />
              </td>
              <td className="px-2 py-2">
                <Window iso={o.endsAt} label="Ends" />
              </td>
              <td className="px-2 py-2">{o.enabled ? <Badge tone="green">on</Badge> : <Badge>off</Badge>}</td>
              <td className="space-x-2 whitespace-nowrap px-2 py-2">
                {canEdit && (
                  <>
                    <Button variant="secondary" onClick={() => setEditing(o)}>
                      Edit<span className="sr-only"> override {o.id}</span>
                    </Button>
                    <Button
                      variant="secondary"
                      onClick={() =>
                        onChange({
                          title: `Delete this override of ${k.key}`,
                          before: o,
                          after: null,
                          run: async (reason) => {
                            await remove.mutateAsync({ projectId, id: o.id, reason });
                            await refresh();
                          },
                        })
                      }
                    >
                      Delete<span className="sr-only"> override {o.id}</span>
                    </Button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </Card>
  );
}

const ZOverrideForm = z.object({
  audienceId: z.string(),
  value: z.string(),
  priority: z.coerce.number<string>().pipe(ZOverrideFields.shape.priority.unwrap()),
  rolloutPercent: z.coerce.number<string>().pipe(ZOverrideFields.shape.rolloutPercent.unwrap()),
  startsAt: z.string(),
  endsAt: z.string(),
  enabled: z.boolean(),
});

function OverrideForm({
  k,
  initial,
  onCancel,
  onSave,
}: {
  k: Key;
  initial: Override | null;
  onCancel: () => void;
  onSave: (c: PendingChange) => void;
}) {
  const { projectId } = useProject();
  const trpc = useTRPC();
  const audiences = useQuery(trpc.remoteConfig.listAudiences.queryOptions({ projectId }));
  const create = useMutation(trpc.remoteConfig.createOverride.mutationOptions());
  const update = useMutation(trpc.remoteConfig.updateOverride.mutationOptions());
  const id = useId();
  const form = useForm({
    resolver: zodResolver(ZOverrideForm, plainly),
    defaultValues: {
      audienceId: initial?.audienceId ?? "",
      value: initial ? textOfValue(k.type, initial.value) : "",
      priority: String(initial?.priority ?? 0),
      rolloutPercent: String(initial?.rolloutPercent ?? 100),
      startsAt: localOfIso(initial?.startsAt ?? null),
      endsAt: localOfIso(initial?.endsAt ?? null),
      enabled: initial?.enabled ?? true,
    },
  });
  const errors = form.formState.errors;
  const submit = form.handleSubmit((f) => {
    const parsed = parseValue(k.type, f.value);
    if ("problem" in parsed) return form.setError("value", { message: parsed.problem });
    const after = {
      key: k.key,
      audienceId: f.audienceId || null,
      value: parsed.value,
      priority: f.priority,
      rolloutPercent: f.rolloutPercent,
      startsAt: isoOfLocal(f.startsAt),
      endsAt: isoOfLocal(f.endsAt),
      enabled: f.enabled,
    };
    const checked = ZOverrideFields.safeParse(after, plainly);
    if (!checked.success) return form.setError("root.server", { message: checked.error.issues[0]?.message ?? "Check the override." });
    if (after.startsAt && after.endsAt && after.startsAt >= after.endsAt)
      return form.setError("endsAt", { message: "The end comes after the start." });
    const { key: _key, ...fields } = checked.data;
    onSave({
      title: initial ? `Change an override of ${k.key}` : `Override ${k.key}`,
      before: initial
        ? {
            audienceId: initial.audienceId,
            value: initial.value,
            priority: initial.priority,
            rolloutPercent: initial.rolloutPercent,
            startsAt: initial.startsAt,
            endsAt: initial.endsAt,
            enabled: initial.enabled,
          }
        : null,
      after: fields,
      run: async (reason) => {
        if (initial) await update.mutateAsync({ projectId, id: initial.id, reason, ...fields });
        else await create.mutateAsync({ projectId, reason, ...checked.data });
        toast.success(`Saved the override of ${k.key}.`);
      },
    });
  });
  return (
    <form noValidate onSubmit={submit} className="mb-4 grid grid-cols-1 gap-3 rounded-md border border-zinc-200 p-3 sm:grid-cols-2">
      <Field label="Audience" htmlFor={`${id}-audience`}>
        <Select id={`${id}-audience`} className="w-full" {...form.register("audienceId")}>
          <option value="">Every player</option>
          {(audiences.data ?? []).map((a) => (
            <option key={a.id} value={a.id}>
              {a.name} ({a.matching.toLocaleString("en-US")} players)
            </option>
          ))}
        </Select>
      </Field>
      <Field label={`Value (${k.type})`} htmlFor={`${id}-value`} error={errors.value}>
        <Input id={`${id}-value`} {...form.register("value")} aria-invalid={errors.value ? true : undefined} />
      </Field>
      <Field label="Priority" htmlFor={`${id}-priority`} error={errors.priority} hint="Higher wins.">
        <Input id={`${id}-priority`} inputMode="numeric" {...form.register("priority")} />
      </Field>
      <Field
        label="Rollout (% of the audience)"
        htmlFor={`${id}-rollout`}
        error={errors.rolloutPercent}
        hint="The same players stay in as it grows."
      >
        <Input id={`${id}-rollout`} inputMode="numeric" {...form.register("rolloutPercent")} />
      </Field>
      <Field label="Starts (your time zone)" htmlFor={`${id}-starts`} error={errors.startsAt} hint="Empty: now.">
        <Input id={`${id}-starts`} type="datetime-local" {...form.register("startsAt")} />
      </Field>
      <Field label="Ends (your time zone)" htmlFor={`${id}-ends`} error={errors.endsAt} hint="Empty: never.">
        <Input id={`${id}-ends`} type="datetime-local" {...form.register("endsAt")} />
      </Field>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" {...form.register("enabled")} />
        Enabled
      </label>
      <FormEnd error={errors.root?.server} submit="Review override" onCancel={onCancel} className="flex gap-2 sm:col-span-2" />
    </form>
  );
}
