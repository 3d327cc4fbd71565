"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { z } from "zod";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { columnsFor, type DataTableColumns } from "@/components/ui/data-table";
import { Field, FieldError } from "@/components/ui/field";
import { Badge, Input } from "@/components/ui/primitives";
import { MAX_AMOUNT, ZCurrencyInput, ZCurrencyUpdate, ZItemInput, ZItemUpdate } from "@/server/services/economy/schemas";
import { DefinitionFormButtons, type DefinitionFormProps, DefinitionsCard, IdField, useDefinitionForm } from "./definitions-kit";
import { EconomyAnalytics } from "./economy-analytics";
import { PurchasesCard } from "./economy-purchases";
import { FinanceExports } from "./finance-exports";
import { checkedWith } from "./form-schema";
import { useProject } from "./project-context";

/**
 * Currencies, items and purchases of a project: create, edit and delete with the services' rules;
 * then what moved (sources and sinks per day) and finance's downloads.
 */
export function Economy({ projectId }: { projectId: string }) {
  const { canEdit } = useProject();
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Economy</h1>
      <CurrenciesCard projectId={projectId} canEdit={canEdit} />
      <ItemsCard projectId={projectId} canEdit={canEdit} />
      <PurchasesCard projectId={projectId} canEdit={canEdit} />
      <EconomyAnalytics projectId={projectId} />
      <FinanceExports projectId={projectId} />
    </div>
  );
}

/** A number as typed: empty is `empty` (none, or the default), anything else the number it reads as. */
const numberText = (text: string, empty: number | null | undefined) => (text.trim() === "" ? empty : Number(text));

type Currency = RouterOutputs["economy"]["currencies"][number];

/**
 * Under an edit form's maximum: while the typed maximum is below the current one (or the first
 * one), how many players hold more — they keep it, and only decreases are accepted until they
 * are below. Asked 300 ms after typing stops.
 */
function LoweredMaxWarning(o: { projectId: string; kind: "currency" | "item"; id: string; current: number | null; typed: string }) {
  const trpc = useTRPC();
  const max = numberText(o.typed, null) ?? null;
  const lowered = max !== null && Number.isSafeInteger(max) && max >= 0 && (o.current === null || max < o.current) ? max : null;
  const [asked, setAsked] = useState<number | null>(null);
  useEffect(() => {
    const timer = setTimeout(() => setAsked(lowered), 300);
    return () => clearTimeout(timer);
  }, [lowered]);
  const above = useQuery({
    ...trpc.economy.holdersAbove.queryOptions({ projectId: o.projectId, kind: o.kind, id: o.id, max: asked ?? 0 }),
    enabled: asked !== null && asked === lowered,
  });
  if (lowered === null || asked !== lowered || !above.data || above.data.players === 0) return null;
  const n = above.data.players;
  return (
    <p role="status" data-testid="lowered-max-warning" className="text-sm text-amber-800">
      {n.toLocaleString()} {n === 1 ? "player holds" : "players hold"} more than {lowered.toLocaleString()}. They keep it; only decreases
      are accepted until they are below.
    </p>
  );
}
type CurrencyFields = { id: string; name: string; initialBalance: string; maxBalance: string; clientWritable: boolean };
const ZCurrencyFields = z.object({
  id: z.string(),
  name: z.string(),
  initialBalance: z.string(),
  maxBalance: z.string(),
  clientWritable: z.boolean(),
});
const currencyOf = (f: CurrencyFields) => ({
  name: f.name,
  initialBalance: numberText(f.initialBalance, 0) ?? 0,
  maxBalance: numberText(f.maxBalance, null),
  clientWritable: f.clientWritable,
});
/** The form's text, checked with the service's schema on what would be sent (its errors land on the same field names). */
const ZNewCurrency = checkedWith(ZCurrencyFields, (f) => ({ id: f.id, ...currencyOf(f) }), ZCurrencyInput);
const ZCurrencyPatch = checkedWith(ZCurrencyFields, currencyOf, ZCurrencyUpdate);
type NewCurrency = z.output<typeof ZNewCurrency>;
type CurrencyPatch = z.output<typeof ZCurrencyPatch>;
type CurrencyFormProps = DefinitionFormProps<Currency, NewCurrency, CurrencyPatch>;
const currencyCol = columnsFor<Currency>();
const currencyColumns: DataTableColumns<Currency> = [
  currencyCol.accessor("initialBalance", { header: "Initial", cell: (c) => c.getValue().toLocaleString() }),
  currencyCol.accessor((c) => c.maxBalance ?? -1, {
    id: "max",
    header: "Max",
    cell: (c) => c.row.original.maxBalance?.toLocaleString() ?? "none",
  }),
  currencyCol.accessor("clientWritable", {
    header: "Writes",
    cell: (c) => (c.getValue() ? <Badge>clients</Badge> : <Badge tone="red">server only</Badge>),
  }),
];

function CurrenciesCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(trpc.economy.createCurrency.mutationOptions());
  const update = useMutation(trpc.economy.updateCurrency.mutationOptions());
  const remove = useMutation(trpc.economy.deleteCurrency.mutationOptions());
  const currencies = useQuery(trpc.economy.currencies.queryOptions({ projectId }));
  return (
    <DefinitionsCard<Currency, NewCurrency, CurrencyPatch>
      kind="currency"
      title="Currencies"
      query={currencies}
      columns={currencyColumns}
      rowTestId="currency-row"
      minWidth={600}
      canEdit={canEdit}
      deleteDescription="Wallets that were never used go with it. A currency that a purchase refers to or a player holds is not deleted."
      refresh={() => queryClient.invalidateQueries({ queryKey: trpc.economy.currencies.queryKey({ projectId }) })}
      create={(currency) => create.mutateAsync({ projectId, currency })}
      update={(id, patch, reason) => update.mutateAsync({ projectId, id, patch, reason })}
      remove={(id) => remove.mutateAsync({ projectId, id })}
      form={(props) => <CurrencyForm projectId={projectId} {...props} />}
    />
  );
}

const EMPTY_CURRENCY: CurrencyFields = { id: "", name: "", initialBalance: "0", maxBalance: "", clientWritable: true };

function CurrencyForm(props: CurrencyFormProps & { projectId: string }) {
  const {
    form,
    errors,
    save,
    prefix: p,
  } = useDefinitionForm(props, {
    kind: "currency",
    schemas: { create: ZNewCurrency, edit: ZCurrencyPatch },
    empty: EMPTY_CURRENCY,
    fieldsOf: (c) => ({
      id: c.id,
      name: c.name,
      initialBalance: String(c.initialBalance),
      maxBalance: c.maxBalance == null ? "" : String(c.maxBalance),
      clientWritable: c.clientWritable,
    }),
    serverFields: ["id", "name", "initialBalance", "maxBalance"],
  });
  const invalid = (name: keyof CurrencyFields) => (errors[name] ? true : undefined);
  return (
    <form
      onSubmit={form.handleSubmit(save)}
      noValidate
      className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-[repeat(4,minmax(0,1fr))_auto] lg:items-start"
    >
      <IdField kind="currency" prefix={p} form={form} fixed={props.initial?.id} placeholder="coins" />
      <Field label="Currency name" htmlFor={`${p}-name`} error={errors.name}>
        <Input id={`${p}-name`} placeholder="Coins" aria-invalid={invalid("name")} {...form.register("name")} />
      </Field>
      <Field label="Initial balance" htmlFor={`${p}-initial`} error={errors.initialBalance}>
        <Input
          id={`${p}-initial`}
          type="number"
          min={0}
          max={MAX_AMOUNT}
          step={1}
          aria-invalid={invalid("initialBalance")}
          {...form.register("initialBalance")}
        />
      </Field>
      <Field label="Maximum balance" htmlFor={`${p}-max`} error={errors.maxBalance}>
        <Input
          id={`${p}-max`}
          type="number"
          min={0}
          max={MAX_AMOUNT}
          step={1}
          placeholder="none"
          aria-invalid={invalid("maxBalance")}
          {...form.register("maxBalance")}
        />
      </Field>
      <div className="flex items-center gap-2 lg:pt-8">
        <input id={`${p}-writable`} type="checkbox" className="size-4 accent-zinc-900" {...form.register("clientWritable")} />
        <label htmlFor={`${p}-writable`} className="text-sm text-zinc-700">
          Clients may add/subtract
        </label>
      </div>
      <div className="sm:col-span-2 lg:col-span-5">
        {props.mode === "edit" && (
          <LoweredMaxWarning
            projectId={props.projectId}
            kind="currency"
            id={props.initial.id}
            current={props.initial.maxBalance}
            typed={form.watch("maxBalance")}
          />
        )}
        <FieldError error={errors.root?.server} />
        <DefinitionFormButtons kind="currency" mode={props.mode} submitting={form.formState.isSubmitting} onCancel={props.onCancel} />
      </div>
    </form>
  );
}

