"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { toast } from "sonner";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { Button, Card, Input, Label, ScrollRegion, State } from "@/components/ui/primitives";
import { STORE_LABELS } from "@/server/services/store/schemas";
import { messageOf } from "./errors";
import { useProject } from "./project-context";
import { money, PurchaseStatus, shortfallInWords } from "./purchases-format";
import { When } from "./when";

type Detail = RouterOutputs["store"]["purchase"];
type LedgerRow = NonNullable<Detail["grant"]>;

const lines = (l: LedgerRow) =>
  [
    ...l.currencies.map((c) => `${c.delta > 0 ? "+" : ""}${c.delta} ${c.id}`),
    ...l.items.map((i) => `${i.delta > 0 ? "+" : ""}${i.delta} ${i.itemId}`),
  ].join(", ") || "nothing";

/** One store purchase: what the store said, the ledger rows it made, the store's notifications about it, and the refund by hand. */
export function PurchaseDetail({ projectId, receiptId, onClose }: { projectId: string; receiptId: string; onClose: () => void }) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.store.purchase.queryOptions({ projectId, receiptId }));
  const p = detail.data;
  return (
    <Card
      title={p ? `${STORE_LABELS[p.store]} purchase ${p.storeTransactionId ?? p.receiptId}` : "Purchase"}
      actions={
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      }
    >
      {detail.isPending ? (
        <State kind="loading">Loading the purchase…</State>
      ) : detail.error ? (
        <State kind="error">{messageOf(detail.error)}</State>
      ) : p ? (
        <div className="space-y-4" data-testid="store-purchase-detail">
          <dl className="grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
            <dt className="text-zinc-500">Status</dt>
            <dd data-testid="store-purchase-status">
              <PurchaseStatus status={p.status} refusal={p.refusal} />
            </dd>
            <dt className="text-zinc-500">Receipt id (ours)</dt>
            <dd className="break-all font-mono text-xs">{p.receiptId}</dd>
            <dt className="text-zinc-500">Store transaction</dt>
            <dd className="break-all font-mono text-xs">
              {p.storeTransactionId ?? "—"}
              {p.originalTransactionId && p.originalTransactionId !== p.storeTransactionId ? ` (original ${p.originalTransactionId})` : ""}
            </dd>
            <dt className="text-zinc-500">Product</dt>
            <dd>
              {p.productId ?? "—"} {p.storeProductId ? <span className="text-zinc-500">({p.storeProductId})</span> : null} × {p.quantity}
            </dd>
            <dt className="text-zinc-500">Player</dt>
            <dd>
              {p.playerId ? (
                <Link className="underline" href={`/projects/${projectId}/players/${p.playerId}`}>
                  {p.playerName ?? p.playerId}
                </Link>
              ) : (
                "deleted player"
              )}
            </dd>
            <dt className="text-zinc-500">Price</dt>
            <dd>{money(p.priceMicros, p.currency)}</dd>
            <dt className="text-zinc-500">Environment</dt>
            <dd>{p.environment ?? "—"}</dd>
            <dt className="text-zinc-500">Recorded</dt>
            <dd>
              <When value={p.createdAt} />
            </dd>
            {p.status === "refunded" && (
              <>
                <dt className="text-zinc-500">Refunded</dt>
                <dd>
                  <When value={p.refundedAt} />: {p.refundReason}
                </dd>
                <dt className="text-zinc-500">Not taken back</dt>
                <dd>{shortfallInWords(p.shortfall) || "nothing: everything granted was taken back"}</dd>
              </>
            )}
          </dl>
          <div>
            <h3 className="mb-1 text-sm font-semibold">Ledger</h3>
            <ul className="text-sm">
              {p.grant && (
                <li>
                  Grant <When value={p.grant.createdAt} />: {lines(p.grant)}
                </li>
              )}
              {p.refund && (
                <li>
                  Refund <When value={p.refund.createdAt} />: {lines(p.refund)}
                </li>
              )}
              {!p.grant && !p.refund && <li className="text-zinc-500">No ledger row: nothing was granted.</li>}
            </ul>
            {p.playerId && (p.grant || p.refund) && (
              <Link className="text-sm underline" href={`/projects/${projectId}/players/${p.playerId}`}>
                The player's ledger
              </Link>
            )}
          </div>
          <div>
            <h3 className="mb-1 text-sm font-semibold">Store notifications</h3>
            {p.notifications.length === 0 ? (
              <p className="text-sm text-zinc-500">None about this transaction.</p>
            ) : (
              <ul className="text-sm">
                {p.notifications.map((n) => (
                  <li key={n.id}>
                    <When value={n.receivedAt} />: {n.type}
                    {n.subtype ? ` / ${n.subtype}` : ""} → {n.outcome}
                  </li>
                ))}
              </ul>
            )}
          </div>
          <details>
            <summary className="cursor-pointer text-sm font-semibold">Evidence (what the store said, verified)</summary>
            <ScrollRegion label="Evidence" className="mt-2 max-h-64 rounded bg-zinc-50 p-2">
              <pre className="text-xs">{JSON.stringify(p.evidence, null, 2)}</pre>
            </ScrollRegion>
          </details>
          {p.status === "granted" && <RefundByHand projectId={projectId} purchase={p} />}
        </div>
      ) : null}
    </Card>
  );
}

/** Admins only: takes back what the purchase granted, with a reason; the money is returned in the store's console, not here. */
function RefundByHand({ projectId, purchase }: { projectId: string; purchase: Detail }) {
  const { canEdit } = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refund = useMutation(trpc.store.refund.mutationOptions());
  const [reason, setReason] = useState("");
  const [open, setOpen] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const id = useId();
  if (!canEdit) return null;
  return (
    <div className="rounded-md border border-zinc-200 p-3">
      <h3 className="mb-2 text-sm font-semibold">Refund by hand</h3>
      <form
        className="flex flex-wrap items-end gap-2"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          if (reason.trim().length < 3) {
            setProblem("Give a reason (at least 3 characters): it goes in the audit log.");
            return;
          }
          setProblem(null);
          setOpen(true);
        }}
      >
        <div className="min-w-64 flex-1">
          <Label htmlFor={id}>Reason</Label>
          <Input
            id={id}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            maxLength={500}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${id}-error` : undefined}
          />
        </div>
        <Button type="submit" variant="danger">
          Refund by hand
        </Button>
      </form>
      {problem && (
        <p id={`${id}-error`} role="alert" className="mt-1 text-sm text-red-700">
          {problem}
        </p>
      )}
      <ConfirmDialog
        open={open}
        onOpenChange={setOpen}
        title="Take this purchase back?"
        description={`What it granted is taken back from the player (no more than they still hold; the rest is recorded as not taken back), and the purchase shows as refunded. This does not return any money: refund the buyer in the ${STORE_LABELS[purchase.store]} console. The refund and its reason are recorded in the audit log.`}
        confirmLabel="Take it back"
        onConfirm={async () => {
          try {
            await refund.mutateAsync({ projectId, receiptId: purchase.receiptId, reason: reason.trim() });
            toast.success("Purchase refunded.");
            await Promise.all([
              queryClient.invalidateQueries({ queryKey: trpc.store.pathKey() }),
              queryClient.invalidateQueries({ queryKey: trpc.economy.pathKey() }),
            ]);
          } catch (error) {
            toast.error(messageOf(error));
            throw error;
          }
        }}
      />
    </div>
  );
}
