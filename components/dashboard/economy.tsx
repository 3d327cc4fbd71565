"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus, Save } from "lucide-react";
import { useEffect, useMemo, useState } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { columnsFor, type DataTableColumns } from "@/components/ui/data-table";
import { Field, FieldError } from "@/components/ui/field";
import { Badge, Button, Input } from "@/components/ui/primitives";
import { MAX_AMOUNT, ZCurrencyInput, ZCurrencyUpdate, ZItemInput, ZItemUpdate } from "@/server/services/economy/schemas";
import { PurchasesCard } from "./economy-purchases";
import { DefinitionsCard, NameWithId, RowActions } from "./economy-row-actions";
import { applyServerError } from "./errors";
import { checkedWith } from "./form-schema";
import { plainly } from "./plain-issues";
import { useProject } from "./project-context";

/** Currencies, items and purchases of a project: create, edit and delete with the services' rules. */
export function Economy({ projectId }: { projectId: string }) {
  const { canEdit } = useProject();
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Economy</h1>
      <CurrenciesCard projectId={projectId} canEdit={canEdit} />
      <ItemsCard projectId={projectId} canEdit={canEdit} />
      <PurchasesCard projectId={projectId} canEdit={canEdit} />
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
const CURRENCY_FIELDS = ["id", "name", "initialBalance", "maxBalance"] as const;
const currencyCol = columnsFor<Currency>();

function CurrenciesCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const currencies = useQuery(trpc.economy.currencies.queryOptions({ projectId }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.economy.currencies.queryKey({ projectId }) });
  const create = useMutation(trpc.economy.createCurrency.mutationOptions());
  const columns = useMemo<DataTableColumns<Currency>>(
    () => [
      currencyCol.accessor("name", {
        header: "Currency",
        cell: (c) => <NameWithId name={c.getValue()} id={c.row.original.id} />,
      }),
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
      currencyCol.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: ({ row: { original: c } }) => (canEdit ? <CurrencyActions projectId={projectId} currency={c} /> : null),
      }),
    ],
    [canEdit, projectId],
  );
  return (
    <DefinitionsCard
      title="Currencies"
      query={currencies}
      columns={columns}
      rowTestId="currency-row"
      minWidth={600}
      createForm={
        canEdit && (
          <CurrencyForm
            mode="create"
            onSubmit={async (currency) => {
              const created = await create.mutateAsync({ projectId, currency });
              toast.success(`Created the currency "${created.id}".`);
              await refresh();
            }}
          />
        )
      }
    />
  );
}

type CurrencyProps =
  | { mode: "create"; initial?: undefined; onSubmit: (c: z.output<typeof ZNewCurrency>) => Promise<unknown>; onCancel?: () => void }
  | {
      mode: "edit";
      projectId: string;
      initial: Currency;
      onSubmit: (c: z.output<typeof ZCurrencyPatch>) => Promise<unknown>;
      onCancel?: () => void;
    };

