"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/components/providers/trpc";
import { Card, State, Table } from "@/components/ui/primitives";
import { STORE_LABELS } from "@/server/services/store/schemas";
import { messageOf } from "./errors";
import { money, PurchaseStatus, shortfallInWords } from "./purchases-format";

/** The player's store purchases (newest 25) with their status, and what refunds could not take back. */
export function PlayerStore({ projectId, playerId }: { projectId: string; playerId: string }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.store.purchases.queryOptions({ projectId, playerId, limit: 25 }));
  return (
    <Card
      title="Store purchases"
      actions={
        <Link className="text-sm underline" href={`/projects/${projectId}/purchases`}>
          All purchases
        </Link>
      }
    >
      {list.isPending ? (
        <State kind="loading">Loading store purchases…</State>
      ) : list.error ? (
        <State kind="error">{messageOf(list.error)}</State>
      ) : list.data.purchases.length === 0 ? (
        <State kind="empty">No store purchases.</State>
      ) : (
        <Table head={["When", "Store", "Product", "Price", "Status", "Not taken back"]}>
          {list.data.purchases.map((p) => (
            <tr key={p.receiptId} data-testid="player-store-purchase">
              <td className="whitespace-nowrap px-2 py-2">
                <Link className="underline" href={`/projects/${projectId}/purchases?open=${p.receiptId}`}>
                  {new Date(p.createdAt).toLocaleString()}
                </Link>
              </td>
              <td className="px-2 py-2">
                {STORE_LABELS[p.store]}
                {p.environment === "sandbox" ? " (sandbox)" : ""}
              </td>
              <td className="px-2 py-2">{p.productId ?? p.storeProductId ?? "—"}</td>
              <td className="whitespace-nowrap px-2 py-2">{money(p.priceMicros, p.currency)}</td>
              <td className="px-2 py-2">
                <PurchaseStatus status={p.status} refusal={p.refusal} />
              </td>
              <td className="px-2 py-2">{shortfallInWords(p.shortfall) || "—"}</td>
            </tr>
          ))}
        </Table>
      )}
    </Card>
  );
}
