"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import { useId, useState } from "react";
import { toast } from "sonner";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { Button, Card, Input, Label, Select, State, Table } from "@/components/ui/primitives";
import { isCurrencyLine, type Line, MAX_AMOUNT } from "@/server/services/economy/schemas";
import { ZStoreProductInput, ZStoreProductUpdate } from "@/server/services/store/schemas";
import { messageOf } from "./errors";
import { countOf } from "./format";
import { LineInputs } from "./line-editor";
import { plainServerIssue } from "./plain-issues";
import { useProject } from "./project-context";
import { money } from "./purchases-format";

type Product = RouterOutputs["store"]["products"][number];
type Draft = { ref: string; amount: string };
type Fields = {
  id: string;
  name: string;
  rewards: Draft[];
  appleProductId: string;
  googleProductId: string;
  steamItemId: string;
  kind: "consumable" | "non_consumable";
  price: string;
  priceCurrency: string;
};

const EMPTY: Fields = {
  id: "",
  name: "",
  rewards: [{ ref: "", amount: "" }],
  appleProductId: "",
  googleProductId: "",
  steamItemId: "",
  kind: "consumable",
  price: "",
  priceCurrency: "",
};

const lineOf = (d: Draft): Line => {
  const [kind, id = ""] = d.ref.split(":");
  return kind === "currency" ? { currencyId: id, amount: Number(d.amount) } : { itemId: id, quantity: Number(d.amount) };
};
const draftOf = (l: Line): Draft =>
  isCurrencyLine(l)
    ? { ref: `currency:${l.currencyId}`, amount: String(l.amount) }
    : { ref: `item:${l.itemId}`, amount: String(l.quantity) };
const fieldsOf = (p: Product): Fields => ({
  id: p.id,
  name: p.name,
  rewards: p.rewards.map(draftOf),
  appleProductId: p.appleProductId ?? "",
  googleProductId: p.googleProductId ?? "",
  steamItemId: p.steamItemId ?? "",
  kind: p.kind,
  price: p.priceMicros === null ? "" : String(p.priceMicros / 1_000_000),
  priceCurrency: p.priceCurrency ?? "",
});

/** The form as the service's input: a price typed in units ("4.99") is sent in micros. */
function bodyOf(f: Fields) {
  const price = f.price.trim();
  return {
    name: f.name,
    rewards: f.rewards.map(lineOf),
    appleProductId: f.appleProductId.trim() || null,
    googleProductId: f.googleProductId.trim() || null,
    steamItemId: f.steamItemId.trim() || null,
    kind: f.kind,
    priceMicros: price === "" ? null : Math.round(Number(price) * 1_000_000),
    priceCurrency: f.priceCurrency.trim().toUpperCase() || null,
  };
}

const describe = (l: Line) => (isCurrencyLine(l) ? countOf(l.amount, l.currencyId) : countOf(l.quantity, l.itemId));

