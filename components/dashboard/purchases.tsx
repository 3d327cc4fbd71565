"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { Search } from "lucide-react";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Button, Card, Input, Label, Select, State, Table } from "@/components/ui/primitives";
import { STORE_LABELS, STORE_NAMES, type Store } from "@/server/services/store/schemas";
import { messageOf } from "./errors";
import { PurchaseDetail } from "./purchases-detail";
import { money, PurchaseStatus } from "./purchases-format";
import { When } from "./when";

const STATUSES = ["granted", "refunded", "rejected", "pending"] as const;
type Status = (typeof STATUSES)[number];

/** The filters as the URL holds them (a link to a filtered list is shareable; back and forward work). */
function filtersOf(params: URLSearchParams) {
  const pick = <T extends string>(key: string, allowed: readonly T[]) => {
    const v = params.get(key);
    return v && (allowed as readonly string[]).includes(v) ? (v as T) : undefined;
  };
  const day = (key: string) => {
    const v = params.get(key);
    return v && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : undefined;
  };
  return {
    store: pick<Store>("store", STORE_NAMES),
    status: pick<Status>("status", STATUSES),
    productId: params.get("product") || undefined,
    from: day("from"),
    to: day("to"),
    q: params.get("q")?.trim() || undefined,
    open: params.get("open") || undefined,
  };
}

/** The day after `day` (YYYY-MM-DD): "to" in the form includes its day, the service's `to` is exclusive. */
const dayAfter = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

export function Purchases({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const f = filtersOf(new URLSearchParams(params.toString()));
  const [q, setQ] = useState(f.q ?? "");
  useEffect(() => setQ(f.q ?? ""), [f.q]);
  const setParam = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params.toString());
    for (const [k, v] of Object.entries(changes)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    router.replace(`${pathname}?${next.toString()}`, { scroll: false });
  };
  const input = {
    projectId,
    store: f.store,
    status: f.status,
    productId: f.productId,
    from: f.from,
    to: f.to ? dayAfter(f.to) : undefined,
    q: f.q,
    limit: 25,
  };
  const list = useInfiniteQuery(trpc.store.purchases.infiniteQueryOptions(input, { getNextPageParam: (page) => page.nextCursor }));
  const rows = list.data?.pages.flatMap((p) => p.purchases) ?? [];
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h1 className="text-2xl font-semibold">Purchases</h1>
        <Link className="text-sm underline" href={`/projects/${projectId}/store`}>
          Stores, products and refund policy
        </Link>
      </div>
      <Card title="Find">
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            setParam({ q: q.trim() || undefined, open: undefined });
          }}
        >
          <div className="min-w-64 flex-1">
            <Label htmlFor="purchase-q">Transaction, order or receipt id</Label>
            <Input id="purchase-q" value={q} onChange={(e) => setQ(e.target.value)} placeholder="2000000123456789" autoComplete="off" />
          </div>
          <Button type="submit">
            <Search className="mr-1 size-4" aria-hidden />
            Search
          </Button>
        </form>
        <div className="mt-3 flex flex-wrap items-end gap-2">
          <div>
            <Label htmlFor="purchase-store">Store</Label>
            <Select id="purchase-store" value={f.store ?? ""} onChange={(e) => setParam({ store: e.target.value || undefined })}>
              <option value="">All stores</option>
              {STORE_NAMES.map((s) => (
                <option key={s} value={s}>
                  {STORE_LABELS[s]}
                </option>
              ))}
            </Select>
          </div>
          <div>
            <Label htmlFor="purchase-status">Status</Label>
            <Select id="purchase-status" value={f.status ?? ""} onChange={(e) => setParam({ status: e.target.value || undefined })}>
              <option value="">Any status</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </Select>
          </div>
          <div>
            <Label htmlFor="purchase-product">Product id</Label>
            <Input
              id="purchase-product"
              defaultValue={f.productId ?? ""}
              key={f.productId ?? ""}
              onBlur={(e) => setParam({ product: e.target.value.trim() || undefined })}
              placeholder="gems-500"
            />
          </div>
          <div>
            <Label htmlFor="purchase-from">From</Label>
            <Input id="purchase-from" type="date" value={f.from ?? ""} onChange={(e) => setParam({ from: e.target.value || undefined })} />
          </div>
          <div>
            <Label htmlFor="purchase-to">To (included)</Label>
            <Input id="purchase-to" type="date" value={f.to ?? ""} onChange={(e) => setParam({ to: e.target.value || undefined })} />
          </div>
          <Button variant="secondary" onClick={() => router.replace(pathname, { scroll: false })}>
            Clear
          </Button>
        </div>
      </Card>
      {f.open && <PurchaseDetail projectId={projectId} receiptId={f.open} onClose={() => setParam({ open: undefined })} />}
      <Card title="Store purchases">
        {list.isPending ? (
          <State kind="loading">Loading purchases…</State>
        ) : list.error ? (
          <State kind="error">{messageOf(list.error)}</State>
        ) : rows.length === 0 ? (
          <State kind="empty">No purchases match.</State>
        ) : (
          <>
            <Table
              head={[
                "When",
                "Store",
                "Transaction",
                "Product",
                "Player",
                "Price",
                "Status",
                <span key="actions" className="sr-only">
                  Actions
                </span>,
              ]}
            >
              {rows.map((p) => (
                <tr key={p.receiptId} data-testid="store-purchase-row">
                  <td className="px-2 py-2">
                    <When value={p.createdAt} />
                  </td>
                  <td className="px-2 py-2">
                    {STORE_LABELS[p.store]}
                    {p.environment === "sandbox" ? " (sandbox)" : ""}
                  </td>
                  <td className="break-all px-2 py-2 font-mono text-xs">{p.storeTransactionId ?? "—"}</td>
                  <td className="px-2 py-2">{p.productId ?? p.storeProductId ?? "—"}</td>
                  <td className="px-2 py-2">
                    {p.playerId ? (
                      <Link className="underline" href={`/projects/${projectId}/players/${p.playerId}`}>
                        {p.playerName ?? `${p.playerId.slice(0, 8)}…`}
                      </Link>
                    ) : (
                      "—"
                    )}
                  </td>
                  <td className="whitespace-nowrap px-2 py-2">{money(p.priceMicros, p.currency)}</td>
                  <td className="px-2 py-2">
                    <PurchaseStatus status={p.status} refusal={p.refusal} />
                  </td>
                  <td className="px-2 py-2">
                    <Button
                      variant="secondary"
                      onClick={() => setParam({ open: p.receiptId })}
                      aria-label={`Open purchase ${p.storeTransactionId ?? p.receiptId}`}
                    >
                      Open
                    </Button>
                  </td>
                </tr>
              ))}
            </Table>
            {list.hasNextPage && (
              <Button variant="secondary" className="mt-3" disabled={list.isFetchingNextPage} onClick={() => list.fetchNextPage()}>
                {list.isFetchingNextPage ? "Loading…" : "Load more"}
              </Button>
            )}
          </>
        )}
      </Card>
    </div>
  );
}
