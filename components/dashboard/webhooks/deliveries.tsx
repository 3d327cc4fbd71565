"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { History } from "lucide-react";
import { useMemo, useState } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { columnsFor, DataTable, type DataTableColumns } from "@/components/ui/data-table";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field, FieldError } from "@/components/ui/field";
import { Badge, Button, Card, Input, ScrollRegion, State } from "@/components/ui/primitives";
import { SelectMenu } from "@/components/ui/select";
import { WEBHOOK_EVENT_TYPES } from "@/server/services/webhooks/schemas";
import { applyServerError, messageOf } from "../errors";
import { when as dateOf } from "../format";
import { plainly } from "../plain-issues";
import { useProject } from "../project-context";

type Endpoint = RouterOutputs["webhooks"]["list"][number];
type Delivery = RouterOutputs["webhooks"]["deliveries"]["deliveries"][number];
type Status = "" | Delivery["status"];
const when = (d: string | null) => (d ? dateOf(d) : "—");
const col = columnsFor<Delivery>();
const PAGE = 25;

const STATUS_OPTIONS = [
  { value: "all", label: "Any status" },
  { value: "PENDING", label: "Pending" },
  { value: "SUCCEEDED", label: "Succeeded" },
  { value: "FAILED", label: "Failed" },
] as const;
const TYPE_OPTIONS = [{ value: "all", label: "Any event type" }, ...WEBHOOK_EVENT_TYPES.map((t) => ({ value: t, label: t }))];

export function DeliveryStatus({ status }: { status: Delivery["status"] }) {
  if (status === "SUCCEEDED") return <Badge tone="green">succeeded</Badge>;
  if (status === "FAILED") return <Badge tone="red">failed</Badge>;
  return <Badge>pending</Badge>;
}

/** One endpoint's deliveries, newest first, paged on the server, filtered by status and event type; detail, resend and replay. */
export function Deliveries({ projectId, endpoint }: { projectId: string; endpoint: Endpoint }) {
  const trpc = useTRPC();
  const { canEdit } = useProject();
  const [status, setStatus] = useState<Status>("");
  const [eventType, setEventType] = useState<string>("");
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const [open, setOpen] = useState<string | null>(null);
  const cursor = cursors[cursors.length - 1] ?? null;
  const page = useQuery({
    ...trpc.webhooks.deliveries.queryOptions({
      projectId,
      endpointId: endpoint.id,
      limit: PAGE,
      cursor,
      ...(status ? { status } : {}),
      ...(eventType ? { eventType: eventType as (typeof WEBHOOK_EVENT_TYPES)[number] } : {}),
    }),
    placeholderData: keepPreviousData,
  });
  const columns = useMemo<DataTableColumns<Delivery>>(
    () => [
      col.accessor("eventType", {
        header: "Event",
        enableSorting: false,
        cell: (c) => <span className="font-mono text-xs">{c.getValue()}</span>,
      }),
      col.accessor("status", { header: "Status", enableSorting: false, cell: (c) => <DeliveryStatus status={c.getValue()} /> }),
      col.accessor("attempts", { header: "Attempts", enableSorting: false }),
      col.accessor("responseStatus", { header: "Code", enableSorting: false, cell: (c) => c.getValue() ?? "—" }),
      col.accessor("responseMs", {
        header: "Time",
        enableSorting: false,
        cell: (c) => (c.getValue() === null ? "—" : `${c.getValue()} ms`),
      }),
      col.accessor("lastAttemptAt", { header: "Last attempt", enableSorting: false, cell: (c) => when(c.getValue()) }),
      col.accessor("nextAttemptAt", { header: "Next attempt", enableSorting: false, cell: (c) => when(c.getValue()) }),
      col.display({
        id: "open",
        header: () => <span className="sr-only">Details</span>,
        cell: ({ row: { original: d } }) => (
          <Button variant="secondary" onClick={() => setOpen(d.id)} aria-label={`Details of the ${d.eventType} delivery ${d.eventId}`}>
            Details
          </Button>
        ),
      }),
    ],
    [],
  );
  const filter = (apply: () => void) => {
    apply();
    setCursors([null]);
  };
  return (
    <Card title={<span className="break-all">Deliveries to {endpoint.url}</span>}>
      <div className="mb-3 flex flex-wrap items-end gap-2">
        <SelectMenu
          aria-label="Filter by status"
          value={status || "all"}
          onValueChange={(v) => filter(() => setStatus(v === "all" ? "" : (v as Status)))}
          options={STATUS_OPTIONS}
        />
        <SelectMenu
          aria-label="Filter by event type"
          value={eventType || "all"}
          onValueChange={(v) => filter(() => setEventType(v === "all" ? "" : v))}
          options={TYPE_OPTIONS}
        />
        <Button variant="secondary" onClick={() => page.refetch()}>
          Refresh
        </Button>
      </div>
      {page.isPending ? (
        <State kind="loading">Loading deliveries…</State>
      ) : page.error ? (
        <State kind="error">{messageOf(page.error)}</State>
      ) : page.data.deliveries.length === 0 ? (
        <State kind="empty">
          {status || eventType ? "No deliveries match these filters." : "No deliveries yet. Send a test event to see one."}
        </State>
      ) : (
        <DataTable columns={columns} data={page.data.deliveries} getRowId={(d) => d.id} rowTestId="webhook-delivery" minWidth={860} />
      )}
      <div className="mt-3 flex gap-2">
        <Button variant="secondary" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </Button>
        <Button
          variant="secondary"
          disabled={!page.data?.nextCursor}
          onClick={() => page.data?.nextCursor && setCursors([...cursors, page.data.nextCursor])}
        >
          Older
        </Button>
      </div>
      {canEdit && <Replay projectId={projectId} endpoint={endpoint} />}
      <DeliveryDetail projectId={projectId} deliveryId={open} onClose={() => setOpen(null)} />
    </Card>
  );
}

