import { onBroadcast } from "../../cluster";
import { uuidv7 } from "../../crypto";
import { pool } from "../../db";
import { invalidateEverywhere } from "../../invalidate";
import type { WebhookEventType as EventType } from "./schemas";

/**
 * The events a project's webhook endpoints can subscribe to. Each is written to the outbox
 * (`webhook_events`) in the transaction of the change that caused it, so a change that rolls
 * back has no event and a change that commits cannot lose its event. An event is stored when
 * some endpoint of the project subscribes to its type, enabled or not, with one delivery per
 * enabled one: a disabled endpoint's events wait there (until the retention of
 * server/services/webhooks/retention.ts) for a replay after it is enabled again. Payloads are
 * documented in the OpenAPI document's `webhooks` section (server/openapi).
 */
// The list itself is client-safe (schemas.ts); the dashboard's forms read it too.
export { WEBHOOK_EVENT_TYPES as EVENT_TYPES, type WebhookEventType as EventType } from "./schemas";

export type EventInput = {
  projectId: string;
  type: EventType;
  /** The player the event is about: deliveries with the same player reach an endpoint in order. */
  playerId?: string | null;
  data: Record<string, unknown>;
  /** Only to this endpoint, whatever it subscribes to (a test event). */
  endpointId?: string;
};

/** `msg_<uuidv7 hex>`: the Standard Webhooks message id; sorts by time. */
export function eventId(now = Date.now()): string {
  return `msg_${uuidv7(now).replaceAll("-", "")}`;
}

// Projects known to have no endpoint at all (enabled or not), so the hot paths (purchases,
// currency changes, score submits) skip the outbox statement. Dropped on every endpoint change in every worker of
// this instance (invalidateEverywhere); other instances keep it at most NO_ENDPOINT_TTL_MS, so
// an endpoint created there may miss up to 5 s of events on this instance.
const NO_ENDPOINT_TTL_MS = 5_000;
// On globalThis: Next bundles this module into several chunks, and an endpoint change made through
// one (the dashboard's) must clear the entry the game API's copy reads.
const shared = globalThis as typeof globalThis & { __gameBackendNoEndpoints?: Map<string, number> };
shared.__gameBackendNoEndpoints ??= new Map();
const noEndpoints: Map<string, number> = shared.__gameBackendNoEndpoints;
export const ENDPOINTS_TOPIC = "webhook-endpoints";

/** Call after any change to a project's endpoints (inside its transaction is fine). */
export function endpointsChanged(projectId: string): Promise<void> {
  return invalidateEverywhere(ENDPOINTS_TOPIC, projectId, () => noEndpoints.delete(projectId));
}

onBroadcast(ENDPOINTS_TOPIC, (projectId) => noEndpoints.delete(projectId as string));

/**
 * False when the project is known (within NO_ENDPOINT_TTL_MS) to have no endpoint: a hot
 * path then skips both the event and the transaction it would need (server/services/webhooks/emit.ts).
 */
export function mayHaveEndpoints(projectId: string): boolean {
  const known = noEndpoints.get(projectId);
  return known === undefined || Date.now() - known >= NO_ENDPOINT_TTL_MS;
}

type Listener = () => void;
// On globalThis: the production build bundles this module into several chunks (each route's, the
// instrumentation's that starts the dispatcher), and a route's emitEvent must reach the listener
// the dispatcher registered from its own copy.
const listeners = globalThis as typeof globalThis & { __gameBackendDeliveriesWritten?: Map<string, Listener> };
/** The dispatcher registers here (once per name) to hear that deliveries were written; it polls anyway. */
export function onDeliveriesWritten(listener: Listener, name = "dispatcher"): void {
  listeners.__gameBackendDeliveriesWritten ??= new Map();
  listeners.__gameBackendDeliveriesWritten.set(name, listener);
}

/**
 * Writes an event and its deliveries with one statement, through `pool()`, so inside a
 * `transaction()` it is part of it. Returns the event id, or null when no endpoint (enabled or
 * not) subscribes to it: nothing is written.
 */
