"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import { useMemo, useState } from "react";
import { type Control, type FieldErrors, useFieldArray } from "react-hook-form";
import { z } from "zod";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { columnsFor, type DataTableColumns } from "@/components/ui/data-table";
import { Field, FieldError } from "@/components/ui/field";
import { Button, Input } from "@/components/ui/primitives";
import {
  isCurrencyLine,
  type Line,
  MAX_AMOUNT,
  purchaseLinesProblem,
  ZAmount,
  ZPurchaseInput,
  ZPurchaseUpdate,
} from "@/server/services/economy/schemas";
import { DefinitionFormButtons, type DefinitionFormProps, DefinitionsCard, IdField, useDefinitionForm } from "./definitions-kit";
import { checkedWith } from "./form-schema";
import { countOf } from "./format";
import { FormLine } from "./line-editor";
import { plainly } from "./plain-issues";

type Purchase = RouterOutputs["economy"]["purchases"][number];

type Names = ReadonlyMap<string, string>;
/** "30 Coins", "1 Shield": the count with the currency's or item's name (its id until the names load). */
const describeLine = (line: Line, names: Names) =>
  isCurrencyLine(line)
    ? countOf(line.amount, names.get(`currency:${line.currencyId}`) ?? line.currencyId)
    : countOf(line.quantity, names.get(`item:${line.itemId}`) ?? line.itemId);

/** A line as the form holds it: "currency:<id>" or "item:<id>", and the amount as typed. */
const ZDraft = z.object({ ref: z.string(), amount: z.string() });
type Draft = z.input<typeof ZDraft>;
const ZPurchaseFields = z.object({ id: z.string(), name: z.string(), costs: z.array(ZDraft), rewards: z.array(ZDraft) });
type PurchaseFields = z.input<typeof ZPurchaseFields>;

const lineOf = (d: Draft): Line => {
  const [kind, id = ""] = d.ref.split(":");
  const amount = Number(d.amount);
  return kind === "currency" ? { currencyId: id, amount } : { itemId: id, quantity: amount };
};
const draftOf = (line: Line): Draft =>
  isCurrencyLine(line)
    ? { ref: `currency:${line.currencyId}`, amount: String(line.amount) }
    : { ref: `item:${line.itemId}`, amount: String(line.quantity) };
/**
 * Each line's pick and amount (the service's amount rule), reported on that line's inputs; once
 * every line is complete, the service's rule for the whole purchase (rewards that are exactly the costs).
 */
const lineProblems = (f: PurchaseFields) => {
  const problems = (["costs", "rewards"] as const).flatMap((name) =>
    f[name].flatMap((d, index) => {
      if (!d.ref) return [{ path: [name, index, "ref"], message: "Pick a currency or an item." }];
      if (d.amount.trim() === "") return [{ path: [name, index, "amount"], message: "Enter an amount." }];
      const amount = ZAmount.safeParse(Number(d.amount), plainly);
      return amount.success ? [] : [{ path: [name, index, "amount"], message: amount.error.issues[0]?.message ?? "Enter an amount." }];
    }),
  );
  if (problems.length > 0) return problems;
  const whole = purchaseLinesProblem(f.costs.map(lineOf), f.rewards.map(lineOf));
  return whole ? [{ path: ["rewards"], message: whole }] : [];
};
const ZNewPurchase = checkedWith(
  ZPurchaseFields,
  (f) => ({ id: f.id, name: f.name, costs: f.costs.map(lineOf), rewards: f.rewards.map(lineOf) }),
  ZPurchaseInput,
  { check: lineProblems },
);
const ZPurchasePatch = checkedWith(
  ZPurchaseFields,
  (f) => ({ name: f.name, costs: f.costs.map(lineOf), rewards: f.rewards.map(lineOf) }),
  ZPurchaseUpdate,
  { check: lineProblems },
);
type NewPurchase = z.output<typeof ZNewPurchase>;
type PurchasePatch = z.output<typeof ZPurchasePatch>;
type PurchaseFormProps = DefinitionFormProps<Purchase, NewPurchase, PurchasePatch>;
const col = columnsFor<Purchase>();

export function PurchasesCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(trpc.economy.createPurchase.mutationOptions());
  const update = useMutation(trpc.economy.updatePurchase.mutationOptions());
  const remove = useMutation(trpc.economy.deletePurchase.mutationOptions());
  const purchases = useQuery(trpc.economy.purchases.queryOptions({ projectId }));
  const currencies = useQuery(trpc.economy.currencies.queryOptions({ projectId }));
  const items = useQuery(trpc.economy.items.queryOptions({ projectId }));
  const columns = useMemo<DataTableColumns<Purchase>>(() => {
    const names: Names = new Map([
      ...(currencies.data ?? []).map((c) => [`currency:${c.id}`, c.name] as const),
      ...(items.data ?? []).map((i) => [`item:${i.id}`, i.name] as const),
    ]);
    return [
      col.accessor((p) => p.costs.map((l) => describeLine(l, names)).join(", ") || "Free", {
        id: "costs",
        header: "Costs",
        enableSorting: false,
      }),
      col.accessor((p) => p.rewards.map((l) => describeLine(l, names)).join(", ") || "—", {
        id: "rewards",
        header: "Rewards",
        enableSorting: false,
      }),
    ];
  }, [currencies.data, items.data]);
  return (
    <DefinitionsCard<Purchase, NewPurchase, PurchasePatch>
      kind="purchase"
      title="Purchases"
      query={purchases}
      columns={columns}
      rowTestId="purchase-row"
      minWidth={560}
      canEdit={canEdit}
      deleteDescription="Players can no longer buy it. Their ledger keeps the purchases already made."
      refresh={() => queryClient.invalidateQueries({ queryKey: trpc.economy.purchases.queryKey({ projectId }) })}
      create={(purchase) => create.mutateAsync({ projectId, purchase })}
      update={(id, patch, reason) => update.mutateAsync({ projectId, id, patch, reason })}
      remove={(id) => remove.mutateAsync({ projectId, id })}
      form={(props) => <PurchaseForm projectId={projectId} {...props} />}
    />
  );
}

