"use client";

import { Button } from "@/components/ui/primitives";

export function RowActions({ label, onEdit, onDelete }: { label: string; onEdit: () => void; onDelete: () => void }) {
  return (
    <div className="flex flex-col items-end gap-2 sm:flex-row sm:justify-end">
      <Button variant="secondary" aria-label={`Edit ${label}`} onClick={onEdit}>
        Edit
      </Button>
      <Button variant="danger" aria-label={`Delete ${label}`} onClick={onDelete}>
        Delete
      </Button>
    </div>
  );
}
