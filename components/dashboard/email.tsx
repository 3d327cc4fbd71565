"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Badge, Button, Card, State } from "@/components/ui/primitives";
import { SelectMenu } from "@/components/ui/select";
import { EmailSettingsCard } from "./email-settings";
import { messageOf } from "./errors";
import { When } from "./when";

type Message = RouterOutputs["email"]["list"]["messages"][number];
type Filter = "all" | Message["status"];
const FILTERS: { value: Filter; label: string }[] = [
  { value: "all", label: "All messages" },
  { value: "QUEUED", label: "Queued" },
  { value: "SENT", label: "Sent" },
  { value: "FAILED", label: "Failed" },
  { value: "OUTBOX", label: "Outbox (not sent)" },
];
const STATUS: Record<Message["status"], { label: string; tone: "neutral" | "red" | "green" }> = {
  QUEUED: { label: "queued", tone: "neutral" },
  SENT: { label: "sent", tone: "green" },
  FAILED: { label: "failed", tone: "red" },
  OUTBOX: { label: "outbox", tone: "neutral" },
};

/**
 * A message's text on request: opening it is recorded in the audit log (email.open), and its
 * code is masked — codes reach players only, never the dashboard.
 */
function MessageText({ projectId, message }: { projectId: string; message: Message }) {
  const trpc = useTRPC();
  const [shown, setShown] = useState(false);
  // Fetched once per click, never refetched in the background: every fetch is an audit row.
  const open = useQuery({
    ...trpc.email.open.queryOptions({ projectId, id: message.id }),
    enabled: shown,
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
    retry: false,
  });
  if (open.data) {
    return (
      <pre className="max-w-md whitespace-pre-wrap break-words rounded bg-zinc-50 p-2 text-xs" data-testid="email-text">
        {`From: ${open.data.from}\n\n${open.data.text}`}
      </pre>
    );
  }
  return (
    <span className="flex flex-col gap-1">
      <Button variant="secondary" disabled={shown && open.isFetching} onClick={() => setShown(true)}>
        {shown && open.isFetching ? "Opening…" : "Show text"}
      </Button>
      {open.error && <span className="text-xs text-red-700">{messageOf(open.error)}</span>}
    </span>
  );
}

const col = columnsFor<Message>();
const columnsOf = (projectId: string): DataTableColumns<Message> => [
  col.accessor("createdAt", {
    header: "When",
    enableSorting: false,
    cell: (c) => <When value={c.getValue()} />,
  }),
  col.accessor("to", { header: "To", enableSorting: false, cell: (c) => <span className="break-all">{c.getValue()}</span> }),
  col.accessor("subject", { header: "Subject", enableSorting: false }),
  col.accessor("status", {
    header: "Status",
    enableSorting: false,
    cell: ({ row: { original: m } }) => (
      <span className="flex flex-col gap-1">
        <span>
          <Badge tone={STATUS[m.status].tone}>{STATUS[m.status].label}</Badge>
        </span>
        <span className="text-xs text-zinc-600">
          {m.attempts} attempt{m.attempts === 1 ? "" : "s"}
          {m.sentAt ? (
            <>
              , sent <When value={m.sentAt} />
            </>
          ) : (
            ""
          )}
        </span>
        {m.lastError && <span className="break-all font-mono text-xs text-red-700">{m.lastError}</span>}
      </span>
    ),
  }),
  col.display({
    id: "body",
    header: "Message",
    cell: ({ row: { original: m } }) => <MessageText projectId={projectId} message={m} />,
  }),
];

/**
 * The project's e-mail to players (reset and verification codes), newest first. Without
 * SMTP_URL nothing is sent: the messages wait here as "outbox", for an operator to read.
 */
export function EmailLog({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const [filter, setFilter] = useState<Filter>("all");
  const log = useInfiniteQuery(
    trpc.email.list.infiniteQueryOptions(
      { projectId, limit: 25, ...(filter !== "all" ? { status: filter } : {}) },
      { getNextPageParam: (last) => last.nextCursor ?? undefined, refetchInterval: 10_000 },
    ),
  );
  const messages = useMemo(() => log.data?.pages.flatMap((p) => p.messages), [log.data]);
  const columns = useMemo(() => columnsOf(projectId), [projectId]);
  const smtp = log.data?.pages[0]?.smtpConfigured;
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">E-mail</h1>
        <p className="text-sm text-zinc-600">
          Password reset and verification messages sent to players, and how their delivery went. Codes are never shown here: only the
          player's mailbox gets them. Opening a message's text is recorded in the audit log.
        </p>
      </div>
      {smtp === false && (
        <State kind="empty">
          No mail server is configured (SMTP_URL), so nothing is sent: messages are kept here as outbox, their codes masked (under `npm run
          dev` the code is printed in the terminal). With SMTP_URL set, new messages are sent; those already in the outbox stay here.
        </State>
      )}
      <EmailSettingsCard projectId={projectId} />
      <Card
        title="Messages"
        actions={<SelectMenu aria-label="Filter by status" className="w-44" value={filter} onValueChange={setFilter} options={FILTERS} />}
      >
        {log.isPending ? (
          <State kind="loading">Loading…</State>
        ) : log.error ? (
          <State kind="error">{messageOf(log.error)}</State>
        ) : !messages || messages.length === 0 ? (
          <State kind="empty">{filter === "all" ? "No e-mail yet." : "No messages with this status."}</State>
        ) : (
          <DataTable columns={columns} data={messages} getRowId={(m) => m.id} rowTestId="email-row" minWidth={900} />
        )}
        {log.hasNextPage && (
          <div className="mt-3 text-center">
            <Button variant="secondary" disabled={log.isFetchingNextPage} onClick={() => log.fetchNextPage()}>
              {log.isFetchingNextPage ? "Loading…" : "Older messages"}
            </Button>
          </div>
        )}
      </Card>
    </div>
  );
}
