"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { Pencil, Plus, Save, Trash2 } from "lucide-react";
import { createContext, type ReactNode, useContext, useMemo, useState } from "react";
import { type DefaultValues, type FieldError, type FieldValues, type Path, type UseFormReturn, useForm } from "react-hook-form";
import { toast } from "sonner";
import type { z } from "zod";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle, DialogTrigger } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Button, Card, Input, State } from "@/components/ui/primitives";
import { auditDiff } from "@/server/services/audit-diff";
import { applyServerError, messageOf } from "./errors";
import { plainly } from "./plain-issues";

/**
 * The create/edit/delete kit of the economy page: one kind of definition (a currency, an item, a
 * purchase) as a card with its table, its create form, Edit in a dialog and Delete behind a
 * question, with the loading, error and empty states and a toast after each change. A kind brings
 * only its columns, its form and its three calls.
 */
export type DefinitionKind = "currency" | "item" | "purchase";

type Definition = { id: string; name: string };

/** A definition's form: a create form takes a new definition; an edit form, a patch of `initial`. */
export type DefinitionFormProps<T, New, Patch> = { onCancel?: () => void } & (
  | { mode: "create"; initial?: undefined; onSubmit: (value: New) => Promise<unknown> }
  | { mode: "edit"; initial: T; onSubmit: (patch: Patch) => Promise<unknown> }
);

const capitalized = (kind: DefinitionKind) => `${kind[0]?.toUpperCase() ?? ""}${kind.slice(1)}`;

/** A definition's name above its id (the first column of each table). */
function NameWithId({ name, id }: { name: string; id: string }) {
  return (
    <div className="min-w-0">
      <div>{name}</div>
      <div className="break-all font-mono text-xs text-zinc-500">{id}</div>
    </div>
  );
}

/**
 * One kind of definition: the name column, then `columns`, then Edit and Delete for operators who
 * may edit; loading, error and empty states; below the table the create form. `refresh` refetches
 * the list after a create, a save or a delete.
 */
export function DefinitionsCard<T extends Definition, New, Patch>({
  kind,
  title,
  query,
  columns,
  rowTestId,
  minWidth,
  canEdit,
  deleteDescription,
  refresh,
  create,
  update,
  remove,
  form,
}: {
  kind: DefinitionKind;
  title: string;
  query: { isPending: boolean; error: unknown; data: T[] | undefined };
  columns: DataTableColumns<T>;
  rowTestId: string;
  minWidth: number;
  canEdit: boolean;
  deleteDescription: string;
  refresh: () => Promise<unknown>;
  create: (value: New) => Promise<{ id: string }>;
  /** `reason`: why, as the operator typed it when confirming (kept in the audit log). */
  update: (id: string, patch: Patch, reason: string) => Promise<unknown>;
  remove: (id: string) => Promise<unknown>;
  form: (props: DefinitionFormProps<T, New, Patch>) => ReactNode;
}) {
  const noun = title.toLowerCase();
  // The columns, their cell functions included, must stay the same objects from render to render:
  // the table renders each cell function as a component, so a new one would remount the row's
  // actions and close a dialog that is open (a refusal shown in the Delete question, say). The
  // calls, new on every render, reach the actions through a context instead.
  const all = useMemo<DataTableColumns<T>>(() => {
    const col = columnsFor<T>();
    return [
      col.accessor((row) => row.name, {
        id: "name",
        header: capitalized(kind),
        cell: (c) => <NameWithId name={c.row.original.name} id={c.row.original.id} />,
      }),
      ...columns,
      col.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: ({ row: { original } }) => <DefinitionActions definition={original} />,
      }),
    ];
  }, [kind, columns]);
  const calls = { kind, canEdit, deleteDescription, refresh, update, remove, form } as unknown as RowCalls;
  return (
    <RowCallsContext.Provider value={calls}>
      <Card title={title}>
        {query.isPending ? (
          <State kind="loading">Loading {noun}…</State>
        ) : query.error ? (
          <State kind="error">{messageOf(query.error)}</State>
        ) : !query.data?.length ? (
          <State kind="empty">No {noun} yet.</State>
        ) : (
          <DataTable columns={all} data={query.data} getRowId={(row) => row.id} rowTestId={rowTestId} minWidth={minWidth} />
        )}
        {canEdit && (
          <div className="mt-4 rounded-md border border-dashed border-zinc-300 p-3">
            {form({
              mode: "create",
              onSubmit: async (value) => {
                const created = await create(value);
                toast.success(`Created the ${kind} "${created.id}".`);
                await refresh();
              },
            })}
          </div>
        )}
      </Card>
    </RowCallsContext.Provider>
  );
}