function DeliveryDetail({ projectId, deliveryId, onClose }: { projectId: string; deliveryId: string | null; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { canEdit } = useProject();
  const detail = useQuery({
    ...trpc.webhooks.delivery.queryOptions({ projectId, deliveryId: deliveryId ?? "" }),
    enabled: deliveryId !== null,
  });
  const resend = useMutation(trpc.webhooks.resend.mutationOptions());
  const d = detail.data;
  return (
    <Dialog open={deliveryId !== null} onOpenChange={(o) => !o && onClose()}>
      <DialogContent wide>
        <DialogHeader>
          <DialogTitle>Delivery</DialogTitle>
          <DialogDescription>{d ? `${d.eventType} · ${d.eventId}` : "Loading…"}</DialogDescription>
        </DialogHeader>
        {detail.isPending ? (
          <State kind="loading">Loading the delivery…</State>
        ) : detail.error ? (
          <State kind="error">{messageOf(detail.error)}</State>
        ) : d ? (
          <div className="min-w-0 space-y-3 text-sm">
            <p className="flex flex-wrap items-center gap-2">
              <DeliveryStatus status={d.status} /> {d.attempts} attempt{d.attempts === 1 ? "" : "s"} · code {d.responseStatus ?? "—"} ·{" "}
              {d.responseMs === null ? "—" : `${d.responseMs} ms`} · last {when(d.lastAttemptAt)}
              {d.nextAttemptAt ? ` · next ${when(d.nextAttemptAt)}` : ""}
            </p>
            {d.error && <p className="text-red-700">Error: {d.error}</p>}
            <h3 className="font-medium">Request body{d.requestTruncated ? " (first 4 KiB)" : ""}</h3>
            <ScrollRegion label="Request body" className="max-h-64 bg-zinc-50 p-2">
              <pre className="whitespace-pre-wrap break-all font-mono text-xs">{d.requestBody}</pre>
            </ScrollRegion>
            <h3 className="font-medium">Response body{d.responseTruncated ? " (first 4 KiB)" : ""}</h3>
            {d.responseBody === null ? (
              <p className="text-zinc-600">No response yet.</p>
            ) : (
              <ScrollRegion label="Response body" className="max-h-64 bg-zinc-50 p-2">
                <pre className="whitespace-pre-wrap break-all font-mono text-xs">{d.responseBody || "(empty)"}</pre>
              </ScrollRegion>
            )}
            {canEdit && (
              <Button
                onClick={async () => {
                  try {
                    await resend.mutateAsync({ projectId, deliveryId: d.id });
                    toast.success("Queued a new delivery of this event.");
                    await queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.queryKey() });
                    onClose();
                  } catch (error) {
                    toast.error(messageOf(error));
                  }
                }}
              >
                Resend
              </Button>
            )}
          </div>
        ) : null}
      </DialogContent>
    </Dialog>
  );
}

const ZReplayForm = z
  .object({ from: z.string().min(1, "Enter a date and time."), to: z.string().min(1, "Enter a date and time.") })
  .refine((r) => !r.from || !r.to || Date.parse(r.from) < Date.parse(r.to), { path: ["to"], message: "The end must be after the start." });

/** Sends again every stored event of the endpoint's types in [from, to) (times in the browser's zone). */
function Replay({ projectId, endpoint }: { projectId: string; endpoint: Endpoint }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const replay = useMutation(trpc.webhooks.replay.mutationOptions());
  const form = useForm({ resolver: zodResolver(ZReplayForm, plainly), defaultValues: { from: "", to: "" } });
  const errors = form.formState.errors;
  const submit = form.handleSubmit(async (values) => {
    try {
      const range = { from: new Date(values.from).toISOString(), to: new Date(values.to).toISOString() };
      const { count } = await replay.mutateAsync({ projectId, endpointId: endpoint.id, range });
      toast.success(count === 0 ? "No events of this endpoint's types in that range." : `Queued ${count} deliveries.`);
      await queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.queryKey() });
    } catch (error) {
      applyServerError(error, form.setError, ["from", "to"]);
    }
  });
  return (
    <form onSubmit={submit} noValidate className="mt-4 border-t border-zinc-200 pt-4">
      <h3 className="mb-2 flex items-center gap-1 text-sm font-medium">
        <History className="size-4" aria-hidden />
        Replay a time range
      </h3>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-[minmax(0,1fr)_minmax(0,1fr)_auto] sm:items-end">
        <Field label="From" htmlFor="replay-from" error={errors.from}>
          <Input id="replay-from" type="datetime-local" step={1} aria-invalid={errors.from ? true : undefined} {...form.register("from")} />
        </Field>
        <Field label="To (not included)" htmlFor="replay-to" error={errors.to}>
          <Input id="replay-to" type="datetime-local" step={1} aria-invalid={errors.to ? true : undefined} {...form.register("to")} />
        </Field>
        <Button type="submit" variant="secondary" disabled={form.formState.isSubmitting} className="self-start sm:mt-6">
          Replay
        </Button>
      </div>
      <FieldError error={errors.root?.server} />
      <p className="mt-1 text-xs text-zinc-600">
        Every stored event of the types this endpoint subscribes to is sent again, at most 10,000.
      </p>
    </form>
  );
}
