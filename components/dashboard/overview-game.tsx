"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/components/providers/trpc";
import { Card, State } from "@/components/ui/primitives";
import { messageOf } from "./errors";
import { StoreRevenue } from "./store-revenue";

/**
 * The game at a glance: the boards with the most entries in their current period (a counter per
 * period, one key lookup per board) and each currency's total in started wallets (one aggregate
 * over the project's wallet rows, linear in players × currencies — refetched once a minute).
 */
export function GameOverview({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const top = useQuery({ ...trpc.leaderboards.top.queryOptions({ projectId, limit: 5 }), refetchInterval: 60_000 });
  const totals = useQuery({ ...trpc.economy.totals.queryOptions({ projectId }), refetchInterval: 60_000 });
  return (
    <div className="grid grid-cols-1 gap-6 md:grid-cols-2">
      <Card
        title="Top leaderboards"
        actions={
          <Link className="text-sm text-blue-700 hover:underline" href={`/projects/${projectId}/leaderboards`}>
            All
          </Link>
        }
      >
        {top.isPending ? (
          <State kind="loading">Loading…</State>
        ) : top.error ? (
          <State kind="error">{messageOf(top.error)}</State>
        ) : top.data.boards.length === 0 ? (
          <State kind="empty">No leaderboards yet.</State>
        ) : (
          <ol className="divide-y divide-zinc-100 text-sm">
            {top.data.boards.map((b) => (
              <li key={b.id} className="flex items-center justify-between gap-2 py-2" data-testid="top-board">
                <Link className="text-blue-700 hover:underline" href={`/projects/${projectId}/leaderboards/${b.id}`}>
                  {b.name}
                </Link>
                <span className="text-zinc-600">
                  {b.entries.toLocaleString()} {b.entries === 1 ? "entry" : "entries"} this period
                </span>
              </li>
            ))}
          </ol>
        )}
      </Card>
      <Card
        title="Currency in circulation"
        actions={
          <Link className="text-sm text-blue-700 hover:underline" href={`/projects/${projectId}/economy`}>
            Economy
          </Link>
        }
      >
        {totals.isPending ? (
          <State kind="loading">Loading…</State>
        ) : totals.error ? (
          <State kind="error">{messageOf(totals.error)}</State>
        ) : totals.data.length === 0 ? (
          <State kind="empty">No currencies yet.</State>
        ) : (
          <ul className="divide-y divide-zinc-100 text-sm">
            {totals.data.map((c) => (
              <li key={c.id} className="flex items-center justify-between gap-2 py-2" data-testid={`circulation-${c.id}`}>
                <span>{c.name}</span>
                <span className="font-mono">
                  {BigInt(c.total).toLocaleString()}{" "}
                  <span className="font-sans text-xs text-zinc-500">held by {c.holders.toLocaleString()}</span>
                </span>
              </li>
            ))}
          </ul>
        )}
        <p className="mt-2 text-xs text-zinc-500">Sums of wallets players have used; unused wallets would hold the initial balance.</p>
      </Card>
      <div className="md:col-span-2">
        <StoreRevenue projectId={projectId} />
      </div>
    </div>
  );
}
