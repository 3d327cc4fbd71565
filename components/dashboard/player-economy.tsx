"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ChevronDown, Gift, MinusCircle } from "lucide-react";
import { useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Field, FieldError } from "@/components/ui/field";
import { Badge, Button, Card, Input, State } from "@/components/ui/primitives";
import { SelectMenu } from "@/components/ui/select";
import { MAX_AMOUNT, ZAdjustDirection, ZAdjustReason, ZAmount } from "@/server/services/economy/schemas";
import { applyServerError, messageOf } from "./errors";
import { ExportButtons } from "./export-buttons";
import { plainly } from "./plain-issues";
import { When } from "./when";

const signed = (n: number) => (n > 0 ? `+${n.toLocaleString()}` : n.toLocaleString());
type Transaction = RouterOutputs["economy"]["ledger"]["transactions"][number];
const col = columnsFor<Transaction>();
const ledgerColumns: DataTableColumns<Transaction> = [
  col.accessor("kind", {
    header: "Change",
    enableSorting: false,
    cell: ({ row: { original: t } }) => (
      <div>
        <Badge tone={t.kind === "revoke" || t.kind === "subtract" ? "red" : t.kind === "grant" || t.kind === "add" ? "green" : "neutral"}>
          {t.kind}
        </Badge>
        {t.purchaseId && <div className="font-mono text-xs text-zinc-500">{t.purchaseId}</div>}
        <div className="text-xs text-zinc-500">
          <When value={t.createdAt} />
        </div>
      </div>
    ),
  }),
  col.display({
    id: "amounts",
    header: "Amounts",
    cell: ({ row: { original: t } }) => (
      <div className="font-mono text-xs">
        {[
          ...t.currencies.map((c) => `${c.id} ${signed(c.delta)} → ${c.balance.toLocaleString()}`),
          ...t.items.map((i) => `${i.itemId} ${signed(i.delta)} → ${i.quantity.toLocaleString()}`),
        ].map((line) => (
          <div key={line}>{line}</div>
        ))}
      </div>
    ),
  }),
  col.accessor((t) => t.actor.label, {
    id: "who",
    header: "Who",
    enableSorting: false,
    cell: ({ row: { original: t } }) => (
      <div className="min-w-0 break-words">
        <div>{t.actor.label}</div>
        <div className="text-xs text-zinc-500">{t.actor.kind}</div>
      </div>
    ),
  }),
  col.accessor((t) => t.reason ?? "—", { id: "reason", header: "Reason", enableSorting: false }),
  col.accessor((t) => t.requestId ?? "—", {
    id: "request",
    header: "Request",
    enableSorting: false,
    cell: (c) => <span className="break-all font-mono text-xs">{c.getValue()}</span>,
  }),
];

