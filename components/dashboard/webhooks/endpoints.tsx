"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { AlertTriangle, RotateCw, Send } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { type RouterOutputs, useTRPC } from "@/components/providers/trpc";
import { ConfirmDialog } from "@/components/ui/alert-dialog";
import { OnceSecret } from "@/components/ui/once-secret";
import { Badge, Button, Card, State } from "@/components/ui/primitives";
import type { WebhookPolicy } from "@/server/services/webhooks/schemas";
import { messageOf } from "../errors";
import { when as dateOf, plural, span } from "../format";
import { useProject } from "../project-context";
import { CreateEndpoint, EditEndpoint } from "./create-endpoint";
import { Deliveries } from "./deliveries";
import { failingOf } from "./failing-notice";

type Endpoint = RouterOutputs["webhooks"]["list"][number];
const when = (d: string | null) => (d ? dateOf(d) : "—");

/** A project's webhook endpoints: status, owners told about failing ones, the operator's actions, one endpoint's deliveries. */
export function Webhooks({ projectId, policy }: { projectId: string; policy: WebhookPolicy }) {
  const trpc = useTRPC();
  const { canEdit } = useProject();
  const endpoints = useQuery(trpc.webhooks.list.queryOptions({ projectId }));
  const [secret, setSecret] = useState<{ secret: string; url: string } | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const failing = failingOf(endpoints.data);
  const shown = endpoints.data?.find((e) => e.id === selected) ?? null;
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h1 className="text-2xl font-semibold">Webhooks</h1>
        {canEdit && <CreateEndpoint projectId={projectId} onCreated={(s, url) => setSecret({ secret: s, url })} />}
      </div>
      {failing.map((e) => (
        <FailingBanner key={e.id} projectId={projectId} endpoint={e} policy={policy} />
      ))}
      {secret && (
        <Card title={`Signing secret of ${secret.url}`}>
          <OnceSecret
            secret={secret.secret}
            noun="signing secret"
            testId="webhook-secret"
            stored="it is kept encrypted and never displayed again; rotate it to get a new one"
            onDone={() => setSecret(null)}
          />
        </Card>
      )}
      <Card title="Endpoints">
        {endpoints.isPending ? (
          <State kind="loading">Loading endpoints…</State>
        ) : endpoints.error ? (
          <State kind="error">{messageOf(endpoints.error)}</State>
        ) : endpoints.data.length === 0 ? (
          <State kind="empty">
            No endpoints yet.
            {canEdit ? " Add one to have this project's events (players, purchases, leaderboards) sent to your services." : ""}
          </State>
        ) : (
          <ul className="divide-y divide-zinc-100" aria-label="Webhook endpoints">
            {endpoints.data.map((e) => (
              <EndpointRow
                key={e.id}
                projectId={projectId}
                endpoint={e}
                selected={selected === e.id}
                onSelect={() => setSelected(selected === e.id ? null : e.id)}
                onSecret={(s) => setSecret({ secret: s, url: e.url })}
              />
            ))}
          </ul>
        )}
      </Card>
      {shown && <Deliveries projectId={projectId} endpoint={shown} />}
    </div>
  );
}

function StatusBadge({ endpoint }: { endpoint: Endpoint }) {
  if (endpoint.enabled) return <Badge tone="green">enabled</Badge>;
  if (endpoint.disabledReason === "failing") return <Badge tone="red">disabled: failing</Badge>;
  return <Badge>disabled by an operator</Badge>;
}

function useEndpointActions(projectId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey({ projectId }) });
  return {
    trpc,
    refresh,
    update: useMutation(trpc.webhooks.update.mutationOptions()),
    remove: useMutation(trpc.webhooks.delete.mutationOptions()),
    rotate: useMutation(trpc.webhooks.rotateSecret.mutationOptions()),
    test: useMutation(trpc.webhooks.sendTest.mutationOptions()),
    queryClient,
  };
}

/** Told to the project's operators: what happened to a failing endpoint and how to get it back. */
function FailingBanner({ projectId, endpoint, policy }: { projectId: string; endpoint: Endpoint; policy: WebhookPolicy }) {
  const { canEdit } = useProject();
  const { update, refresh } = useEndpointActions(projectId);
  return (
    <div role="alert" data-testid="webhook-failing-banner" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900">
      <p className="flex items-center gap-1 font-medium">
        <AlertTriangle className="size-4 shrink-0" aria-hidden />
        <span className="break-all">{endpoint.url} was disabled because its deliveries kept failing</span>
      </p>
      <p className="mt-1">
        No delivery to it has succeeded{endpoint.failingSince ? ` since ${when(endpoint.failingSince)}` : ""}: on this instance an endpoint
        is turned off once its first failed attempt since the last success is {span(policy.disableAfterMs)} old, and each delivery is tried{" "}
        {plural(policy.attempts, "time")} over about {span(policy.retrySpanMs)}. Nothing is sent to it while it is off, but the events it
        subscribes to are still recorded. Check its latest deliveries below for the response codes and errors, fix the receiver, send a test
        event, then enable it again. Enabling sends only new events: to send what it missed, replay the time range from{" "}
        {endpoint.failingSince ? when(endpoint.failingSince) : "when it was turned off"} to now under its deliveries (events are kept for{" "}
        {plural(policy.retentionDays, "day")}).
      </p>
      {canEdit && (
        <Button
          variant="secondary"
          className="mt-2"
          onClick={async () => {
            try {
              await update.mutateAsync({ projectId, endpointId: endpoint.id, patch: { enabled: true } });
              toast.success(`Enabled ${endpoint.url}.`);
              await refresh();
            } catch (error) {
              toast.error(messageOf(error));
            }
          }}
        >
          Enable {endpoint.url}
        </Button>
      )}
    </div>
  );
}