function CurrencyForm(props: CurrencyProps) {
  const { mode, initial, onCancel } = props;
  const empty: CurrencyFields = { id: "", name: "", initialBalance: "0", maxBalance: "", clientWritable: true };
  const form = useForm<CurrencyFields, unknown, z.output<typeof ZNewCurrency> | z.output<typeof ZCurrencyPatch>>({
    resolver: zodResolver(mode === "edit" ? ZCurrencyPatch : ZNewCurrency, plainly) as never,
    defaultValues: initial
      ? {
          id: initial.id,
          name: initial.name,
          initialBalance: String(initial.initialBalance),
          maxBalance: initial.maxBalance == null ? "" : String(initial.maxBalance),
          clientWritable: initial.clientWritable,
        }
      : empty,
  });
  const errors = form.formState.errors;
  const submit = form.handleSubmit(async (values) => {
    try {
      if (props.mode === "create") {
        await props.onSubmit(values as z.output<typeof ZNewCurrency>);
        form.reset(empty);
      } else await props.onSubmit(values as z.output<typeof ZCurrencyPatch>);
    } catch (error) {
      applyServerError(error, form.setError, CURRENCY_FIELDS, { ALREADY_EXISTS: "id" });
    }
  });
  const p = `currency-${mode}`;
  const invalid = (name: keyof CurrencyFields) => (errors[name] ? true : undefined);
  return (
    <form
      onSubmit={submit}
      noValidate
      className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-[repeat(4,minmax(0,1fr))_auto] lg:items-start"
    >
      <Field label="Currency id" htmlFor={`${p}-id`} error={errors.id}>
        {mode === "edit" ? (
          <Input id={`${p}-id`} value={initial?.id} disabled readOnly />
        ) : (
          <Input id={`${p}-id`} placeholder="coins" autoComplete="off" aria-invalid={invalid("id")} {...form.register("id")} />
        )}
      </Field>
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
        <div className="mt-1 flex gap-2">
          <Button type="submit" disabled={form.formState.isSubmitting}>
            {mode === "create" ? <Plus className="mr-1 size-4" aria-hidden /> : <Save className="mr-1 size-4" aria-hidden />}
            {mode === "create" ? "Create currency" : "Save currency"}
          </Button>
          {onCancel && (
            <Button variant="secondary" onClick={onCancel}>
              Cancel
            </Button>
          )}
        </div>
      </div>
    </form>
  );
}

type Item = RouterOutputs["economy"]["items"][number];
type ItemFields = { id: string; name: string; maxStack: string };
const ZItemFields = z.object({ id: z.string(), name: z.string(), maxStack: z.string() });
const ZNewItem = checkedWith(ZItemFields, (f) => ({ id: f.id, name: f.name, maxStack: numberText(f.maxStack, null) }), ZItemInput);
const ZItemPatch = checkedWith(ZItemFields, (f) => ({ name: f.name, maxStack: numberText(f.maxStack, null) }), ZItemUpdate);
const ITEM_FIELDS = ["id", "name", "maxStack"] as const;
const itemCol = columnsFor<Item>();

function ItemsCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const items = useQuery(trpc.economy.items.queryOptions({ projectId }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.economy.items.queryKey({ projectId }) });
  const create = useMutation(trpc.economy.createItem.mutationOptions());
  const columns = useMemo<DataTableColumns<Item>>(
    () => [
      itemCol.accessor("name", {
        header: "Item",
        cell: (c) => <NameWithId name={c.getValue()} id={c.row.original.id} />,
      }),
      itemCol.accessor((i) => i.maxStack ?? -1, {
        id: "maxStack",
        header: "Max stack",
        cell: (c) => c.row.original.maxStack?.toLocaleString() ?? "none",
      }),
      itemCol.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: ({ row: { original: i } }) => (canEdit ? <ItemActions projectId={projectId} item={i} /> : null),
      }),
    ],
    [canEdit, projectId],
  );
  return (
    <DefinitionsCard
      title="Items"
      query={items}
      columns={columns}
      rowTestId="item-row"
      minWidth={480}
      createForm={
        canEdit && (
          <ItemForm
            mode="create"
            onSubmit={async (item) => {
              const created = await create.mutateAsync({ projectId, item });
              toast.success(`Created the item "${created.id}".`);
              await refresh();
            }}
          />
        )
      }
    />
  );
}

type ItemProps =
  | { mode: "create"; initial?: undefined; onSubmit: (i: z.output<typeof ZNewItem>) => Promise<unknown>; onCancel?: () => void }
  | {
      mode: "edit";
      projectId: string;
      initial: Item;
      onSubmit: (i: z.output<typeof ZItemPatch>) => Promise<unknown>;
      onCancel?: () => void;
    };

