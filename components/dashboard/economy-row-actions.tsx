"use client";

import { Pencil, Trash2 } from "lucide-react";
import { type ReactNode, useState } from "react";
import { toast } from "sonner";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle, DialogTrigger } from "@/components/ui/dialog";
import { Button } from "@/components/ui/primitives";
import { messageOf } from "./errors";

/**
 * Edit and Delete for a currency, item or purchase. Edit opens the definition's form in a dialog
 * (`children(close)`); Delete asks first, and a refusal (`409 IN_USE`: which purchases refer to
 * it, or that players hold it) stays in the question's dialog and in a toast.
 */
export function RowActions({
  kind,
  id,
  deleteDescription,
  onDelete,
  children,
}: {
  kind: "currency" | "item" | "purchase";
  id: string;
  deleteDescription: string;
  onDelete: () => Promise<unknown>;
  children: (close: () => void) => ReactNode;
}) {
  const [editing, setEditing] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  return (
    <div className="flex justify-end gap-2">
      <Dialog open={editing} onOpenChange={setEditing}>
        <DialogTrigger asChild>
          <Button variant="secondary" aria-label={`Edit ${id}`}>
            <Pencil className="size-4 sm:mr-1" aria-hidden />
            <span className="max-sm:sr-only">Edit</span>
          </Button>
        </DialogTrigger>
        <DialogContent className="max-w-2xl">
          <DialogHeader>
            <DialogTitle>
              Edit the {kind} <span className="font-mono">{id}</span>
            </DialogTitle>
            <DialogDescription>The id is fixed; everything else can change.</DialogDescription>
          </DialogHeader>
          {children(() => setEditing(false))}
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
