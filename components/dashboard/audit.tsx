"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Button, Card, Select, State, Table } from "@/components/ui/primitives";
import { messageOf } from "./errors";

const ACTIONS = ["", "project.", "key.", "player.", "member.", "provider."];

export function AuditLog({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const [action, setAction] = useState("");
  const log = useInfiniteQuery(
    trpc.audit.list.infiniteQueryOptions(
      { projectId, limit: 50, ...(action ? { action } : {}) },
      { getNextPageParam: (last) => last.nextCursor ?? undefined },
    ),
  );
  const entries = log.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Audit log</h1>
      <Card
        actions={
          <Select aria-label="Filter by action" value={action} onChange={(e) => setAction(e.target.value)}>
            {ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a ? `${a}*` : "All actions"}
              </option>
            ))}
          </Select>
        }
      >
        {log.isPending ? (
          <State kind="loading">Loading…</State>
        ) : log.error ? (
          <State kind="error">{messageOf(log.error)}</State>
        ) : entries.length === 0 ? (
          <State kind="empty">Nothing recorded yet.</State>
        ) : (
          <Table head={["When", "Who", "Action", "Target", "Before → after", "Request"]}>
            {entries.map((e) => (
              <tr key={e.id} data-testid="audit-row">
                <td className="px-2 py-2 whitespace-nowrap">{new Date(e.createdAt).toLocaleString()}</td>
                <td className="px-2 py-2">{e.operatorEmail ?? "—"}</td>
                <td className="px-2 py-2 font-mono text-xs">{e.action}</td>
                <td className="px-2 py-2 font-mono text-xs">{e.target ?? "—"}</td>
                <td className="px-2 py-2 font-mono text-xs">
                  {e.before === null ? "" : JSON.stringify(e.before)} {e.after === null ? "" : `→ ${JSON.stringify(e.after)}`}
                </td>
                <td className="px-2 py-2 font-mono text-xs">{e.requestId ?? "—"}</td>
              </tr>
            ))}
          </Table>
        )}
        {log.hasNextPage && (
          <div className="mt-3 text-center">
            <Button variant="secondary" disabled={log.isFetchingNextPage} onClick={() => log.fetchNextPage()}>
              Older entries
            </Button>
          </div>
        )}
      </Card>
    </div>
  );
}