export async function emitEvent(e: EventInput): Promise<string | null> {
  const known = noEndpoints.get(e.projectId);
  if (!e.endpointId && known !== undefined && Date.now() - known < NO_ENDPOINT_TTL_MS) return null;
  const id = eventId();
  const { rows } = await pool().query<{ endpoints: number }>(
    `WITH sub AS (
       SELECT id, enabled FROM webhook_endpoints
        WHERE project_id = $1 AND (CASE WHEN $6::uuid IS NULL THEN $2 = ANY(event_types) ELSE id = $6::uuid END)
     ), ep AS (
       SELECT id FROM sub WHERE enabled OR $6::uuid IS NOT NULL
     ), ev AS (
       INSERT INTO webhook_events (id, project_id, type, player_id, data)
       SELECT $3, $1, $2, $4, $5::jsonb WHERE EXISTS (SELECT 1 FROM sub)
       RETURNING id
     ), d AS (
       INSERT INTO webhook_deliveries (id, project_id, endpoint_id, event_id, order_key)
       SELECT gen_random_uuid(), $1, ep.id, ev.id, $4 FROM ep, ev
       RETURNING 1
     )
     SELECT (SELECT count(*)::int FROM ev) AS events, (SELECT count(*)::int FROM d) AS deliveries,
            (SELECT count(*)::int FROM webhook_endpoints WHERE project_id = $1) AS endpoints`,
    [e.projectId, e.type, id, e.playerId ?? null, JSON.stringify(e.data), e.endpointId ?? null],
  );
  const row = rows[0] as { events: number; deliveries: number; endpoints: number } | undefined;
  if (!e.endpointId && row && row.endpoints === 0) noEndpoints.set(e.projectId, Date.now());
  if (!row || row.events === 0) return null;
  if (row.deliveries > 0) deliveriesWritten();
  return id;
}

function deliveriesWritten(): void {
  for (const listener of listeners.__gameBackendDeliveriesWritten?.values() ?? []) listener();
}

/**
 * Many events of one type with one statement (a period close's rewards: one per paid player),
 * through `pool()` like emitEvent, stored under the same rule. Returns how many deliveries were written.
 */
export async function emitEvents(
  projectId: string,
  type: EventType,
  events: ReadonlyArray<{ playerId: string | null; data: Record<string, unknown> }>,
): Promise<number> {
  if (events.length === 0 || !mayHaveEndpoints(projectId)) return 0;
  const now = Date.now();
  const { rows } = await pool().query<{ deliveries: number; endpoints: number }>(
    `WITH sub AS (
       SELECT id, enabled FROM webhook_endpoints WHERE project_id = $1 AND $2 = ANY(event_types)
     ), ep AS (
       SELECT id FROM sub WHERE enabled
     ), ev AS (
       INSERT INTO webhook_events (id, project_id, type, player_id, data)
       SELECT v.id, $1, $2, v.player_id, v.data
         FROM unnest($3::text[], $4::uuid[], $5::jsonb[]) WITH ORDINALITY AS v(id, player_id, data, n)
        WHERE EXISTS (SELECT 1 FROM sub) ORDER BY v.n
       RETURNING id, player_id
     ), d AS (
       INSERT INTO webhook_deliveries (id, project_id, endpoint_id, event_id, order_key)
       SELECT gen_random_uuid(), $1, ep.id, ev.id, ev.player_id::text FROM ep, ev ORDER BY ev.id
       RETURNING 1
     )
     SELECT (SELECT count(*)::int FROM d) AS deliveries,
            (SELECT count(*)::int FROM webhook_endpoints WHERE project_id = $1) AS endpoints`,
    [projectId, type, events.map(() => eventId(now)), events.map((e) => e.playerId), events.map((e) => JSON.stringify(e.data))],
  );
  const row = rows[0];
  if (row && row.endpoints === 0) noEndpoints.set(projectId, now);
  if (!row || row.deliveries === 0) return 0;
  deliveriesWritten();
  return row.deliveries;
}
