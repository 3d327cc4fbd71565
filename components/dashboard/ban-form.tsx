"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { Ban } from "lucide-react";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { z } from "zod";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { Field, FieldError } from "@/components/ui/field";
import { Button, Input } from "@/components/ui/primitives";
import { ZBanReason } from "@/server/services/players/schemas";
import { applyServerError } from "./errors";
import { when } from "./format";
import { plainly } from "./plain-issues";

/** The reason is the service's rule; the end is a local date-time field, empty meaning "until unbanned". */
const ZBanForm = z.object({
  reason: ZBanReason,
  until: z
    .string()
    .refine((s) => s === "" || !Number.isNaN(new Date(s).getTime()), "Not a date.")
    .refine((s) => s === "" || new Date(s).getTime() > Date.now(), "The end must be in the future."),
  removeEntries: z.boolean(),
});
type BanValues = z.output<typeof ZBanForm>;

/**
 * Ban with a reason and an optional end: the form validates, then a dialog asks before the player's
 * sessions end. The ban hides the player's leaderboard entries; ticked, it removes them for good.
 */
export function BanForm({ onBan }: { onBan: (ban: { reason: string; until: string | null; removeEntries: boolean }) => Promise<unknown> }) {
  const form = useForm({ resolver: zodResolver(ZBanForm, plainly), defaultValues: { reason: "", until: "", removeEntries: false } });
  const [pending, setPending] = useState<BanValues | null>(null);
  const errors = form.formState.errors;
  const ban = async () => {
    if (!pending) return;
    try {
      await onBan({
        reason: pending.reason,
        until: pending.until ? new Date(pending.until).toISOString() : null,
        removeEntries: pending.removeEntries,
      });
      form.reset();
    } catch (error) {
      applyServerError(error, form.setError, ["reason", "until"]);
    }
  };
  return (
    <form
      noValidate
      onSubmit={form.handleSubmit((values) => setPending(values))}
      className="grid grid-cols-1 gap-3 sm:grid-cols-[minmax(0,1fr)_minmax(0,14rem)_auto]"
    >
      <Field label="Reason" htmlFor="ban-reason" error={errors.reason} hint="Shown to the player.">
        <Input
          id="ban-reason"
          aria-label="Ban reason"
          placeholder="Cheating in ranked"
          aria-invalid={errors.reason ? true : undefined}
          {...form.register("reason")}
        />
      </Field>
      <Field label="Ends" htmlFor="ban-until" error={errors.until} hint="Empty: until unbanned.">
        <Input
          id="ban-until"
          aria-label="Ban ends (empty: until unbanned)"
          type="datetime-local"
          aria-invalid={errors.until ? true : undefined}
          {...form.register("until")}
        />
      </Field>
      <Button type="submit" variant="danger" className="self-start sm:mt-6">
        <Ban className="mr-1 size-4" aria-hidden />
        Ban
      </Button>
      <label className="flex items-center gap-2 text-sm text-zinc-700 sm:col-span-3">
        <input type="checkbox" className="size-4 accent-zinc-900" {...form.register("removeEntries")} />
        Also remove their leaderboard entries for good (otherwise hidden until the ban ends)
      </label>
      <FieldError error={errors.root?.server} />
      <ConfirmDialog
        open={pending !== null}
        onOpenChange={(open) => !open && setPending(null)}
        title="Ban this player?"
        description={`${
          pending?.until
            ? `Their sessions end now; they cannot sign in until ${when(pending.until)}.`
            : "Their sessions end now; they cannot sign in until you unban them."
        } ${pending?.removeEntries ? "Their leaderboard entries are deleted for good." : "Their leaderboard entries are hidden until then."}`}
        confirmLabel="Ban player"
        onConfirm={ban}
      />
    </form>
  );
}