/** What a row's Edit and Delete need from their card, with the kind's types erased. */
type RowCalls = {
  kind: DefinitionKind;
  canEdit: boolean;
  deleteDescription: string;
  refresh: () => Promise<unknown>;
  update: (id: string, patch: unknown, reason: string) => Promise<unknown>;
  remove: (id: string) => Promise<unknown>;
  form: (props: DefinitionFormProps<Definition, unknown, unknown>) => ReactNode;
};
const RowCallsContext = createContext<RowCalls | null>(null);

/**
 * A row's Edit and Delete, for operators who may edit (nothing for the others). Saving an edit
 * asks to confirm first: each changed field before → after, and a reason (kept in the audit log).
 */
function DefinitionActions({ definition: d }: { definition: Definition }) {
  const calls = useContext(RowCallsContext);
  const [pending, setPending] = useState<Record<string, unknown> | null>(null);
  if (!calls?.canEdit) return null;
  const { kind, deleteDescription, refresh, update, remove, form } = calls;
  return (
    <RowActions
      kind={kind}
      id={d.id}
      deleteDescription={deleteDescription}
      onDelete={() => remove(d.id)}
      onChanged={refresh}
      onClose={() => setPending(null)}
    >
      {({ saved, cancel }) =>
        pending ? (
          <ConfirmChange
            before={d}
            patch={pending}
            onBack={() => setPending(null)}
            onConfirm={async (reason) => {
              await update(d.id, pending, reason);
              setPending(null);
              await saved();
            }}
          />
        ) : (
          form({
            mode: "edit",
            initial: d,
            onSubmit: async (patch) => setPending(patch as Record<string, unknown>),
            onCancel: cancel,
          })
        )
      }
    </RowActions>
  );
}

/** The confirm step of an edit: the changed fields old → new, and the reason asked for. */
function ConfirmChange(o: {
  before: Definition;
  patch: Record<string, unknown>;
  onBack: () => void;
  onConfirm: (reason: string) => Promise<void>;
}) {
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const current = Object.fromEntries(Object.keys(o.patch).map((k) => [k, (o.before as Record<string, unknown>)[k] ?? null]));
  const changes = auditDiff(current, o.patch).filter((c) => c.kind === "changed" || c.kind === "added");
  return (
    <form
      className="space-y-3"
      data-testid="confirm-change"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!reason.trim()) return setError("Give a reason: it is kept in the audit log.");
        setSaving(true);
        setError(null);
        try {
          await o.onConfirm(reason.trim());
        } catch (err) {
          setError(messageOf(err));
        } finally {
          setSaving(false);
        }
      }}
    >
      {changes.length === 0 ? (
        <p className="text-sm text-zinc-600">Nothing changed.</p>
      ) : (
        <ul className="space-y-1 text-sm" aria-label="Changes">
          {changes.map((c) => (
            <li key={c.field} className="break-words">
              <span className="font-medium">{c.field}</span>{" "}
              {c.kind === "changed" && <del className="font-mono text-red-700">{c.before}</del>}
              {" → "}
              <ins className="font-mono text-green-800 no-underline">{c.after}</ins>
            </li>
          ))}
        </ul>
      )}
      <Field label="Reason (kept in the audit log)" htmlFor="change-reason" error={error ? { message: error } : undefined}>
        <Input
          id="change-reason"
          maxLength={500}
          placeholder="Weekend sale, balance fix, …"
          value={reason}
          aria-invalid={error ? true : undefined}
          onChange={(e) => setReason(e.target.value)}
        />
      </Field>
      <div className="flex justify-end gap-2">
        <Button type="button" variant="secondary" onClick={o.onBack}>
          Back
        </Button>
        <Button type="submit" disabled={saving || changes.length === 0}>
          Confirm change
        </Button>
      </div>
    </form>
  );
}

/**
 * Edit and Delete for one definition. Edit opens its form in a dialog (`children`: its submit
 * calls `saved` after the update, its Cancel `cancel`); Delete asks first, and a refusal
 * (`409 IN_USE`: which purchases refer to it, or that players hold it) stays in the question's
 * dialog and in a toast. `onChanged` refetches the list after either.
 */
