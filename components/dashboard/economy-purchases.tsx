"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Button, Card, Input, Label, Select, State } from "@/components/ui/primitives";
import { RowActions } from "./economy-row-actions";
import { messageOf } from "./errors";
import { GameTable } from "./game-table";

type Line = { currencyId: string; amount: number } | { itemId: string; quantity: number };
type Purchase = { id: string; name: string; costs: Line[]; rewards: Line[] };
/** A line as the form holds it: "currency:<id>" or "item:<id>", and the amount as typed. */
type Draft = { ref: string; amount: string };

const draftOf = (line: Line): Draft =>
  "currencyId" in line
    ? { ref: `currency:${line.currencyId}`, amount: String(line.amount) }
    : { ref: `item:${line.itemId}`, amount: String(line.quantity) };
const lineOf = (d: Draft): Line => {
  const [kind, id = ""] = d.ref.split(":");
  return kind === "currency" ? { currencyId: id, amount: Number(d.amount) } : { itemId: id, quantity: Number(d.amount) };
};
export const describeLine = (line: Line) =>
  "currencyId" in line ? `${line.amount} ${line.currencyId}` : `${line.quantity}× ${line.itemId}`;

export function PurchasesCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const purchases = useQuery(trpc.economy.purchases.queryOptions({ projectId }));
  const [editing, setEditing] = useState<string | null>(null);
  const [formKey, setFormKey] = useState(0);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.economy.purchases.queryKey({ projectId }) });
  const create = useMutation(
    trpc.economy.createPurchase.mutationOptions({
      onSuccess: async () => {
        setFormKey((k) => k + 1);
        await refresh();
      },
    }),
  );
  const update = useMutation(
    trpc.economy.updatePurchase.mutationOptions({
      onSuccess: async () => {
        setEditing(null);
        await refresh();
      },
    }),
  );
  const remove = useMutation(trpc.economy.deletePurchase.mutationOptions({ onSuccess: refresh }));
  return (
    <Card title="Purchases">
      {purchases.isPending ? (
        <State kind="loading">Loading purchases…</State>
      ) : purchases.error ? (
        <State kind="error">{messageOf(purchases.error)}</State>
      ) : purchases.data.length === 0 ? (
        <State kind="empty">No purchases yet.</State>
      ) : (
        <GameTable head={[{ label: "Purchase" }, { label: "Costs" }, { label: "Rewards" }, { label: "" }]}>
          {purchases.data.map((p) =>
            editing === p.id ? (
              <tr key={p.id}>
                <td colSpan={4} className="px-2 py-2">
                  <PurchaseForm
                    projectId={projectId}
                    mode="edit"
                    initial={p}
                    pending={update.isPending}
                    onSubmit={({ id: _id, ...patch }) => update.mutate({ projectId, id: p.id, patch })}
                    onCancel={() => setEditing(null)}
                  />
                  {update.error && (
                    <p role="alert" className="mt-2 text-sm text-red-700">
                      {messageOf(update.error)}
                    </p>
                  )}
                </td>
              </tr>
            ) : (
              <tr key={p.id} data-testid="purchase-row">
                <td className="px-2 py-2">
                  <div>{p.name}</div>
                  <div className="font-mono text-xs text-zinc-500">{p.id}</div>
                </td>
                <td className="px-2 py-2">{p.costs.map(describeLine).join(", ") || "—"}</td>
                <td className="px-2 py-2">{p.rewards.map(describeLine).join(", ") || "—"}</td>
                <td className="px-2 py-2 text-right whitespace-nowrap">
                  {canEdit && (
                    <RowActions
                      label={p.id}
                      onEdit={() => setEditing(p.id)}
                      onDelete={() => {
                        if (window.confirm(`Delete the purchase "${p.id}"? Players can no longer buy it.`))
                          remove.mutate({ projectId, id: p.id });
                      }}
                    />
                  )}
                </td>
              </tr>
            ),
          )}
        </GameTable>
      )}
      {remove.error && (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {messageOf(remove.error)}
        </p>
      )}
      {canEdit && (
        <div className="mt-4 rounded-md border border-dashed border-zinc-300 p-3">
          <PurchaseForm
            key={formKey}
            projectId={projectId}
            mode="create"
            pending={create.isPending}
            onSubmit={(p) => create.mutate({ projectId, purchase: p })}
          />
          {create.error && (
            <p role="alert" className="mt-2 text-sm text-red-700">
              {messageOf(create.error)}
            </p>
          )}
        </div>
      )}
    </Card>
  );
}

