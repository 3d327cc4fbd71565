"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Badge, Card, Input, State, Table } from "@/components/ui/primitives";
import { messageOf } from "./errors";

export function PlayerSearch({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const [query, setQuery] = useState("");
  const players = useQuery(trpc.players.search.queryOptions({ projectId, query, limit: 25 }));
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Players</h1>
      <Card>
        <Input
          aria-label="Search players"
          placeholder="Player id, e-mail, linked identity or the start of a display name"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <div className="mt-4">
          {players.isPending ? (
            <State kind="loading">Searching…</State>
          ) : players.error ? (
            <State kind="error">{messageOf(players.error)}</State>
          ) : players.data.length === 0 ? (
            <State kind="empty">{query ? "No player matches." : "No players yet."}</State>
          ) : (
            <Table head={["Player", "Display name", "E-mail", "Created", "State"]}>
              {players.data.map((p) => (
                <tr key={p.id}>
                  <td className="px-2 py-2 font-mono text-xs">
                    <Link className="text-blue-700 hover:underline" href={`/projects/${projectId}/players/${p.id}`}>
                      {p.id}
                    </Link>
                  </td>
                  <td className="px-2 py-2">{p.displayName ?? "—"}</td>
                  <td className="px-2 py-2">{p.email ?? "—"}</td>
                  <td className="px-2 py-2">{new Date(p.createdAt).toLocaleString()}</td>
                  <td className="px-2 py-2">{p.banned ? <Badge tone="red">banned</Badge> : <Badge tone="green">active</Badge>}</td>
                </tr>
              ))}
            </Table>
          )}
        </div>
      </Card>
    </div>
  );
}
