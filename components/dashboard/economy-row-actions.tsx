"use client";

import { Pencil, Trash2 } from "lucide-react";
import { type ReactNode, useState } from "react";
import { toast } from "sonner";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle, DialogTrigger } from "@/components/ui/dialog";
import { Button, Card, State } from "@/components/ui/primitives";
import { messageOf } from "./errors";

/** A definition's name above its id (the first column of the currencies, items and purchases tables). */
export function NameWithId({ name, id }: { name: string; id: string }) {
  return (
    <div className="min-w-0">
      <div>{name}</div>
      <div className="break-all font-mono text-xs text-zinc-500">{id}</div>
    </div>
  );
}

/**
 * One kind of definition (currencies, items or purchases): its table, with loading, error and
 * empty states, and below it the create form for operators who may edit.
 */
export function DefinitionsCard<T extends { id: string }>({
  title,
  query,
  columns,
  rowTestId,
  minWidth,
  createForm,
}: {
  title: string;
  query: { isPending: boolean; error: unknown; data: T[] | undefined };
  columns: DataTableColumns<T>;
  rowTestId: string;
  minWidth: number;
  createForm: ReactNode;
}) {
  const noun = title.toLowerCase();
  return (
    <Card title={title}>
      {query.isPending ? (
        <State kind="loading">Loading {noun}…</State>
      ) : query.error ? (
        <State kind="error">{messageOf(query.error)}</State>
      ) : !query.data?.length ? (
        <State kind="empty">No {noun} yet.</State>
      ) : (
        <DataTable columns={columns} data={query.data} getRowId={(row) => row.id} rowTestId={rowTestId} minWidth={minWidth} />
      )}
      {createForm && <div className="mt-4 rounded-md border border-dashed border-zinc-300 p-3">{createForm}</div>}
    </Card>
  );
}

/**
 * Edit and Delete for a currency, item or purchase. Edit opens the definition's form in a dialog
 * (`children`: its submit calls `saved` after the update, its Cancel `cancel`); Delete asks first,
 * and a refusal (`409 IN_USE`: which purchases refer to it, or that players hold it) stays in the
 * question's dialog and in a toast. `onChanged` refetches the list after either.
 */
export function RowActions({
  kind,
  id,
  deleteDescription,
  onDelete,
  onChanged,
  children,
}: {
  kind: "currency" | "item" | "purchase";
  id: string;
  deleteDescription: string;
  onDelete: () => Promise<unknown>;
  onChanged: () => Promise<unknown>;
  children: (edit: { saved: () => Promise<void>; cancel: () => void }) => ReactNode;
}) {
  const [editing, setEditing] = useState(false);
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