type Option = { value: string; label: string };
const EMPTY: PurchaseFields = { id: "", name: "", costs: [], rewards: [] };

function PurchaseForm(props: PurchaseFormProps & { projectId: string }) {
  const { projectId, mode, initial, onCancel } = props;
  const trpc = useTRPC();
  const currencies = useQuery(trpc.economy.currencies.queryOptions({ projectId }));
  const items = useQuery(trpc.economy.items.queryOptions({ projectId }));
  const {
    form,
    errors,
    save,
    prefix: p,
  } = useDefinitionForm(props, {
    kind: "purchase",
    schemas: { create: ZNewPurchase, edit: ZPurchasePatch },
    empty: EMPTY,
    fieldsOf: (purchase) => ({
      id: purchase.id,
      name: purchase.name,
      costs: purchase.costs.map(draftOf),
      rewards: purchase.rewards.map(draftOf),
    }),
    serverFields: ["id", "name"],
  });
  const options: Option[] = [
    ...(currencies.data ?? []).map((c) => ({ value: `currency:${c.id}`, label: `Currency: ${c.name} (${c.id})` })),
    ...(items.data ?? []).map((i) => ({ value: `item:${i.id}`, label: `Item: ${i.name} (${i.id})` })),
  ];
  // A purchase without costs is a gift players take for nothing: allowed, but asked about first.
  const [free, setFree] = useState<NewPurchase | PurchasePatch | null>(null);
  const submit = form.handleSubmit(async (values) => {
    if ((values.costs ?? initial?.costs ?? []).length === 0) setFree(values);
    else await save(values);
  });
  return (
    <form onSubmit={submit} noValidate className="space-y-3">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <IdField kind="purchase" prefix={p} form={form} fixed={initial?.id} placeholder="starter-pack" />
        <Field label="Purchase name" htmlFor={`${p}-name`} error={errors.name}>
          <Input id={`${p}-name`} placeholder="Starter pack" aria-invalid={errors.name ? true : undefined} {...form.register("name")} />
        </Field>
      </div>
      {options.length === 0 ? (
        <p className="text-sm text-zinc-500">Create a currency or an item first: costs and rewards pick from them.</p>
      ) : (
        <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
          <Lines title="Costs" name="costs" control={form.control} errors={errors} options={options} />
          <Lines title="Rewards" name="rewards" control={form.control} errors={errors} options={options} />
        </div>
      )}
      <FieldError error={errors.root?.server} />
      <ConfirmDialog
        open={free !== null}
        onOpenChange={(open) => !open && setFree(null)}
        tone="primary"
        title={`${mode === "create" ? "Create" : "Save"} a purchase that costs nothing?`}
        description={`Players can take "${free?.name ?? initial?.name ?? ""}" for free, as often as the game lets them. That suits a daily gift; otherwise add a cost.`}
        confirmLabel={mode === "create" ? "Create free purchase" : "Save free purchase"}
        onConfirm={async () => {
          if (free) await save(free);
        }}
      />
      <DefinitionFormButtons
        kind="purchase"
        mode={mode}
        submitting={form.formState.isSubmitting}
        onCancel={onCancel}
        className="flex gap-2"
      />
    </form>
  );
}

function Lines({
  title,
  name,
  control,
  errors,
  options,
}: {
  title: "Costs" | "Rewards";
  name: "costs" | "rewards";
  control: Control<PurchaseFields, unknown, NewPurchase | PurchasePatch>;
  errors: FieldErrors<PurchaseFields>;
  options: Option[];
}) {
  const lines = useFieldArray({ control, name });
  const lineErrors = errors[name];
  return (
    <fieldset className="min-w-0 rounded-md border border-zinc-200 p-3">
      <legend className="px-1 text-sm font-medium text-zinc-700">{title}</legend>
      {lines.fields.length === 0 && <p className="mb-2 text-sm text-zinc-500">None.</p>}
      {lines.fields.map((line, index) => (
        <FormLine
          key={line.id}
          className="mb-2"
          control={control}
          names={{ ref: `${name}.${index}.ref`, amount: `${name}.${index}.amount` }}
          options={options}
          labels={{
            pick: `${title} line ${index + 1}`,
            amount: `${title} amount ${index + 1}`,
            remove: `Remove ${title.toLowerCase()} line ${index + 1}`,
          }}
          max={MAX_AMOUNT}
          errors={lineErrors?.[index]}
          onRemove={() => lines.remove(index)}
        />
      ))}
      <FieldError error={lineErrors?.root ?? (lineErrors as { message?: string } | undefined)} />
      <Button variant="secondary" onClick={() => lines.append({ ref: "", amount: "" })}>
        <Plus className="mr-1 size-4" aria-hidden />
        Add {title === "Costs" ? "a cost" : "a reward"}
      </Button>
    </fieldset>
  );
}