/** What a real-money product grants, with its id in each store; admins create, edit and delete. */
export function StoreProducts({ projectId }: { projectId: string }) {
  const { canEdit } = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const products = useQuery(trpc.store.products.queryOptions({ projectId }));
  const remove = useMutation(trpc.store.deleteProduct.mutationOptions());
  const [editing, setEditing] = useState<Product | "new" | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.store.products.queryKey({ projectId }) });
  return (
    <Card
      title="Store products"
      actions={
        canEdit && editing === null ? (
          <Button onClick={() => setEditing("new")}>
            <Plus className="mr-1 size-4" aria-hidden />
            New store product
          </Button>
        ) : null
      }
    >
      {editing !== null && (
        <ProductForm
          projectId={projectId}
          initial={editing === "new" ? null : editing}
          onDone={async () => {
            setEditing(null);
            await refresh();
          }}
        />
      )}
      {products.isPending ? (
        <State kind="loading">Loading store products…</State>
      ) : products.error ? (
        <State kind="error">{messageOf(products.error)}</State>
      ) : products.data.length === 0 ? (
        <State kind="empty">No store products yet.{canEdit ? " Add one for each product you sell in the stores." : ""}</State>
      ) : (
        <Table
          head={[
            "Product",
            "Grants",
            "App Store",
            "Google Play",
            "Steam",
            "Kind",
            "Price",
            ...(canEdit
              ? [
                  <span key="actions" className="sr-only">
                    Actions
                  </span>,
                ]
              : []),
          ]}
        >
          {products.data.map((p) => (
            <tr key={p.id} data-testid="store-product-row">
              <td className="px-2 py-2">
                {p.name} <span className="font-mono text-xs text-zinc-500">{p.id}</span>
              </td>
              <td className="px-2 py-2">{p.rewards.map(describe).join(", ")}</td>
              <td className="break-all px-2 py-2 font-mono text-xs">{p.appleProductId ?? "—"}</td>
              <td className="break-all px-2 py-2 font-mono text-xs">{p.googleProductId ?? "—"}</td>
              <td className="px-2 py-2 font-mono text-xs">{p.steamItemId ?? "—"}</td>
              <td className="px-2 py-2">{p.kind === "consumable" ? "consumable" : "non-consumable"}</td>
              <td className="whitespace-nowrap px-2 py-2">{money(p.priceMicros, p.priceCurrency)}</td>
              {canEdit && (
                <td className="space-x-2 whitespace-nowrap px-2 py-2">
                  <Button variant="secondary" onClick={() => setEditing(p)} aria-label={`Edit ${p.id}`}>
                    Edit
                  </Button>
                  <ConfirmDialog
                    trigger={
                      <Button variant="secondary" aria-label={`Delete ${p.id}`}>
                        Delete
                      </Button>
                    }
                    title={`Delete ${p.name}?`}
                    description="Receipts for it are refused from now on. Sales already made keep their product id."
                    confirmLabel="Delete"
                    onConfirm={async () => {
                      try {
                        await remove.mutateAsync({ projectId, id: p.id });
                        toast.success(`Deleted ${p.id}.`);
                        await refresh();
                      } catch (error) {
                        toast.error(messageOf(error));
                        throw error;
                      }
                    }}
                  />
                </td>
              )}
            </tr>
          ))}
        </Table>
      )}
    </Card>
  );
}