function EndpointRow({
  projectId,
  endpoint: e,
  selected,
  onSelect,
  onSecret,
}: {
  projectId: string;
  endpoint: Endpoint;
  selected: boolean;
  onSelect: () => void;
  onSecret: (secret: string) => void;
}) {
  const { canEdit } = useProject();
  const { update, remove, rotate, test, refresh, queryClient, trpc } = useEndpointActions(projectId);
  const act = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work();
      toast.success(done);
      await refresh();
    } catch (error) {
      toast.error(messageOf(error));
      throw error;
    }
  };
  return (
    <li className="flex flex-col gap-2 py-3 lg:flex-row lg:items-start lg:justify-between" data-testid="webhook-endpoint">
      <div className="min-w-0 space-y-1">
        <p className="flex flex-wrap items-center gap-2">
          <span className="break-all font-mono text-sm">{e.url}</span>
          <StatusBadge endpoint={e} />
        </p>
        {e.description && <p className="text-sm text-zinc-600">{e.description}</p>}
        <p className="text-xs text-zinc-600">{e.eventTypes.join(", ")}</p>
        <p className="text-xs text-zinc-600">
          Last delivery: {e.lastDelivery ? `${e.lastDelivery.status.toLowerCase()}, ${when(e.lastDelivery.at)}` : "none yet"} · last 24 h:{" "}
          {e.failed24h} failed, {e.pending24h} pending
          {e.previousSecretUntil ? ` · the previous secret also signs until ${when(e.previousSecretUntil)}` : ""}
        </p>
      </div>
      <div className="flex shrink-0 flex-wrap gap-2">
        <Button
          variant="secondary"
          aria-expanded={selected}
          onClick={onSelect}
          aria-label={`${selected ? "Hide deliveries" : "Deliveries"} of ${e.url}`}
        >
          {selected ? "Hide deliveries" : "Deliveries"}
        </Button>
        {canEdit && (
          <>
            <EditEndpoint projectId={projectId} endpoint={e} />
            <Button
              variant="secondary"
              aria-label={`Send test to ${e.url}`}
              onClick={() =>
                act(async () => {
                  await test.mutateAsync({ projectId, endpointId: e.id });
                  await queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.queryKey() });
                }, "Test event queued.").catch(() => undefined)
              }
            >
              <Send className="mr-1 size-4" aria-hidden />
              Send test
            </Button>
            <Button
              variant="secondary"
              onClick={() =>
                act(
                  () => update.mutateAsync({ projectId, endpointId: e.id, patch: { enabled: !e.enabled } }),
                  e.enabled ? `Disabled ${e.url}.` : `Enabled ${e.url}.`,
                ).catch(() => undefined)
              }
            >
              {e.enabled ? "Disable" : "Enable"}
            </Button>
            <ConfirmDialog
              tone="primary"
              trigger={
                <Button variant="secondary" aria-label={`Rotate secret of ${e.url}`}>
                  <RotateCw className="mr-1 size-4" aria-hidden />
                  Rotate secret
                </Button>
              }
              title="Rotate the signing secret?"
              description="A new secret signs from now on; the current one keeps signing beside it for 24 hours, so your receiver can switch without missing deliveries. The new secret is shown once."
              confirmLabel="Rotate secret"
              onConfirm={() =>
                act(async () => {
                  const rotated = await rotate.mutateAsync({ projectId, endpointId: e.id });
                  onSecret(rotated.secret);
                }, "Rotated the secret.")
              }
            />
            <ConfirmDialog
              trigger={
                <Button variant="danger" aria-label={`Delete ${e.url}`}>
                  Delete
                </Button>
              }
              title="Delete this endpoint?"
              description={
                <>
                  <span className="block break-all font-mono">{e.url}</span>
                  <span className="mt-1 block">
                    No more events are sent to it, and its delivery history is deleted. This cannot be undone.
                  </span>
                </>
              }
              confirmLabel="Delete endpoint"
              onConfirm={() => act(() => remove.mutateAsync({ projectId, endpointId: e.id }), `Deleted ${e.url}.`)}
            />
          </>
        )}
      </div>
    </li>
  );
}