type Item = RouterOutputs["economy"]["items"][number];
type ItemFields = { id: string; name: string; maxStack: string };
const ZItemFields = z.object({ id: z.string(), name: z.string(), maxStack: z.string() });
const ZNewItem = checkedWith(ZItemFields, (f) => ({ id: f.id, name: f.name, maxStack: numberText(f.maxStack, null) }), ZItemInput);
const ZItemPatch = checkedWith(ZItemFields, (f) => ({ name: f.name, maxStack: numberText(f.maxStack, null) }), ZItemUpdate);
type NewItem = z.output<typeof ZNewItem>;
type ItemPatch = z.output<typeof ZItemPatch>;
type ItemFormProps = DefinitionFormProps<Item, NewItem, ItemPatch>;
const itemCol = columnsFor<Item>();
const itemColumns: DataTableColumns<Item> = [
  itemCol.accessor((i) => i.maxStack ?? -1, {
    id: "maxStack",
    header: "Max stack",
    cell: (c) => c.row.original.maxStack?.toLocaleString() ?? "none",
  }),
];

function ItemsCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(trpc.economy.createItem.mutationOptions());
  const update = useMutation(trpc.economy.updateItem.mutationOptions());
  const remove = useMutation(trpc.economy.deleteItem.mutationOptions());
  const items = useQuery(trpc.economy.items.queryOptions({ projectId }));
  return (
    <DefinitionsCard<Item, NewItem, ItemPatch>
      kind="item"
      title="Items"
      query={items}
      columns={itemColumns}
      rowTestId="item-row"
      minWidth={480}
      canEdit={canEdit}
      deleteDescription="An item that a purchase refers to or a player holds is not deleted."
      refresh={() => queryClient.invalidateQueries({ queryKey: trpc.economy.items.queryKey({ projectId }) })}
      create={(item) => create.mutateAsync({ projectId, item })}
      update={(id, patch, reason) => update.mutateAsync({ projectId, id, patch, reason })}
      remove={(id) => remove.mutateAsync({ projectId, id })}
      form={(props) => <ItemForm projectId={projectId} {...props} />}
    />
  );
}

const EMPTY_ITEM: ItemFields = { id: "", name: "", maxStack: "" };

function ItemForm(props: ItemFormProps & { projectId: string }) {
  const {
    form,
    errors,
    save,
    prefix: p,
  } = useDefinitionForm(props, {
    kind: "item",
    schemas: { create: ZNewItem, edit: ZItemPatch },
    empty: EMPTY_ITEM,
    fieldsOf: (i) => ({ id: i.id, name: i.name, maxStack: i.maxStack == null ? "" : String(i.maxStack) }),
    serverFields: ["id", "name", "maxStack"],
  });
  const invalid = (name: keyof ItemFields) => (errors[name] ? true : undefined);
  return (
    <form onSubmit={form.handleSubmit(save)} noValidate className="grid grid-cols-1 gap-3 sm:grid-cols-3 sm:items-start">
      <IdField kind="item" prefix={p} form={form} fixed={props.initial?.id} placeholder="sword" />
      <Field label="Item name" htmlFor={`${p}-name`} error={errors.name}>
        <Input id={`${p}-name`} placeholder="Sword" aria-invalid={invalid("name")} {...form.register("name")} />
      </Field>
      <Field label="Max stack" htmlFor={`${p}-max`} error={errors.maxStack}>
        <Input
          id={`${p}-max`}
          type="number"
          min={1}
          max={MAX_AMOUNT}
          step={1}
          placeholder="none"
          aria-invalid={invalid("maxStack")}
          {...form.register("maxStack")}
        />
      </Field>
      <div className="sm:col-span-3">
        {props.mode === "edit" && (
          <LoweredMaxWarning
            projectId={props.projectId}
            kind="item"
            id={props.initial.id}
            current={props.initial.maxStack}
            typed={form.watch("maxStack")}
          />
        )}
        <FieldError error={errors.root?.server} />
        <DefinitionFormButtons kind="item" mode={props.mode} submitting={form.formState.isSubmitting} onCancel={props.onCancel} />
      </div>
    </form>
  );
}
