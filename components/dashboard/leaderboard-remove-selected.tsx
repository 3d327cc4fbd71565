"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation } from "@tanstack/react-query";
import { Trash2 } from "lucide-react";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { useTRPC } from "@/components/providers/trpc";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle, DialogTrigger } from "@/components/ui/dialog";
import { Field, FieldError } from "@/components/ui/field";
import { Button, Input } from "@/components/ui/primitives";
import { ZRemoveEntriesReason } from "@/server/services/leaderboards/board-schemas";
import { applyServerError } from "./errors";
import { plainly } from "./plain-issues";

const ZRemoveForm = z.object({ reason: ZRemoveEntriesReason });
const entries = (n: number) => `${n} ${n === 1 ? "entry" : "entries"}`;

/**
 * "Remove selected": the selected entries (visible or hidden by a ban) of one period go for good
 * in one audited command, after a dialog that asks for the reason.
 */
export function RemoveSelectedEntries({
  projectId,
  leaderboardId,
  period,
  playerIds,
  onDone,
}: {
  projectId: string;
  leaderboardId: string;
  period?: string;
  playerIds: string[];
  onDone: () => Promise<unknown>;
}) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const remove = useMutation(trpc.leaderboards.removeEntries.mutationOptions());
  const form = useForm({ resolver: zodResolver(ZRemoveForm, plainly), defaultValues: { reason: "" } });
  const errors = form.formState.errors;
  const submit = form.handleSubmit(async ({ reason }) => {
    try {
      const done = await remove.mutateAsync({ projectId, id: leaderboardId, playerIds, reason, ...(period ? { period } : {}) });
      toast.success(`Removed ${entries(done.removed)}${done.hidden.length ? ` (${done.hidden.length} hidden by a ban)` : ""}.`);
      setOpen(false);
      form.reset();
      await onDone();
    } catch (error) {
      applyServerError(error, form.setError, ["reason"]);
    }
  });
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="danger" disabled={playerIds.length === 0}>
          <Trash2 className="mr-1 size-4" aria-hidden />
          Remove selected ({playerIds.length})
        </Button>
      </DialogTrigger>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Remove {entries(playerIds.length)}?</DialogTitle>
          <DialogDescription>
            They leave this period for good, hidden ones too; everyone below moves up. One audit row records the players and the reason.
          </DialogDescription>
        </DialogHeader>
        <form noValidate onSubmit={submit} className="space-y-4">
          <Field label="Reason" htmlFor="remove-entries-reason" error={errors.reason} hint="Kept in the audit log.">
            <Input id="remove-entries-reason" aria-invalid={errors.reason ? true : undefined} {...form.register("reason")} />
          </Field>
          <FieldError error={errors.root?.server} />
          <DialogFooter>
            <Button variant="secondary" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button type="submit" variant="danger" disabled={form.formState.isSubmitting}>
              Remove {entries(playerIds.length)}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