function RowActions({
  kind,
  id,
  deleteDescription,
  onDelete,
  onChanged,
  onClose,
  children,
}: {
  kind: DefinitionKind;
  id: string;
  deleteDescription: string;
  onDelete: () => Promise<unknown>;
  onChanged: () => Promise<unknown>;
  /** The edit dialog closed (saved or not). */
  onClose?: () => void;
  children: (edit: { saved: () => Promise<void>; cancel: () => void }) => ReactNode;
}) {
  const [editing, setEditingState] = useState(false);
  const setEditing = (open: boolean) => {
    setEditingState(open);
    if (!open) onClose?.();
  };
  const [refusal, setRefusal] = useState<string | null>(null);
  const saved = async () => {
    toast.success(`Saved the ${kind} "${id}".`);
    setEditing(false);
    await onChanged();
  };
  return (
    <div className="flex justify-end gap-2">
      <Dialog open={editing} onOpenChange={setEditing}>
        <DialogTrigger asChild>
          <Button variant="secondary" aria-label={`Edit ${id}`}>
            <Pencil className="size-4 sm:mr-1" aria-hidden />
            <span className="max-sm:sr-only">Edit</span>
          </Button>
        </DialogTrigger>
        <DialogContent wide>
          <DialogHeader>
            <DialogTitle>
              Edit the {kind} <span className="font-mono">{id}</span>
            </DialogTitle>
            <DialogDescription>The id is fixed; everything else can change.</DialogDescription>
          </DialogHeader>
          {children({ saved, cancel: () => setEditing(false) })}
        </DialogContent>
      </Dialog>
      <ConfirmDialog
        trigger={
          <Button variant="danger" aria-label={`Delete ${id}`}>
            <Trash2 className="size-4 sm:mr-1" aria-hidden />
            <span className="max-sm:sr-only">Delete</span>
          </Button>
        }
        onOpenChange={(open) => !open && setRefusal(null)}
        title={`Delete the ${kind} "${id}"?`}
        description={deleteDescription}
        confirmLabel={`Delete ${kind}`}
        error={refusal}
        onConfirm={async () => {
          try {
            await onDelete();
            toast.success(`Deleted the ${kind} "${id}".`);
            await onChanged();
          } catch (error) {
            const message = `${id} cannot be deleted: ${messageOf(error)}`;
            setRefusal(message);
            toast.error(message);
            throw error;
          }
        }}
      />
    </div>
  );
}

/**
 * A definition form's state: the service's schema for a new definition or for a patch (checked
 * with `checkedWith`, so its errors land on the form's fields), the fields of `initial` or
 * `empty`, and `save`, which sends, empties a create form after it, and puts a refusal on its
 * field (`ALREADY_EXISTS` on the id) or on the form.
 */
export function useDefinitionForm<F extends FieldValues & { id: string }, T, New, Patch>(
  props: DefinitionFormProps<T, New, Patch>,
  o: {
    kind: DefinitionKind;
    schemas: { create: z.ZodType<New, F>; edit: z.ZodType<Patch, F> };
    empty: F;
    fieldsOf: (initial: T) => F;
    serverFields: ReadonlyArray<Path<F>>;
  },
) {
  const form = useForm<F, unknown, New | Patch>({
    resolver: zodResolver(props.mode === "edit" ? o.schemas.edit : o.schemas.create, plainly) as never,
    defaultValues: (props.initial === undefined ? o.empty : o.fieldsOf(props.initial)) as DefaultValues<F>,
  });
  const save = async (values: New | Patch) => {
    try {
      if (props.mode === "create") {
        await props.onSubmit(values as New);
        form.reset(o.empty);
      } else await props.onSubmit(values as Patch);
    } catch (error) {
      applyServerError(error, form.setError, o.serverFields, { ALREADY_EXISTS: "id" as Path<F> });
    }
  };
  /** The prefix of the form's input ids: `currency-create-name`, `item-edit-max`. */
  const prefix = `${o.kind}-${props.mode}`;
  return { form, errors: form.formState.errors, save, prefix };
}

/** The id: typed in a create form, shown but fixed in an edit form. */
export function IdField<F extends FieldValues & { id: string }>({
  kind,
  prefix,
  form,
  fixed,
  placeholder,
}: {
  kind: DefinitionKind;
  prefix: string;
  // biome-ignore lint/suspicious/noExplicitAny: the form's output type does not matter to its id input
  form: UseFormReturn<F, unknown, any>;
  fixed: string | undefined;
  placeholder: string;
}) {
  const error = form.formState.errors.id as FieldError | undefined;
  return (
    <Field label={`${capitalized(kind)} id`} htmlFor={`${prefix}-id`} error={error}>
      {fixed !== undefined ? (
        <Input id={`${prefix}-id`} value={fixed} disabled readOnly />
      ) : (
        <Input
          id={`${prefix}-id`}
          placeholder={placeholder}
          autoComplete="off"
          aria-invalid={error ? true : undefined}
          {...form.register("id" as Path<F>)}
        />
      )}
    </Field>
  );
}

/** "Create currency" or "Save currency", and Cancel where the form has one (the edit dialog). */
export function DefinitionFormButtons({
  kind,
  mode,
  submitting,
  onCancel,
  className = "mt-1 flex gap-2",
}: {
  kind: DefinitionKind;
  mode: "create" | "edit";
  submitting: boolean;
  onCancel: (() => void) | undefined;
  className?: string;
}) {
  return (
    <div className={className}>
      <Button type="submit" disabled={submitting}>
        {mode === "create" ? <Plus className="mr-1 size-4" aria-hidden /> : <Save className="mr-1 size-4" aria-hidden />}
        {mode === "create" ? `Create ${kind}` : `Save ${kind}`}
      </Button>
      {onCancel && (
        <Button variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
      )}
    </div>
  );
}
