"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Ban, Coins } from "lucide-react";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { useTRPC } from "@/components/providers/trpc";
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle, DialogTrigger } from "@/components/ui/dialog";
import { Field, FieldError } from "@/components/ui/field";
import { Button, Input } from "@/components/ui/primitives";
import { SelectMenu } from "@/components/ui/select";
import { ZAdjustReason, ZAmount } from "@/server/services/economy/schemas";
import { ZBanReason } from "@/server/services/players/schemas";
import { applyServerError } from "./errors";
import { plainly } from "./plain-issues";

/**
 * Bulk ban and bulk grant on the selected players: one reason for all; the server applies the
 * single action to each player (each audited on its own) and answers per player. A submit is
 * named by a fresh batch id, so a retry after a lost answer does not ban or grant twice.
 */
type Outcome = { playerId: string; outcome: "done" | "already" | "failed"; code?: string; message?: string };

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function summarise(outcomes: Outcome[], verb: string): void {
  const done = outcomes.filter((o) => o.outcome === "done").length;
  const already = outcomes.filter((o) => o.outcome === "already").length;
  const failed = outcomes.filter((o) => o.outcome === "failed");
  const parts = [`${verb} ${plural(done, "player")}`];
  if (already) parts.push(`${already} already done by this submit`);
  if (failed.length) parts.push(`${failed.length} failed (${[...new Set(failed.map((f) => f.message))].join("; ")})`);
  (failed.length ? toast.warning : toast.success)(`${parts.join(", ")}.`);
}

const ZBulkBanForm = z.object({ reason: ZBanReason, removeEntries: z.boolean() });

export function BulkBan({ projectId, playerIds, onDone }: { projectId: string; playerIds: string[]; onDone: () => void }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const [batch, setBatch] = useState(() => crypto.randomUUID());
  const ban = useMutation(trpc.players.bulkBan.mutationOptions());
  const form = useForm({ resolver: zodResolver(ZBulkBanForm, plainly), defaultValues: { reason: "", removeEntries: false } });
  const errors = form.formState.errors;
  const submit = form.handleSubmit(async ({ reason, removeEntries }) => {
    try {
      summarise(await ban.mutateAsync({ projectId, playerIds, batch, reason, removeEntries }), "Banned");
      setOpen(false);
      setBatch(crypto.randomUUID());
      form.reset();
      onDone();
    } catch (error) {
      applyServerError(error, form.setError, ["reason"]);
    }
  });
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="danger">
          <Ban className="mr-1 size-4" aria-hidden />
          Ban {plural(playerIds.length, "player")}…
        </Button>
      </DialogTrigger>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Ban {plural(playerIds.length, "player")}?</DialogTitle>
          <DialogDescription>
            Each player's sessions end now and they cannot sign in until unbanned; their leaderboard entries are hidden until then. Every
            ban is recorded in the audit log on its own.
          </DialogDescription>
        </DialogHeader>
        <form noValidate onSubmit={submit} className="space-y-4">
          <Field label="Reason" htmlFor="bulk-ban-reason" error={errors.reason} hint="Shown to each player.">
            <Input id="bulk-ban-reason" aria-invalid={errors.reason ? true : undefined} {...form.register("reason")} />
          </Field>
          <label className="flex items-center gap-2 text-sm text-zinc-700">
            <input type="checkbox" className="size-4 accent-zinc-900" {...form.register("removeEntries")} />
            Also remove their leaderboard entries for good (otherwise hidden until the ban ends)
          </label>
          <FieldError error={errors.root?.server} />
          <DialogFooter>
            <Button variant="secondary" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button type="submit" variant="danger" disabled={form.formState.isSubmitting}>
              Ban {plural(playerIds.length, "player")}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

const ZBulkGrantForm = z.object({
  currencyId: z.string().min(1, "Pick a currency."),
  amount: z
    .string()
    .trim()
    .regex(/^\d+$/, "A whole number, 1 or more.")
    .transform(Number)
    .pipe(ZAmount.min(1, "A whole number, 1 or more.").max(Number.MAX_SAFE_INTEGER, "That amount is too large.")),
  reason: ZAdjustReason.min(1, "Give a reason (kept in the ledger and the audit log)."),
});

export function BulkGrant({ projectId, playerIds, onDone }: { projectId: string; playerIds: string[]; onDone: () => void }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const [batch, setBatch] = useState(() => crypto.randomUUID());
  const currencies = useQuery({ ...trpc.economy.currencies.queryOptions({ projectId }), enabled: open });
  const grant = useMutation(trpc.players.bulkGrant.mutationOptions());
  const form = useForm({ resolver: zodResolver(ZBulkGrantForm, plainly), defaultValues: { currencyId: "", amount: "", reason: "" } });
  const errors = form.formState.errors;
  const currencyId = form.watch("currencyId");
  const submit = form.handleSubmit(async ({ currencyId, amount, reason }) => {
    try {
      summarise(await grant.mutateAsync({ projectId, playerIds, batch, reason, currencies: [{ currencyId, amount }] }), "Granted to");
      setOpen(false);
      setBatch(crypto.randomUUID());
      form.reset();
      onDone();
    } catch (error) {
      applyServerError(error, form.setError, ["reason"]);
    }
  });
  const options = (currencies.data ?? []).map((c) => ({ value: c.id, label: `${c.name} (${c.id})` }));
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="secondary">
          <Coins className="mr-1 size-4" aria-hidden />
          Grant to {plural(playerIds.length, "player")}…
        </Button>
      </DialogTrigger>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Grant currency to {plural(playerIds.length, "player")}</DialogTitle>
          <DialogDescription>
            Each player gets the amount as an operator grant: one ledger row and one audit entry per player.
          </DialogDescription>
        </DialogHeader>
        <form noValidate onSubmit={submit} className="space-y-4">
          <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
            <Field label="Currency" htmlFor="bulk-grant-currency" error={errors.currencyId}>
              <SelectMenu
                id="bulk-grant-currency"
                aria-label="Currency"
                aria-invalid={errors.currencyId ? true : undefined}
                value={currencyId}
                onValueChange={(v) => form.setValue("currencyId", v, { shouldValidate: true })}
                options={options}
              />
            </Field>
            <Field label="Amount" htmlFor="bulk-grant-amount" error={errors.amount}>
              <Input
                id="bulk-grant-amount"
                inputMode="numeric"
                aria-invalid={errors.amount ? true : undefined}
                {...form.register("amount")}
              />
            </Field>
          </div>
          <Field label="Reason" htmlFor="bulk-grant-reason" error={errors.reason} hint="Kept in each ledger row and audit entry.">
            <Input id="bulk-grant-reason" aria-invalid={errors.reason ? true : undefined} {...form.register("reason")} />
          </Field>
          <FieldError error={errors.root?.server} />
          <DialogFooter>
            <Button variant="secondary" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button type="submit" disabled={form.formState.isSubmitting}>
              Grant to {plural(playerIds.length, "player")}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
