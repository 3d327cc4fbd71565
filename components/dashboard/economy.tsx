"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Badge, Button, Card, Input, Label, State } from "@/components/ui/primitives";
import { PurchasesCard } from "./economy-purchases";
import { RowActions } from "./economy-row-actions";
import { messageOf } from "./errors";
import { GameTable, WIDE } from "./game-table";

/** Currencies, items and purchases of a project: create, edit and delete with the services' rules. */
export function Economy({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const project = useQuery(trpc.projects.get.queryOptions({ projectId }));
  const canEdit = Boolean(project.data && project.data.role !== "VIEWER");
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Economy</h1>
      <CurrenciesCard projectId={projectId} canEdit={canEdit} />
      <ItemsCard projectId={projectId} canEdit={canEdit} />
      <PurchasesCard projectId={projectId} canEdit={canEdit} />
    </div>
  );
}

const optionalInt = (text: string) => (text.trim() === "" ? null : Number(text));

function Failure({ error, prefix = "" }: { error: unknown; prefix?: string }) {
  if (!error) return null;
  return (
    <p role="alert" className="mt-2 text-sm text-red-700">
      {prefix}
      {messageOf(error)}
    </p>
  );
}

type Currency = { id: string; name: string; initialBalance: number; maxBalance: number | null; clientWritable: boolean };

function CurrenciesCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const currencies = useQuery(trpc.economy.currencies.queryOptions({ projectId }));
  const [editing, setEditing] = useState<string | null>(null);
  const [formKey, setFormKey] = useState(0);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.economy.currencies.queryKey({ projectId }) });
  const create = useMutation(
    trpc.economy.createCurrency.mutationOptions({
      onSuccess: async () => {
        setFormKey((k) => k + 1);
        await refresh();
      },
    }),
  );
  const update = useMutation(
    trpc.economy.updateCurrency.mutationOptions({
      onSuccess: async () => {
        setEditing(null);
        await refresh();
      },
    }),
  );
  const remove = useMutation(trpc.economy.deleteCurrency.mutationOptions({ onSuccess: refresh }));
  return (
    <Card title="Currencies">
      {currencies.isPending ? (
        <State kind="loading">Loading currencies…</State>
      ) : currencies.error ? (
        <State kind="error">{messageOf(currencies.error)}</State>
      ) : currencies.data.length === 0 ? (
        <State kind="empty">No currencies yet.</State>
      ) : (
        <GameTable
          head={[
            { label: "Currency" },
            { label: "Initial", wide: true },
            { label: "Max", wide: true },
            { label: "Writes", wide: true },
            { label: "" },
          ]}
        >
          {currencies.data.map((c) =>
            editing === c.id ? (
              <tr key={c.id}>
                <td colSpan={5} className="px-2 py-2">
                  <CurrencyForm
                    mode="edit"
                    initial={c}
                    pending={update.isPending}
                    onSubmit={({ id: _id, ...patch }) => update.mutate({ projectId, id: c.id, patch })}
                    onCancel={() => setEditing(null)}
                  />
                  <Failure error={update.error} />
                </td>
              </tr>
            ) : (
              <tr key={c.id} data-testid="currency-row">
                <td className="px-2 py-2">
                  <div>{c.name}</div>
                  <div className="font-mono text-xs text-zinc-500">{c.id}</div>
                  <div className="text-xs text-zinc-500 sm:hidden">
                    starts at {c.initialBalance.toLocaleString()} · max {c.maxBalance?.toLocaleString() ?? "none"} ·{" "}
                    {c.clientWritable ? "clients" : "server only"}
                  </div>
                </td>
                <td className={`px-2 py-2 ${WIDE}`}>{c.initialBalance.toLocaleString()}</td>
                <td className={`px-2 py-2 ${WIDE}`}>{c.maxBalance?.toLocaleString() ?? "—"}</td>
                <td className={`px-2 py-2 ${WIDE}`}>{c.clientWritable ? <Badge>clients</Badge> : <Badge tone="red">server only</Badge>}</td>
                <td className="px-2 py-2 text-right whitespace-nowrap">
                  {canEdit && (
                    <RowActions
                      label={c.id}
                      onEdit={() => setEditing(c.id)}
                      onDelete={() => {
                        if (window.confirm(`Delete the currency "${c.id}"? Empty wallets go with it.`))
                          remove.mutate({ projectId, id: c.id });
                      }}
                    />
                  )}
                </td>
              </tr>
            ),
          )}
        </GameTable>
      )}
      <Failure error={remove.error} prefix={remove.variables ? `${remove.variables.id} cannot be deleted: ` : ""} />
      {canEdit && (
        <div className="mt-4 rounded-md border border-dashed border-zinc-300 p-3">
          <CurrencyForm
            key={formKey}
            mode="create"
            pending={create.isPending}
            onSubmit={(c) => create.mutate({ projectId, currency: c })}
          />
          <Failure error={create.error} />
        </div>
      )}
    </Card>
  );
}