/** A player's balances, inventory and ledger; admins grant and revoke with a reason. */
export function PlayerEconomy({ projectId, playerId, canEdit }: { projectId: string; playerId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ref = { projectId, playerId };
  const holdings = useQuery(trpc.economy.holdings.queryOptions(ref));
  const ledger = useInfiniteQuery(
    trpc.economy.ledger.infiniteQueryOptions({ ...ref, limit: 20 }, { getNextPageParam: (last) => last.nextCursor ?? undefined }),
  );
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.economy.holdings.queryKey(ref) }),
      queryClient.invalidateQueries({ queryKey: trpc.economy.ledger.infiniteQueryKey({ ...ref, limit: 20 }) }),
    ]);
  const transactions = ledger.data?.pages.flatMap((p) => p.transactions) ?? [];

  return (
    <>
      <Card title="Balances and inventory">
        {holdings.isPending ? (
          <State kind="loading">Loading balances…</State>
        ) : holdings.error ? (
          <State kind="error">{messageOf(holdings.error)}</State>
        ) : (
          <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
            <div>
              <h3 className="mb-2 text-sm font-medium text-zinc-700">Currencies</h3>
              {holdings.data.balances.length === 0 ? (
                <State kind="empty">The project has no currencies.</State>
              ) : (
                <ul className="divide-y divide-zinc-100 text-sm">
                  {holdings.data.balances.map((b) => (
                    <li key={b.id} className="flex items-center justify-between gap-2 py-2" data-testid={`balance-${b.id}`}>
                      <span>
                        {b.name} <span className="font-mono text-xs text-zinc-500">{b.id}</span>
                      </span>
                      <span className="font-mono">
                        {b.balance.toLocaleString()} {!b.started && <Badge>not used yet</Badge>}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </div>
            <div>
              <h3 className="mb-2 text-sm font-medium text-zinc-700">Inventory</h3>
              {holdings.data.inventory.length === 0 ? (
                <State kind="empty">No items.</State>
              ) : (
                <ul className="divide-y divide-zinc-100 text-sm">
                  {holdings.data.inventory.map((i) => (
                    <li key={i.itemId} className="flex items-center justify-between gap-2 py-2" data-testid={`inventory-${i.itemId}`}>
                      <span>
                        {i.name} <span className="font-mono text-xs text-zinc-500">{i.itemId}</span>
                      </span>
                      <span className="font-mono">×{i.quantity.toLocaleString()}</span>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          </div>
        )}
      </Card>
      {canEdit && <AdjustForm projectId={projectId} playerId={playerId} balances={holdings.data?.balances} onDone={refresh} />}
      <Card title="Ledger" actions={<ExportButtons projectId={projectId} kind="ledger" label="Export ledger" params={{ playerId }} />}>
        {ledger.isPending ? (
          <State kind="loading">Loading the ledger…</State>
        ) : ledger.error ? (
          <State kind="error">{messageOf(ledger.error)}</State>
        ) : transactions.length === 0 ? (
          <State kind="empty">No economy changes yet.</State>
        ) : (
          <DataTable columns={ledgerColumns} data={transactions} getRowId={(t) => t.id} rowTestId="ledger-row" minWidth={720} />
        )}
        {ledger.hasNextPage && (
          <div className="mt-3 text-center">
            <Button variant="secondary" disabled={ledger.isFetchingNextPage} onClick={() => ledger.fetchNextPage()}>
              <ChevronDown className="mr-1 size-4" aria-hidden />
              Older changes
            </Button>
          </div>
        )}
      </Card>
    </>
  );
}

/** A grant or revoke as the form holds it: the target is "currency:<id>" or "item:<id>", the amount as typed. */
const ZAdjustForm = z.object({
  direction: ZAdjustDirection,
  target: z.string().min(1, "Pick a currency or an item."),
  amount: z
    .string()
    .trim()
    .min(1, "Enter an amount.")
    .transform((text) => Number(text))
    .pipe(ZAmount),
  reason: ZAdjustReason,
});
type AdjustFields = z.input<typeof ZAdjustForm>;
type Adjustment = z.output<typeof ZAdjustForm>;
const DIRECTIONS = [
  { value: "grant", label: "Grant" },
  { value: "revoke", label: "Revoke" },
] as const;

type Balance = RouterOutputs["economy"]["holdings"]["balances"][number];

/** What a grant of a currency can add: its balance, its maximum (null: none) and the room left below it. */
export type Headroom = { name: string; balance: number; max: number | null; room: number | null };

/** The sentence the grant form shows before anything is confirmed. */
export function headroomSentence(h: Headroom): string {
  if (h.max === null || h.room === null) return `Balance ${h.balance.toLocaleString()}; ${h.name} has no maximum balance.`;
  if (h.room === 0) return `Balance ${h.balance.toLocaleString()} of max ${h.max.toLocaleString()}: nothing more can be granted.`;
  return `Balance ${h.balance.toLocaleString()} of max ${h.max.toLocaleString()}: you can grant up to ${h.room.toLocaleString()}.`;
}

/** Why a grant of `amount` is refused before asking (over the headroom), or null. */
export function overHeadroom(h: Headroom, amount: number): string | null {
  if (h.room === null || amount <= h.room) return null;
  return h.room === 0
    ? `${h.name} is at its maximum (${(h.max ?? 0).toLocaleString()}): nothing can be granted.`
    : `That is more than the headroom: ${h.name} is at ${h.balance.toLocaleString()} of max ${(h.max ?? 0).toLocaleString()}, so you can grant up to ${h.room.toLocaleString()}.`;
}

/** One line per submit: validated, then confirmed in a dialog, then one ledger row and one audit entry. */
function AdjustForm({
  projectId,
  playerId,
  balances,
  onDone,
}: {
  projectId: string;
  playerId: string;
  balances: Balance[] | undefined;
  onDone: () => Promise<unknown>;
}) {
  const trpc = useTRPC();
  const currencies = useQuery(trpc.economy.currencies.queryOptions({ projectId }));
  const items = useQuery(trpc.economy.items.queryOptions({ projectId }));
  const adjust = useMutation(trpc.economy.adjust.mutationOptions());
  const [pending, setPending] = useState<Adjustment | null>(null);
  const options = [
    ...(currencies.data ?? []).map((c) => ({ value: `currency:${c.id}`, label: `${c.name} (currency)` })),
    ...(items.data ?? []).map((i) => ({ value: `item:${i.id}`, label: `${i.name} (item)` })),
  ];
  const form = useForm<AdjustFields, unknown, Adjustment>({
    resolver: zodResolver(ZAdjustForm, plainly),
    defaultValues: { direction: "grant", target: "", amount: "", reason: "" },
  });
  const errors = form.formState.errors;
  const direction = form.watch("direction");
  const target = form.watch("target");
  const chosen = target || options[0]?.value || "";
  const labelOf = (ref: string) => options.find((o) => o.value === ref)?.label ?? ref;
  const verb = (d: "grant" | "revoke") => (d === "grant" ? "Grant" : "Revoke");
  const headroomOf = (ref: string): Headroom | null => {
    const [kind, id] = ref.split(":");
    const currency = kind === "currency" ? currencies.data?.find((c) => c.id === id) : undefined;
    const held = balances?.find((b) => b.id === id);
    if (!currency || !held) return null;
    const max = currency.maxBalance;
    return { name: currency.name, balance: held.balance, max, room: max === null ? null : Math.max(0, max - held.balance) };
  };
  const headroom = direction === "grant" ? headroomOf(chosen) : null;
  const pendingHeadroom = pending?.direction === "grant" ? headroomOf(pending.target) : null;
  const ask = (values: Adjustment) => {
    const room = values.direction === "grant" ? headroomOf(values.target) : null;
    const refusal = room ? overHeadroom(room, values.amount) : null;
    if (refusal) {
      form.setError("amount", { type: "headroom", message: refusal });
      return;
    }
    setPending(values);
  };
  const apply = async () => {
    if (!pending) return;
    const [kind, id = ""] = pending.target.split(":");
    try {
      await adjust.mutateAsync({
        projectId,
        playerId,
        direction: pending.direction,
        reason: pending.reason,
        ...(kind === "currency"
          ? { currencies: [{ currencyId: id, amount: pending.amount }] }
          : { items: [{ itemId: id, quantity: pending.amount }] }),
      });
      toast.success(`${pending.direction === "grant" ? "Granted" : "Revoked"} ${pending.amount.toLocaleString()} ${id}.`);
      form.reset({ direction: pending.direction, target: pending.target, amount: "", reason: "" });
      await onDone();
    } catch (error) {
      toast.error(messageOf(error));
      applyServerError(error, form.setError, ["amount", "reason"]);
    }
  };
  return (
    <Card title="Grant or revoke">
      {options.length === 0 ? (
        <State kind="empty">Define currencies or items on the Economy page first.</State>
      ) : (
        <form
          noValidate
          onSubmit={form.handleSubmit(ask)}
          className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-[8rem_minmax(0,1fr)_8rem_minmax(0,2fr)_auto] lg:items-start"
        >
          <Field label="Action" htmlFor="adjust-direction">
            <Controller
              control={form.control}
              name="direction"
              render={({ field }) => (
                <SelectMenu
                  id="adjust-direction"
                  aria-label="Grant or revoke"
                  className="w-full"
                  value={field.value}
                  onValueChange={field.onChange}
                  onBlur={field.onBlur}
                  options={DIRECTIONS}
                />
              )}
            />
          </Field>
          <Field label="What" htmlFor="adjust-target" error={errors.target}>
            <SelectMenu
              id="adjust-target"
              aria-label="Currency or item"
              className="w-full"
              value={chosen}
              onValueChange={(value) => form.setValue("target", value, { shouldValidate: form.formState.isSubmitted })}
              options={options}
            />
          </Field>
          <Field label="Amount" htmlFor="adjust-amount" error={errors.amount}>
            <Input
              id="adjust-amount"
              placeholder="10"
              type="number"
              min={1}
              max={MAX_AMOUNT}
              step={1}
              aria-invalid={errors.amount ? true : undefined}
              {...form.register("amount")}
            />
          </Field>
          <Field label="Reason" htmlFor="adjust-reason" error={errors.reason} hint="Kept in the ledger and the audit log.">
            <Input
              id="adjust-reason"
              placeholder="Support ticket 42"
              aria-invalid={errors.reason ? true : undefined}
              {...form.register("reason")}
            />
          </Field>
          <Button
            type="submit"
            variant={direction === "revoke" ? "danger" : "primary"}
            className="self-start lg:mt-6"
            onClick={() => {
              if (!target && chosen) form.setValue("target", chosen);
            }}
          >
            {direction === "grant" ? <Gift className="mr-1 size-4" aria-hidden /> : <MinusCircle className="mr-1 size-4" aria-hidden />}
            {verb(direction)}
          </Button>
        </form>
      )}
      {headroom && (
        <p className="mt-2 text-sm text-zinc-600" data-testid="grant-headroom">
          {headroomSentence(headroom)}
        </p>
      )}
      <FieldError error={errors.root?.server} />
      <ConfirmDialog
        open={pending !== null}
        onOpenChange={(open) => !open && setPending(null)}
        title={pending ? `${verb(pending.direction)} ${pending.amount.toLocaleString()} × ${labelOf(pending.target)}?` : ""}
        description={
          pending
            ? `${pendingHeadroom ? `${headroomSentence(pendingHeadroom)} ` : ""}Reason: ${pending.reason}. One ledger row and one audit entry record it under your e-mail.`
            : ""
        }
        confirmLabel={pending ? verb(pending.direction) : "Confirm"}
        tone={pending?.direction === "revoke" ? "danger" : "primary"}
        onConfirm={apply}
      />
    </Card>
  );
}