function ItemForm(props: ItemProps) {
  const { mode, initial, onCancel } = props;
  const empty: ItemFields = { id: "", name: "", maxStack: "" };
  const form = useForm<ItemFields, unknown, z.output<typeof ZNewItem> | z.output<typeof ZItemPatch>>({
    resolver: zodResolver(mode === "edit" ? ZItemPatch : ZNewItem, plainly) as never,
    defaultValues: initial
      ? { id: initial.id, name: initial.name, maxStack: initial.maxStack == null ? "" : String(initial.maxStack) }
      : empty,
  });
  const errors = form.formState.errors;
  const submit = form.handleSubmit(async (values) => {
    try {
      if (props.mode === "create") {
        await props.onSubmit(values as z.output<typeof ZNewItem>);
        form.reset(empty);
      } else await props.onSubmit(values as z.output<typeof ZItemPatch>);
    } catch (error) {
      applyServerError(error, form.setError, ITEM_FIELDS, { ALREADY_EXISTS: "id" });
    }
  });
  const p = `item-${mode}`;
  const invalid = (name: keyof ItemFields) => (errors[name] ? true : undefined);
  return (
    <form onSubmit={submit} noValidate className="grid grid-cols-1 gap-3 sm:grid-cols-3 sm:items-start">
      <Field label="Item id" htmlFor={`${p}-id`} error={errors.id}>
        {mode === "edit" ? (
          <Input id={`${p}-id`} value={initial?.id} disabled readOnly />
        ) : (
          <Input id={`${p}-id`} placeholder="sword" autoComplete="off" aria-invalid={invalid("id")} {...form.register("id")} />
        )}
      </Field>
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
        <div className="mt-1 flex gap-2">
          <Button type="submit" disabled={form.formState.isSubmitting}>
            {mode === "create" ? <Plus className="mr-1 size-4" aria-hidden /> : <Save className="mr-1 size-4" aria-hidden />}
            {mode === "create" ? "Create item" : "Save item"}
          </Button>
          {onCancel && (
            <Button variant="secondary" onClick={onCancel}>
              Cancel
            </Button>
          )}
        </div>
      </div>
    </form>
  );
}

function CurrencyActions({ projectId, currency: c }: { projectId: string; currency: Currency }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const update = useMutation(trpc.economy.updateCurrency.mutationOptions());
  const remove = useMutation(trpc.economy.deleteCurrency.mutationOptions());
  return (
    <RowActions
      kind="currency"
      id={c.id}
      deleteDescription="Wallets that were never used go with it. A currency that a purchase refers to or a player holds is not deleted."
      onDelete={() => remove.mutateAsync({ projectId, id: c.id })}
      onChanged={() => queryClient.invalidateQueries({ queryKey: trpc.economy.currencies.queryKey({ projectId }) })}
    >
      {({ saved, cancel }) => (
        <CurrencyForm
          mode="edit"
          projectId={projectId}
          initial={c}
          onSubmit={async (patch) => {
            await update.mutateAsync({ projectId, id: c.id, patch });
            await saved();
          }}
          onCancel={cancel}
        />
      )}
    </RowActions>
  );
}

function ItemActions({ projectId, item: i }: { projectId: string; item: Item }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const update = useMutation(trpc.economy.updateItem.mutationOptions());
  const remove = useMutation(trpc.economy.deleteItem.mutationOptions());
  return (
    <RowActions
      kind="item"
      id={i.id}
      deleteDescription="An item that a purchase refers to or a player holds is not deleted."
      onDelete={() => remove.mutateAsync({ projectId, id: i.id })}
      onChanged={() => queryClient.invalidateQueries({ queryKey: trpc.economy.items.queryKey({ projectId }) })}
    >
      {({ saved, cancel }) => (
        <ItemForm
          mode="edit"
          projectId={projectId}
          initial={i}
          onSubmit={async (patch) => {
            await update.mutateAsync({ projectId, id: i.id, patch });
            await saved();
          }}
          onCancel={cancel}
        />
      )}
    </RowActions>
  );
}