function ProductForm({ projectId, initial, onDone }: { projectId: string; initial: Product | null; onDone: () => Promise<unknown> }) {
  const trpc = useTRPC();
  const currencies = useQuery(trpc.economy.currencies.queryOptions({ projectId }));
  const items = useQuery(trpc.economy.items.queryOptions({ projectId }));
  const create = useMutation(trpc.store.createProduct.mutationOptions());
  const update = useMutation(trpc.store.updateProduct.mutationOptions());
  const [f, setF] = useState<Fields>(() => (initial ? fieldsOf(initial) : EMPTY));
  const [problems, setProblems] = useState<string[]>([]);
  const id = useId();
  const options = [
    ...(currencies.data ?? []).map((c) => ({ value: `currency:${c.id}`, label: `Currency: ${c.name} (${c.id})` })),
    ...(items.data ?? []).map((i) => ({ value: `item:${i.id}`, label: `Item: ${i.name} (${i.id})` })),
  ];
  const text = (k: keyof Fields) => (e: { target: { value: string } }) => setF((v) => ({ ...v, [k]: e.target.value }));
  const submit = async () => {
    const missing = f.rewards.some((d) => !d.ref || d.amount.trim() === "");
    if (missing) return setProblems(["Pick a currency or an item and an amount on every reward line."]);
    const body = bodyOf(f);
    const parsed = initial ? ZStoreProductUpdate.safeParse(body) : ZStoreProductInput.safeParse({ id: f.id, ...body });
    if (!parsed.success)
      return setProblems([...new Set(parsed.error.issues.map((i) => plainServerIssue({ path: i.path.join("."), message: i.message })))]);
    setProblems([]);
    try {
      if (initial) await update.mutateAsync({ projectId, id: initial.id, patch: body });
      else await create.mutateAsync({ projectId, product: { id: f.id, ...body } });
      toast.success(initial ? `Saved ${initial.id}.` : `Created ${f.id}.`);
      await onDone();
    } catch (error) {
      setProblems([messageOf(error)]);
    }
  };
  return (
    <form
      className="mb-4 space-y-3 rounded-md border border-zinc-200 p-3 text-sm"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <div>
          <Label htmlFor={`${id}-id`}>Store product id</Label>
          <Input id={`${id}-id`} value={f.id} onChange={text("id")} disabled={initial !== null} placeholder="gems-500" />
        </div>
        <div>
          <Label htmlFor={`${id}-name`}>Store product name</Label>
          <Input id={`${id}-name`} value={f.name} onChange={text("name")} placeholder="500 gems" />
        </div>
        <div>
          <Label htmlFor={`${id}-apple`}>App Store product id</Label>
          <Input id={`${id}-apple`} value={f.appleProductId} onChange={text("appleProductId")} placeholder="com.studio.game.gems500" />
        </div>
        <div>
          <Label htmlFor={`${id}-google`}>Google Play product id</Label>
          <Input id={`${id}-google`} value={f.googleProductId} onChange={text("googleProductId")} placeholder="gems_500" />
        </div>
        <div>
          <Label htmlFor={`${id}-steam`}>Steam item id</Label>
          <Input id={`${id}-steam`} value={f.steamItemId} onChange={text("steamItemId")} placeholder="1001" inputMode="numeric" />
        </div>
        <div>
          <Label htmlFor={`${id}-kind`}>Kind</Label>
          <Select id={`${id}-kind`} value={f.kind} onChange={text("kind")} className="w-full">
            <option value="consumable">Consumable (bought again and again)</option>
            <option value="non_consumable">Non-consumable (once per player)</option>
          </Select>
        </div>
        <div>
          <Label htmlFor={`${id}-price`}>Price</Label>
          <Input id={`${id}-price`} value={f.price} onChange={text("price")} placeholder="4.99" inputMode="decimal" />
          <p className="mt-1 text-xs text-zinc-500">For reports; Steam charges it (a Steam product needs one).</p>
        </div>
        <div>
          <Label htmlFor={`${id}-currency`}>Price currency</Label>
          <Input id={`${id}-currency`} value={f.priceCurrency} onChange={text("priceCurrency")} placeholder="USD" maxLength={3} />
        </div>
      </div>
      <fieldset className="rounded-md border border-zinc-200 p-3">
        <legend className="px-1 font-medium text-zinc-700">Rewards</legend>
        {options.length === 0 && <p className="text-zinc-500">Create a currency or an item first (Economy): rewards pick from them.</p>}
        {f.rewards.map((d, index) => (
          <LineInputs
            key={String(index)}
            className="mb-2 flex flex-wrap gap-2 sm:flex-nowrap"
            options={options}
            pick={{
              label: `Rewards line ${index + 1}`,
              value: d.ref,
              onChange: (ref) => setF((v) => ({ ...v, rewards: v.rewards.map((r, i) => (i === index ? { ...r, ref } : r)) })),
            }}
            amount={{
              "aria-label": `Rewards amount ${index + 1}`,
              max: MAX_AMOUNT,
              value: d.amount,
              onChange: (e) =>
                setF((v) => ({ ...v, rewards: v.rewards.map((r, i) => (i === index ? { ...r, amount: e.target.value } : r)) })),
            }}
            removeLabel={`Remove rewards line ${index + 1}`}
            onRemove={() => setF((v) => ({ ...v, rewards: v.rewards.filter((_, i) => i !== index) }))}
          />
        ))}
        <Button variant="secondary" onClick={() => setF((v) => ({ ...v, rewards: [...v.rewards, { ref: "", amount: "" }] }))}>
          <Plus className="mr-1 size-4" aria-hidden />
          Add a reward
        </Button>
      </fieldset>
      {problems.length > 0 && (
        <p role="alert" className="text-red-700">
          {problems.join(" ")}
        </p>
      )}
      <div className="flex gap-2">
        <Button type="submit" disabled={create.isPending || update.isPending}>
          {initial ? "Save store product" : "Create store product"}
        </Button>
        <Button variant="secondary" onClick={() => void onDone()}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
