"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { Badge, Button, Card, Input, Select, State, Table } from "@/components/ui/primitives";
import { messageOf } from "./errors";

export function PlayerSearch({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const [query, setQuery] = useState("");
  const [offset, setOffset] = useState(0);
  const [sort, setSort] = useState<"newest" | "oldest" | "name">("newest");
  const PAGE = 25;
  const players = useQuery({
    ...trpc.players.search.queryOptions({ projectId, query, limit: PAGE, offset, sort }),
    placeholderData: (previous) => previous,
  });
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Players</h1>
      <Card
        actions={
          <Select
            aria-label="Sort players"
            value={sort}
            onChange={(e) => {
              setSort(e.target.value as typeof sort);
              setOffset(0);
            }}
          >
            <option value="newest">Newest first</option>
            <option value="oldest">Oldest first</option>
            <option value="name">By display name</option>
          </Select>
        }
      >
        <Input
          aria-label="Search players"
          placeholder="Player id, e-mail, linked identity or the start of a display name"
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setOffset(0);
          }}
        />
        <div className="mt-4">
          {players.isPending ? (
            <State kind="loading">Searching…</State>
          ) : players.error ? (
            <State kind="error">{messageOf(players.error)}</State>
          ) : players.data.players.length === 0 ? (
            <State kind="empty">{query ? "No player matches." : "No players yet."}</State>
          ) : (
            <Table head={["Player", "Display name", "E-mail", "Created", "State"]}>
              {players.data.players.map((p) => (
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
          {players.data && (offset > 0 || players.data.hasMore) && (
            <div className="mt-3 flex items-center justify-between text-sm text-zinc-600">
              <Button variant="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
                Previous
              </Button>
              <span>
                {offset + 1}–{offset + players.data.players.length}
              </span>
              <Button variant="secondary" disabled={!players.data.hasMore} onClick={() => setOffset(offset + PAGE)}>
                Next
              </Button>
            </div>
          )}
        </div>
      </Card>
    </div>
  );
}