function CurrencyForm({
  mode,
  initial,
  pending,
  onSubmit,
  onCancel,
}: {
  mode: "create" | "edit";
  initial?: Currency;
  pending: boolean;
  onSubmit: (c: Currency) => void;
  onCancel?: () => void;
}) {
  const [id, setId] = useState(initial?.id ?? "");
  const [name, setName] = useState(initial?.name ?? "");
  const [initialBalance, setInitialBalance] = useState(String(initial?.initialBalance ?? 0));
  const [max, setMax] = useState(initial?.maxBalance == null ? "" : String(initial.maxBalance));
  const [clientWritable, setClientWritable] = useState(initial?.clientWritable ?? true);
  const p = `currency-${mode}`;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit({ id, name, initialBalance: Number(initialBalance), maxBalance: optionalInt(max), clientWritable });
  };
  return (
    <form onSubmit={submit} className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-5 lg:items-end">
      <div>
        <Label htmlFor={`${p}-id`}>Currency id</Label>
        <Input id={`${p}-id`} value={id} onChange={(e) => setId(e.target.value)} disabled={mode === "edit"} required placeholder="coins" />
      </div>
      <div>
        <Label htmlFor={`${p}-name`}>Currency name</Label>
        <Input id={`${p}-name`} value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} placeholder="Coins" />
      </div>
      <div>
        <Label htmlFor={`${p}-initial`}>Initial balance</Label>
        <Input
          id={`${p}-initial`}
          type="number"
          min={0}
          step={1}
          value={initialBalance}
          onChange={(e) => setInitialBalance(e.target.value)}
        />
      </div>
      <div>
        <Label htmlFor={`${p}-max`}>Maximum balance</Label>
        <Input id={`${p}-max`} type="number" min={0} step={1} placeholder="none" value={max} onChange={(e) => setMax(e.target.value)} />
      </div>
      <div className="flex items-center gap-2 pb-2">
        <input
          id={`${p}-writable`}
          type="checkbox"
          className="h-4 w-4"
          checked={clientWritable}
          onChange={(e) => setClientWritable(e.target.checked)}
        />
        <label htmlFor={`${p}-writable`} className="text-sm text-zinc-700">
          Clients may add/subtract
        </label>
      </div>
      <div className="flex gap-2 sm:col-span-2 lg:col-span-5">
        <Button type="submit" disabled={pending}>
          {mode === "create" ? "Create currency" : "Save currency"}
        </Button>
        {onCancel && (
          <Button variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
        )}
      </div>
    </form>
  );
}

type Item = { id: string; name: string; maxStack: number | null };

function ItemsCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const items = useQuery(trpc.economy.items.queryOptions({ projectId }));
  const [editing, setEditing] = useState<string | null>(null);
  const [formKey, setFormKey] = useState(0);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.economy.items.queryKey({ projectId }) });
  const create = useMutation(
    trpc.economy.createItem.mutationOptions({
      onSuccess: async () => {
        setFormKey((k) => k + 1);
        await refresh();
      },
    }),
  );
  const update = useMutation(
    trpc.economy.updateItem.mutationOptions({
      onSuccess: async () => {
        setEditing(null);
        await refresh();
      },
    }),
  );
  const remove = useMutation(trpc.economy.deleteItem.mutationOptions({ onSuccess: refresh }));
  return (
    <Card title="Items">
      {items.isPending ? (
        <State kind="loading">Loading items…</State>
      ) : items.error ? (
        <State kind="error">{messageOf(items.error)}</State>
      ) : items.data.length === 0 ? (
        <State kind="empty">No items yet.</State>
      ) : (
        <GameTable head={[{ label: "Item" }, { label: "Max stack" }, { label: "" }]}>
          {items.data.map((i) =>
            editing === i.id ? (
              <tr key={i.id}>
                <td colSpan={3} className="px-2 py-2">
                  <ItemForm
                    mode="edit"
                    initial={i}
                    pending={update.isPending}
                    onSubmit={({ id: _id, ...patch }) => update.mutate({ projectId, id: i.id, patch })}
                    onCancel={() => setEditing(null)}
                  />
                  <Failure error={update.error} />
                </td>
              </tr>
            ) : (
              <tr key={i.id} data-testid="item-row">
                <td className="px-2 py-2">
                  <div>{i.name}</div>
                  <div className="font-mono text-xs text-zinc-500">{i.id}</div>
                </td>
                <td className="px-2 py-2">{i.maxStack?.toLocaleString() ?? "—"}</td>
                <td className="px-2 py-2 text-right whitespace-nowrap">
                  {canEdit && (
                    <RowActions
                      label={i.id}
                      onEdit={() => setEditing(i.id)}
                      onDelete={() => {
                        if (window.confirm(`Delete the item "${i.id}"?`)) remove.mutate({ projectId, id: i.id });
                      }}
                    />
                  )}
                </td>
              </tr>
            ),
          )}
        </GameTable>
      )}
      <Failure error={remove.error} prefix={remove.variables ? `${remove.variables.id} cannot be deleted: ` : ""} />
      {canEdit && (
        <div className="mt-4 rounded-md border border-dashed border-zinc-300 p-3">
          <ItemForm key={formKey} mode="create" pending={create.isPending} onSubmit={(i) => create.mutate({ projectId, item: i })} />
          <Failure error={create.error} />
        </div>
      )}
    </Card>
  );
}

function ItemForm({
  mode,
  initial,
  pending,
  onSubmit,
  onCancel,
}: {
  mode: "create" | "edit";
  initial?: Item;
  pending: boolean;
  onSubmit: (i: Item) => void;
  onCancel?: () => void;
}) {
  const [id, setId] = useState(initial?.id ?? "");
  const [name, setName] = useState(initial?.name ?? "");
  const [maxStack, setMaxStack] = useState(initial?.maxStack == null ? "" : String(initial.maxStack));
  const p = `item-${mode}`;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit({ id, name, maxStack: optionalInt(maxStack) });
  };
  return (
    <form onSubmit={submit} className="grid grid-cols-1 gap-3 sm:grid-cols-3 sm:items-end">
      <div>
        <Label htmlFor={`${p}-id`}>Item id</Label>
        <Input id={`${p}-id`} value={id} onChange={(e) => setId(e.target.value)} disabled={mode === "edit"} required placeholder="sword" />
      </div>
      <div>
        <Label htmlFor={`${p}-name`}>Item name</Label>
        <Input id={`${p}-name`} value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} placeholder="Sword" />
      </div>
      <div>
        <Label htmlFor={`${p}-max`}>Max stack</Label>
        <Input
          id={`${p}-max`}
          type="number"
          min={1}
          step={1}
          placeholder="none"
          value={maxStack}
          onChange={(e) => setMaxStack(e.target.value)}
        />
      </div>
      <div className="flex gap-2 sm:col-span-3">
        <Button type="submit" disabled={pending}>
          {mode === "create" ? "Create item" : "Save item"}
        </Button>
        {onCancel && (
          <Button variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
        )}
      </div>
    </form>
  );
}
