"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Badge, Button, Card, Input, Select, State } from "@/components/ui/primitives";
import { messageOf } from "./errors";
import { GameTable, WIDE } from "./game-table";

const signed = (n: number) => (n > 0 ? `+${n.toLocaleString()}` : n.toLocaleString());

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
      {canEdit && <AdjustForm projectId={projectId} playerId={playerId} onDone={refresh} />}
      <Card title="Ledger">
        {ledger.isPending ? (
          <State kind="loading">Loading the ledger…</State>
        ) : ledger.error ? (
          <State kind="error">{messageOf(ledger.error)}</State>
        ) : transactions.length === 0 ? (
          <State kind="empty">No economy changes yet.</State>
        ) : (
          <GameTable
            head={[
              { label: "Change" },
              { label: "Amounts" },
              { label: "Who" },
              { label: "Reason", wide: true },
              { label: "Request", wide: true },
            ]}
          >
            {transactions.map((t) => (
              <tr key={t.id} data-testid="ledger-row">
                <td className="px-2 py-2">
                  <Badge
                    tone={
                      t.kind === "revoke" || t.kind === "subtract" ? "red" : t.kind === "grant" || t.kind === "add" ? "green" : "neutral"
                    }
                  >
                    {t.kind}
                  </Badge>
                  {t.purchaseId && <div className="font-mono text-xs text-zinc-500">{t.purchaseId}</div>}
                  <div className="text-xs text-zinc-500">{new Date(t.createdAt).toLocaleString()}</div>
                </td>
                <td className="px-2 py-2 font-mono text-xs">
                  {[
                    ...t.currencies.map((c) => `${c.id} ${signed(c.delta)} → ${c.balance.toLocaleString()}`),
                    ...t.items.map((i) => `${i.itemId} ${signed(i.delta)} → ${i.quantity.toLocaleString()}`),
                  ].map((line) => (
                    <div key={line}>{line}</div>
                  ))}
                </td>
                <td className="px-2 py-2">
                  <div>{t.actor.label}</div>
                  <div className="text-xs text-zinc-500">{t.actor.kind}</div>
                  {t.reason && <div className="mt-1 text-xs sm:hidden">“{t.reason}”</div>}
                </td>
                <td className={`px-2 py-2 ${WIDE}`}>{t.reason ?? "—"}</td>
                <td className={`px-2 py-2 font-mono text-xs break-all ${WIDE}`}>{t.requestId ?? "—"}</td>
              </tr>
            ))}
          </GameTable>
        )}
        {ledger.hasNextPage && (
          <div className="mt-3 text-center">
            <Button variant="secondary" disabled={ledger.isFetchingNextPage} onClick={() => ledger.fetchNextPage()}>
              Older changes
            </Button>
          </div>
        )}
      </Card>
    </>
  );
}

function AdjustForm({ projectId, playerId, onDone }: { projectId: string; playerId: string; onDone: () => Promise<unknown> }) {
  const trpc = useTRPC();
  const currencies = useQuery(trpc.economy.currencies.queryOptions({ projectId }));
  const items = useQuery(trpc.economy.items.queryOptions({ projectId }));
  const [direction, setDirection] = useState<"grant" | "revoke">("grant");
  const [target, setTarget] = useState("");
  const [amount, setAmount] = useState("");
  const [reason, setReason] = useState("");
  const adjust = useMutation(
    trpc.economy.adjust.mutationOptions({
      onSuccess: async () => {
        setAmount("");
        setReason("");
        await onDone();
      },
    }),
  );
  const options = [
    ...(currencies.data ?? []).map((c) => ({ value: `currency:${c.id}`, label: `${c.name} (currency)` })),
    ...(items.data ?? []).map((i) => ({ value: `item:${i.id}`, label: `${i.name} (item)` })),
  ];
  const chosen = target || options[0]?.value || "";
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const [kind, id = ""] = chosen.split(":");
    const n = Number(amount);
    if (!window.confirm(`${direction === "grant" ? "Grant" : "Revoke"} ${n} ${id}? Reason: ${reason}`)) return;
    adjust.mutate({
      projectId,
      playerId,
      direction,
      reason,
      ...(kind === "currency" ? { currencies: [{ currencyId: id, amount: n }] } : { items: [{ itemId: id, quantity: n }] }),
    });
  };
  return (
    <Card title="Grant or revoke">
      {options.length === 0 ? (
        <State kind="empty">Define currencies or items on the Economy page first.</State>
      ) : (
        <form onSubmit={submit} className="grid grid-cols-1 gap-2 sm:grid-cols-2 lg:grid-cols-[auto_1fr_8rem_2fr_auto]">
          <Select aria-label="Grant or revoke" value={direction} onChange={(e) => setDirection(e.target.value as "grant" | "revoke")}>
            <option value="grant">Grant</option>
            <option value="revoke">Revoke</option>
          </Select>
          <Select aria-label="Currency or item" value={chosen} onChange={(e) => setTarget(e.target.value)}>
            {options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </Select>
          <Input
            aria-label="Amount"
            placeholder="Amount"
            type="number"
            min={1}
            step={1}
            required
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
          />
          <Input
            aria-label="Reason"
            placeholder="Reason (kept in the ledger and the audit log)"
            required
            maxLength={500}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
          />
          <Button type="submit" disabled={adjust.isPending || reason.trim() === "" || amount === ""}>
            {direction === "grant" ? "Grant" : "Revoke"}
          </Button>
        </form>
      )}
      {adjust.error && (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {messageOf(adjust.error)}
        </p>
      )}
    </Card>
  );
}