function PurchaseForm({
  projectId,
  mode,
  initial,
  pending,
  onSubmit,
  onCancel,
}: {
  projectId: string;
  mode: "create" | "edit";
  initial?: Purchase;
  pending: boolean;
  onSubmit: (p: Purchase) => void;
  onCancel?: () => void;
}) {
  const trpc = useTRPC();
  const currencies = useQuery(trpc.economy.currencies.queryOptions({ projectId }));
  const items = useQuery(trpc.economy.items.queryOptions({ projectId }));
  const [id, setId] = useState(initial?.id ?? "");
  const [name, setName] = useState(initial?.name ?? "");
  const [costs, setCosts] = useState<Draft[]>(initial?.costs.map(draftOf) ?? []);
  const [rewards, setRewards] = useState<Draft[]>(initial?.rewards.map(draftOf) ?? []);
  const options = [
    ...(currencies.data ?? []).map((c) => ({ value: `currency:${c.id}`, label: `Currency: ${c.name} (${c.id})` })),
    ...(items.data ?? []).map((i) => ({ value: `item:${i.id}`, label: `Item: ${i.name} (${i.id})` })),
  ];
  const p = `purchase-${mode}`;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit({ id, name, costs: costs.map(lineOf), rewards: rewards.map(lineOf) });
  };
  return (
    <form onSubmit={submit} className="space-y-3">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <div>
          <Label htmlFor={`${p}-id`}>Purchase id</Label>
          <Input
            id={`${p}-id`}
            value={id}
            onChange={(e) => setId(e.target.value)}
            disabled={mode === "edit"}
            required
            placeholder="starter-pack"
          />
        </div>
        <div>
          <Label htmlFor={`${p}-name`}>Purchase name</Label>
          <Input
            id={`${p}-name`}
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={100}
            placeholder="Starter pack"
          />
        </div>
      </div>
      {options.length === 0 ? (
        <p className="text-sm text-zinc-500">Create a currency or an item first: costs and rewards pick from them.</p>
      ) : (
        <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
          <Lines title="Costs" prefix={`${p}-cost`} lines={costs} setLines={setCosts} options={options} />
          <Lines title="Rewards" prefix={`${p}-reward`} lines={rewards} setLines={setRewards} options={options} />
        </div>
      )}
      <div className="flex gap-2">
        <Button type="submit" disabled={pending}>
          {mode === "create" ? "Create purchase" : "Save purchase"}
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

function Lines({
  title,
  prefix,
  lines,
  setLines,
  options,
}: {
  title: string;
  prefix: string;
  lines: Draft[];
  setLines: (next: Draft[]) => void;
  options: Array<{ value: string; label: string }>;
}) {
  const change = (index: number, patch: Partial<Draft>) => setLines(lines.map((l, i) => (i === index ? { ...l, ...patch } : l)));
  return (
    <fieldset className="rounded-md border border-zinc-200 p-3">
      <legend className="px-1 text-sm font-medium text-zinc-700">{title}</legend>
      {lines.length === 0 && <p className="mb-2 text-sm text-zinc-500">None.</p>}
      {lines.map((line, index) => (
        <div key={`${prefix}-${String(index)}`} className="mb-2 flex gap-2">
          <Select
            aria-label={`${title} line ${index + 1}`}
            className="min-w-0 flex-1"
            value={line.ref}
            onChange={(e) => change(index, { ref: e.target.value })}
          >
            {options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </Select>
          <Input
            aria-label={`${title} amount ${index + 1}`}
            className="w-24"
            type="number"
            min={1}
            step={1}
            required
            value={line.amount}
            onChange={(e) => change(index, { amount: e.target.value })}
          />
          <Button
            variant="secondary"
            aria-label={`Remove ${title.toLowerCase()} line ${index + 1}`}
            onClick={() => setLines(lines.filter((_, i) => i !== index))}
          >
            ×
          </Button>
        </div>
      ))}
      <Button variant="secondary" onClick={() => setLines([...lines, { ref: options[0]?.value ?? "", amount: "1" }])}>
        Add {title === "Costs" ? "a cost" : "a reward"}
      </Button>
    </fieldset>
  );
}
