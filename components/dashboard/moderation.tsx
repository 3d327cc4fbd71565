"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useId, useState } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/providers/trpc";
import { Badge, Button, Card, Input, Label, Select, State, Table } from "@/components/ui/primitives";
import { REASON_PATTERN } from "@/server/services/reports/schemas";
import { messageOf } from "./errors";
import { ModerationDetail } from "./moderation-detail";
import { useProject } from "./project-context";
import { When } from "./when";

const SORTS = [
  ["newest", "Newest report first"],
  ["most", "Most independent reporters first"],
] as const;
type Sort = (typeof SORTS)[number][0];

/** The filters as the URL holds them: a filtered queue or an open player is a link; Back works. */
function filtersOf(params: URLSearchParams) {
  const sort = params.get("sort");
  const reason = params.get("reason");
  const open = params.get("open");
  return {
    sort: (sort === "most" ? "most" : "newest") as Sort,
    reason: reason && REASON_PATTERN.test(reason) ? reason : undefined,
    open: open && /^[0-9a-f-]{36}$/i.test(open) ? open : undefined,
  };
}

/** The moderation queue: open player reports grouped by reported player, a player's file, and the report reasons. */
export function Moderation({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const f = filtersOf(new URLSearchParams(params.toString()));
  const setParam = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params.toString());
    for (const [k, v] of Object.entries(changes)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    router.replace(`${pathname}?${next.toString()}`, { scroll: false });
  };
  const queue = useQuery(trpc.moderation.queue.queryOptions({ projectId, sort: f.sort, reason: f.reason, limit: 50 }));
  const groups = queue.data?.groups ?? [];
  const reasons = queue.data?.reasons ?? [];
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Moderation</h1>
      <Card title="Filter">
        <div className="flex flex-wrap items-end gap-2">
          <div>
            <Label htmlFor="moderation-sort">Order</Label>
            <Select
              id="moderation-sort"
              value={f.sort}
              onChange={(e) => setParam({ sort: e.target.value === "most" ? "most" : undefined })}
            >
              {SORTS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </Select>
          </div>
          <div>
            <Label htmlFor="moderation-reason">Reason</Label>
            <Select id="moderation-reason" value={f.reason ?? ""} onChange={(e) => setParam({ reason: e.target.value || undefined })}>
              <option value="">Any reason</option>
              {reasons.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </Select>
          </div>
        </div>
      </Card>
      {f.open && <ModerationDetail projectId={projectId} playerId={f.open} onClose={() => setParam({ open: undefined })} />}
      <Card title="Open reports">
        {queue.isPending ? (
          <State kind="loading">Loading the queue…</State>
        ) : queue.error ? (
          <State kind="error">{messageOf(queue.error)}</State>
        ) : groups.length === 0 ? (
          <State kind="empty">No open reports{f.reason ? ` for ${f.reason}` : ""}.</State>
        ) : (
          <Table
            head={[
              "Player",
              "Reports",
              "Counted as",
              "Reasons",
              "Latest note",
              "Latest",
              // A visible header: an sr-only one is absolutely positioned outside the table's scroll box and widens the page on a phone.
              "Action",
            ]}
          >
            {groups.map((g) => (
              <tr key={g.playerId} data-testid="moderation-row">
                <td className="px-2 py-2">
                  {g.displayName ?? <span className="font-mono text-xs">{g.playerId.slice(0, 8)}…</span>}
                  {g.banned && (
                    <span className="ml-1">
                      <Badge tone="red">banned</Badge>
                    </span>
                  )}
                </td>
                <td className="px-2 py-2">
                  {g.reports} <span className="text-zinc-500">({g.reporters === 1 ? "1 reporter" : `${g.reporters} reporters`})</span>
                </td>
                <td className="min-w-48 max-w-72 px-2 py-2">
                  <span className="font-semibold" data-testid="moderation-weight">
                    {g.weight}
                  </span>
                  <p className="text-xs text-zinc-500" data-testid="moderation-why">
                    {g.why}
                  </p>
                </td>
                <td className="px-2 py-2">{g.reasons.map((r) => `${r.reason} ×${r.count}`).join(", ")}</td>
                <td className="max-w-64 break-words px-2 py-2">{g.latestNote ?? <span className="text-zinc-500">—</span>}</td>
                <td className="whitespace-nowrap px-2 py-2">
                  <When value={g.latestAt} />
                </td>
                <td className="px-2 py-2">
                  <Button
                    variant="secondary"
                    onClick={() => setParam({ open: g.playerId })}
                    aria-label={`Review ${g.displayName ?? g.playerId}`}
                  >
                    Review
                  </Button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
      <ReportReasons projectId={projectId} reasons={queue.data ? reasons : null} />
    </div>
  );
}

/** The reasons a game may send with a report, one per line; admins edit them (config-as-code's `reportReasons` too). */
function ReportReasons({ projectId, reasons }: { projectId: string; reasons: string[] | null }) {
  const { canEdit } = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const save = useMutation(trpc.moderation.setReasons.mutationOptions());
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const id = useId();
  const current = reasons?.join(", ") ?? "";
  useEffect(() => setText(current), [current]);
  if (!reasons) return null;
  return (
    <Card title="Report reasons">
      <p className="mb-2 text-sm text-zinc-600">What a game may send as a report's reason (POST /players/&#123;id&#125;/report).</p>
      {canEdit ? (
        <form
          className="flex flex-wrap items-end gap-2"
          noValidate
          onSubmit={async (e) => {
            e.preventDefault();
            const list = text
              .split(",")
              .map((s) => s.trim())
              .filter(Boolean);
            const bad = list.find((r) => !REASON_PATTERN.test(r));
            if (list.length === 0 || bad) {
              setProblem(bad ? `"${bad}": use lower-case letters, digits, _ and - (at most 32).` : "Keep at least one reason.");
              return;
            }
            setProblem(null);
            try {
              await save.mutateAsync({ projectId, reasons: [...new Set(list)] });
              toast.success("Report reasons saved.");
              await queryClient.invalidateQueries({ queryKey: trpc.moderation.pathKey() });
            } catch (error) {
              setProblem(messageOf(error));
            }
          }}
        >
          <div className="min-w-64 flex-1">
            <Label htmlFor={id}>Reasons, separated by commas</Label>
            <Input
              id={id}
              value={text}
              onChange={(e) => setText(e.target.value)}
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? `${id}-error` : undefined}
            />
          </div>
          <Button type="submit" disabled={save.isPending}>
            Save reasons
          </Button>
        </form>
      ) : (
        <p className="text-sm">{current}</p>
      )}
      {problem && (
        <p id={`${id}-error`} role="alert" className="mt-1 text-sm text-red-700">
          {problem}
        </p>
      )}
    </Card>
  );
}
