"use client";

import { Button } from "@/components/ui/primitives";

export function RowActions({ label, onEdit, onDelete }: { label: string; onEdit: () => void; onDelete: () => void }) {
  return (
    <div className="flex justify-end gap-2">
      <Button variant="secondary" aria-label={`Edit ${label}`} onClick={onEdit}>
        Edit
      </Button>
      <Button variant="danger" aria-label={`Delete ${label}`} onClick={onDelete}>
        Delete
      </Button>
    </div>
  );
}
