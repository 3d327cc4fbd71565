import { AppError } from "../../errors";
import { allowsPlainHttp, createEndpoint, deleteEndpoint, listEndpoints, updateEndpoint } from "../webhooks/endpoints";
import { MAX_ENDPOINTS_PER_PROJECT, SUBSCRIBABLE_EVENT_TYPES } from "../webhooks/schemas";
import type { ConfigWebhook } from "./webhook-schemas";

/** The configuration document's webhook endpoints (keyed by URL, never a secret): export, diff entries, refusals, apply. */

const canonical = (types: readonly string[]) => SUBSCRIBABLE_EVENT_TYPES.filter((t) => types.includes(t));

/** The project's endpoints as the document lists them: by URL, event types in their canonical order. */
export async function exportWebhooks(projectId: string): Promise<ConfigWebhook[]> {
  const endpoints = await listEndpoints(projectId);
  return endpoints
    .map((e) => ({ url: e.url, description: e.description, eventTypes: canonical(e.eventTypes), enabled: e.enabled }))
    .sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
}

type Entry = { id: string } & Record<string, unknown>;
const entryOf = (w: ConfigWebhook): Entry => ({
  id: w.url,
  description: w.description,
  eventTypes: canonical(w.eventTypes),
  enabled: w.enabled,
});

/** Current and desired entries for the generic diff (id = URL); a document without the list wants what is there. */
export function webhookEntries(current: ConfigWebhook[], desired: ConfigWebhook[] | undefined): { current: Entry[]; desired: Entry[] } {
  return { current: current.map(entryOf), desired: (desired ?? current).map(entryOf) };
}

type Diff = {
  created: Array<{ id: string }>;
  changed: Array<{ id: string; fields: Array<{ field: string }> }>;
  deleted: Array<{ id: string }>;
};
type Refusal = { kind: "webhooks"; id: string; action: "create" | "change" | "delete"; code: string; message: string };

/** What the endpoint service would refuse: plain http where it is not allowed, more endpoints than a project may have. */
export function webhookRefusals(currentCount: number, diff: Diff): Refusal[] {
  const refusals: Refusal[] = [];
  if (!allowsPlainHttp()) {
    for (const { id } of diff.created)
      if (id.startsWith("http:"))
        refusals.push({
          kind: "webhooks",
          id,
          action: "create",
          code: "VALIDATION_ERROR",
          message: "url: must be https (http only where the instance allows private networks).",
        });
  }
  const total = currentCount - diff.deleted.length + diff.created.length;
  const [first] = diff.created;
  if (total > MAX_ENDPOINTS_PER_PROJECT && first)
    refusals.push({
      kind: "webhooks",
      id: first.id,
      action: "create",
      code: "LIMIT_EXCEEDED",
      message: `A project has at most ${MAX_ENDPOINTS_PER_PROJECT} webhook endpoints (this would make ${total}).`,
    });
  return refusals;
}

/** Deletes, creates (with a secret nobody is shown) and updates endpoints as the diff says; in the import's transaction. */
export async function applyWebhookChanges(projectId: string, diff: Diff, desired: ConfigWebhook[] | undefined): Promise<void> {
  if (!desired) return;
  const byUrl = new Map((await listEndpoints(projectId)).map((e) => [e.url, e.id]));
  const wanted = new Map(desired.map((w) => [w.url, w]));
  for (const { id: url } of diff.deleted) {
    const endpointId = byUrl.get(url);
    if (endpointId) await deleteEndpoint(projectId, endpointId);
  }
  for (const { id: url } of diff.created) {
    const w = wanted.get(url);
    if (w) await createEndpoint(projectId, w);
  }
  for (const { id: url, fields } of diff.changed) {
    const w = wanted.get(url);
    const endpointId = byUrl.get(url);
    if (!w || !endpointId) throw new AppError("NOT_FOUND", { message: `Webhook endpoint ${url} not found.` });
    const patch = Object.fromEntries(fields.map((f) => [f.field, w[f.field as keyof ConfigWebhook]]));
    await updateEndpoint(projectId, endpointId, patch);
  }
}
