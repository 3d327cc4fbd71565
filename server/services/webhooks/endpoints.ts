import type { z } from "zod";
import { uuidv7Floor } from "../../crypto";
import { afterTransaction, pool, prisma } from "../../db";
import { env } from "../../env";
import { AppError } from "../../errors";
import { authorize, lockProject, type OperatorContext, runCommand } from "../command";
import { deliveryBody, wakeDispatcher } from "./delivery";
import { emitEvent, endpointsChanged } from "./events";
import {
  BODY_DISPLAY_LIMIT,
  MAX_ENDPOINTS_PER_PROJECT,
  MAX_REPLAY,
  REPLAYS_PER_HOUR,
  type WebhookEndpointInput,
  type WebhookEndpointPatch,
  ZReplayRange,
  ZRotateSecret,
  ZWebhookEndpointInput,
  ZWebhookEndpointPatch,
} from "./schemas";
import { encryptSecret, newSecret } from "./signing";

/**
 * A project's webhook endpoints as operators manage them (dashboard, config document, CLI).
 * Secrets leave only in the answer to create and rotate; no DTO or audit row carries them.
 * Reads are for viewers and up; changes for admins (as identity providers and API keys).
 */

/** http:// endpoints only where private networks are allowed (development, tests); the address itself is checked at delivery. */
export function allowsPlainHttp(): boolean {
  return env().WEBHOOK_ALLOW_PRIVATE_NETWORKS;
}

export type WebhookEndpointDto = {
  id: string;
  url: string;
  description: string;
  eventTypes: string[];
  enabled: boolean;
  disabledReason: "operator" | "failing" | null;
  failingSince: string | null;
  /** While set, deliveries are also signed with the secret before the last rotation. */
  previousSecretUntil: string | null;
  createdAt: string;
  updatedAt: string;
};
export type WebhookEndpointRow = WebhookEndpointDto & {
  lastDelivery: { status: "PENDING" | "SUCCEEDED" | "FAILED"; at: string } | null;
  failed24h: number;
  pending24h: number;
};

const select = {
  id: true,
  url: true,
  description: true,
  eventTypes: true,
  enabled: true,
  disabledReason: true,
  failingSince: true,
  previousSecretUntil: true,
  createdAt: true,
  updatedAt: true,
} as const;

type Selected = {
  id: string;
  url: string;
  description: string;
  eventTypes: string[];
  enabled: boolean;
  disabledReason: string | null;
  failingSince: Date | null;
  previousSecretUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

const iso = (d: Date | null) => (d ? d.toISOString() : null);
function toDto(e: Selected): WebhookEndpointDto {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    eventTypes: e.eventTypes,
    enabled: e.enabled,
    disabledReason: e.disabledReason === "operator" || e.disabledReason === "failing" ? e.disabledReason : null,
    failingSince: iso(e.failingSince),
    previousSecretUntil: e.previousSecretUntil && e.previousSecretUntil > new Date() ? e.previousSecretUntil.toISOString() : null,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

const notFound = () => new AppError("NOT_FOUND", { message: "Webhook endpoint not found." });
const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

function invalid(issues: Array<{ path: string; message: string }>): AppError {
  return new AppError("VALIDATION_ERROR", { details: { issues } });
}

function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalid(parsed.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })));
  return parsed.data;
}

function assertScheme(url: string): void {
  if (new URL(url).protocol === "https:" || allowsPlainHttp()) return;
  throw invalid([{ path: "url", message: "Must be https (http only where the instance allows private networks)." }]);
}

async function readEndpoint(projectId: string, endpointId: string): Promise<WebhookEndpointDto> {
  if (!isUuid(endpointId)) throw notFound();
  const e = await prisma().webhookEndpoint.findFirst({ where: { id: endpointId, projectId }, select });
  if (!e) throw notFound();
  return toDto(e);
}

async function assertUrlFree(projectId: string, url: string, except?: string): Promise<void> {
  const clash = await prisma().webhookEndpoint.findFirst({
    where: { projectId, url, ...(except ? { id: { not: except } } : {}) },
    select: { id: true },
  });
  if (clash) throw new AppError("ALREADY_EXISTS", { message: "The project already has an endpoint with this URL." });
}

// ---- The service functions the config import also uses (no authorization, no audit: the caller's) ----

/** Creates an endpoint with a new secret; returns it with the secret in the clear (shown once). */
export async function createEndpoint(
  projectId: string,
  input: WebhookEndpointInput,
): Promise<{ endpoint: WebhookEndpointDto; secret: string }> {
  const data = parse(ZWebhookEndpointInput, input);
  assertScheme(data.url);
  const count = await prisma().webhookEndpoint.count({ where: { projectId } });
  if (count >= MAX_ENDPOINTS_PER_PROJECT)
    throw new AppError("LIMIT_EXCEEDED", { message: `A project has at most ${MAX_ENDPOINTS_PER_PROJECT} webhook endpoints.` });
  await assertUrlFree(projectId, data.url);
  const secret = newSecret();
  const created = await prisma().webhookEndpoint.create({
    data: {
      projectId,
      url: data.url,
      description: data.description,
      eventTypes: data.eventTypes,
      enabled: data.enabled,
      disabledReason: data.enabled ? null : "operator",
      secret: encryptSecret(secret),
    },
    select,
  });
  await endpointsChanged(projectId);
  return { endpoint: toDto(created), secret };
}

/** Changes what is given; enabling clears why it was disabled and when it started failing. */
export async function updateEndpoint(projectId: string, endpointId: string, patch: WebhookEndpointPatch): Promise<WebhookEndpointDto> {
  const data = parse(ZWebhookEndpointPatch, patch);
  const current = await readEndpoint(projectId, endpointId);
  if (data.url !== undefined) {
    assertScheme(data.url);
    await assertUrlFree(projectId, data.url, endpointId);
  }
  const enabling = data.enabled === true && !current.enabled;
  const disabling = data.enabled === false && current.enabled;
  const updated = await prisma().webhookEndpoint.update({
    where: { id: endpointId },
    data: {
      ...(data.url !== undefined ? { url: data.url } : {}),
      ...(data.description !== undefined ? { description: data.description } : {}),
      ...(data.eventTypes !== undefined ? { eventTypes: data.eventTypes } : {}),
      ...(data.enabled !== undefined ? { enabled: data.enabled } : {}),
      ...(enabling ? { disabledReason: null, failingSince: null } : {}),
      ...(disabling ? { disabledReason: "operator" } : {}),
      updatedAt: new Date(),
    },
    select,
  });
  await endpointsChanged(projectId);
  return toDto(updated);
}

/** Deletes the endpoint with its deliveries (events stay for other endpoints). */
export async function deleteEndpoint(projectId: string, endpointId: string): Promise<void> {
  if (!isUuid(endpointId)) throw notFound();
  const { count } = await prisma().webhookEndpoint.deleteMany({ where: { id: endpointId, projectId } });
  if (count === 0) throw notFound();
  await endpointsChanged(projectId);
}

/** The project's endpoints, oldest first, without secrets. */
export async function listEndpoints(projectId: string): Promise<WebhookEndpointDto[]> {
  const rows = await prisma().webhookEndpoint.findMany({ where: { projectId }, select, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  return rows.map(toDto);
}

// ---- Operator commands ----

/** Viewers and up: every endpoint with its last delivery and the failed and pending deliveries of the last 24 hours. */
export async function listWebhookEndpointsAs(ctx: OperatorContext, o: { projectId: string }): Promise<WebhookEndpointRow[]> {
  await authorize(ctx, o.projectId, "VIEWER");
  const endpoints = await listEndpoints(o.projectId);
  if (endpoints.length === 0) return [];
  const { rows } = await pool().query<{
    endpoint_id: string;
    failed: number;
    pending: number;
    last_status: "PENDING" | "SUCCEEDED" | "FAILED" | null;
    last_at: Date | null;
  }>(
    `SELECT e.id AS endpoint_id,
            (SELECT count(*)::int FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.created_at > now() - interval '24 hours' AND d.status = 'FAILED') AS failed,
            (SELECT count(*)::int FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.created_at > now() - interval '24 hours' AND d.status = 'PENDING') AS pending,
            l.status AS last_status, l.at AS last_at
       FROM webhook_endpoints e
       LEFT JOIN LATERAL (
         SELECT d.status::text AS status, coalesce(d.last_attempt_at, d.created_at) AS at
           FROM webhook_deliveries d WHERE d.endpoint_id = e.id ORDER BY d.created_at DESC, d.id DESC LIMIT 1
       ) l ON true
      WHERE e.project_id = $1`,
    [o.projectId],
  );
  const stats = new Map(rows.map((r) => [r.endpoint_id, r]));
  return endpoints.map((e) => {
    const s = stats.get(e.id);
    return {
      ...e,
      lastDelivery: s?.last_status && s.last_at ? { status: s.last_status, at: s.last_at.toISOString() } : null,
      failed24h: s?.failed ?? 0,
      pending24h: s?.pending ?? 0,
    };
  });
}

/** Viewers and up: one endpoint (no secret). */
export async function getWebhookEndpointAs(
  ctx: OperatorContext,
  o: { projectId: string; endpointId: string },
): Promise<WebhookEndpointDto> {
  await authorize(ctx, o.projectId, "VIEWER");
  return readEndpoint(o.projectId, o.endpointId);
}

/** Admins; audited as webhook.create (without the secret). The secret is in this answer only. */
export function createWebhookEndpointAs(
  ctx: OperatorContext,
  o: { projectId: string; endpoint: WebhookEndpointInput },
): Promise<{ endpoint: WebhookEndpointDto; secret: string }> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    prepare: lockProject(o.projectId),
    action: "webhook.create",
    target: (r) => r.endpoint.id,
    after: (r) => r.endpoint,
    run: () => createEndpoint(o.projectId, o.endpoint),
  });
}

/** Admins; audited as webhook.update with before and after. */
export function updateWebhookEndpointAs(
  ctx: OperatorContext,
  o: { projectId: string; endpointId: string; patch: WebhookEndpointPatch },
): Promise<WebhookEndpointDto> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "webhook.update",
    target: o.endpointId,
    before: () => readEndpoint(o.projectId, o.endpointId),
    run: () => updateEndpoint(o.projectId, o.endpointId, o.patch),
    after: (e) => e,
  });
}

/** Admins; audited as webhook.delete. */
export function deleteWebhookEndpointAs(ctx: OperatorContext, o: { projectId: string; endpointId: string }): Promise<void> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "webhook.delete",
    target: o.endpointId,
    before: () => readEndpoint(o.projectId, o.endpointId),
    run: () => deleteEndpoint(o.projectId, o.endpointId),
  });
}

/**
 * Admins; audited as webhook.rotate-secret (the overlap, never a secret). A new secret signs from
 * now on; the old one keeps signing beside it for `overlapHours` (0: it stops at once), so
 * receivers can switch without losing deliveries. The new secret is in this answer only.
 */
export function rotateWebhookSecretAs(
  ctx: OperatorContext,
  o: { projectId: string; endpointId: string; overlapHours?: number },
): Promise<{ endpoint: WebhookEndpointDto; secret: string }> {
  const { overlapHours } = parse(ZRotateSecret, { overlapHours: o.overlapHours });
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "webhook.rotate-secret",
    target: o.endpointId,
    after: (r) => ({ overlapHours, previousSecretUntil: r.endpoint.previousSecretUntil }),
    run: async () => {
      await readEndpoint(o.projectId, o.endpointId);
      const secret = newSecret();
      const until = overlapHours > 0 ? new Date(Date.now() + overlapHours * 3_600_000) : null;
      // The current secret becomes the previous one in the same statement (never read into JS).
      const { rows } = await pool().query<{ id: string }>(
        `UPDATE webhook_endpoints
            SET previous_secret = CASE WHEN $3::timestamptz IS NULL THEN NULL ELSE secret END,
                previous_secret_until = $3::timestamptz, secret = $4, updated_at = now()
          WHERE id = $1 AND project_id = $2 RETURNING id`,
        [o.endpointId, o.projectId, until, encryptSecret(secret)],
      );
      if (rows.length === 0) throw notFound();
      await endpointsChanged(o.projectId);
      return { endpoint: await readEndpoint(o.projectId, o.endpointId), secret };
    },
  });
}

// ---- Deliveries ----

export type DeliveryRow = {
  id: string;
  eventId: string;
  eventType: string;
  status: "PENDING" | "SUCCEEDED" | "FAILED";
  attempts: number;
  responseStatus: number | null;
  responseMs: number | null;
  error: string | null;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
};
export type DeliveryDetail = DeliveryRow & {
  endpointId: string;
  /** The event as JSON ({id, type, timestamp, data}), cut to BODY_DISPLAY_LIMIT characters. */
  requestBody: string;
  requestTruncated: boolean;
  responseBody: string | null;
  responseTruncated: boolean;
};

type RawDelivery = {
  id: string;
  endpoint_id: string;
  event_id: string;
  type: string;
  status: DeliveryRow["status"];
  attempts: number;
  response_status: number | null;
  response_ms: number | null;
  error: string | null;
  created_at: Date;
  last_attempt_at: Date | null;
  next_attempt_at: Date;
};

function toDelivery(r: RawDelivery): DeliveryRow {
  return {
    id: r.id,
    eventId: r.event_id,
    eventType: r.type,
    status: r.status,
    attempts: r.attempts,
    responseStatus: r.response_status,
    responseMs: r.response_ms,
    error: r.error,
    createdAt: r.created_at.toISOString(),
    lastAttemptAt: iso(r.last_attempt_at),
    nextAttemptAt: r.status === "PENDING" ? r.next_attempt_at.toISOString() : null,
  };
}

const DELIVERY_COLUMNS = `d.id, d.endpoint_id, d.event_id, ev.type, d.status::text AS status, d.attempts, d.response_status, d.response_ms,
  d.error, d.created_at, d.last_attempt_at, d.next_attempt_at`;

/** Viewers and up: an endpoint's deliveries, newest first, a page at a time, by status and event type. */
export async function listWebhookDeliveriesAs(
  ctx: OperatorContext,
  o: { projectId: string; endpointId: string; status?: DeliveryRow["status"]; eventType?: string; cursor?: string | null; limit: number },
): Promise<{ deliveries: DeliveryRow[]; nextCursor: string | null }> {
  await authorize(ctx, o.projectId, "VIEWER");
  await readEndpoint(o.projectId, o.endpointId);
  const { rows } = await pool().query<RawDelivery>(
    `SELECT ${DELIVERY_COLUMNS}
       FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
      WHERE d.endpoint_id = $1 AND d.project_id = $2
        AND ($3::text IS NULL OR d.status::text = $3) AND ($4::text IS NULL OR ev.type = $4)
        AND ($5::uuid IS NULL OR (d.created_at, d.id) < (SELECT created_at, id FROM webhook_deliveries WHERE id = $5::uuid AND endpoint_id = $1))
      ORDER BY d.created_at DESC, d.id DESC
      LIMIT $6`,
    [o.endpointId, o.projectId, o.status ?? null, o.eventType ?? null, o.cursor ?? null, o.limit + 1],
  );
  const page = rows.slice(0, o.limit);
  return { deliveries: page.map(toDelivery), nextCursor: rows.length > o.limit ? (page[page.length - 1]?.id ?? null) : null };
}

const cut = (text: string, limit: number) => (text.length > limit ? text.slice(0, limit) : text);

/** Viewers and up: one delivery with the request (the event) and the receiver's answer, both cut for display. */
export async function getWebhookDeliveryAs(ctx: OperatorContext, o: { projectId: string; deliveryId: string }): Promise<DeliveryDetail> {
  await authorize(ctx, o.projectId, "VIEWER");
  if (!isUuid(o.deliveryId)) throw new AppError("NOT_FOUND", { message: "Delivery not found." });
  const { rows } = await pool().query<RawDelivery & { data: unknown; event_at: Date; response_body: string | null }>(
    `SELECT ${DELIVERY_COLUMNS}, ev.data, ev.created_at AS event_at, d.response_body
       FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
      WHERE d.id = $1 AND d.project_id = $2`,
    [o.deliveryId, o.projectId],
  );
  const r = rows[0];
  if (!r) throw new AppError("NOT_FOUND", { message: "Delivery not found." });
  // The body as the receiver got it (delivery.ts builds both), indented for reading.
  const sent = deliveryBody({ id: r.event_id, type: r.type, createdAt: r.event_at, projectId: o.projectId, data: r.data });
  const request = JSON.stringify(JSON.parse(sent), null, 2);
  return {
    ...toDelivery(r),
    endpointId: r.endpoint_id,
    requestBody: cut(request, BODY_DISPLAY_LIMIT),
    requestTruncated: request.length > BODY_DISPLAY_LIMIT,
    responseBody: r.response_body === null ? null : cut(r.response_body, BODY_DISPLAY_LIMIT),
    responseTruncated: (r.response_body?.length ?? 0) > BODY_DISPLAY_LIMIT,
  };
}

/** Admins; audited as webhook.resend: a new PENDING delivery of the same event to the same endpoint. */
export function resendWebhookDeliveryAs(
  ctx: OperatorContext,
  o: { projectId: string; deliveryId: string },
): Promise<{ deliveryId: string }> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "webhook.resend",
    target: o.deliveryId,
    after: (r) => r,
    run: async () => {
      if (!isUuid(o.deliveryId)) throw new AppError("NOT_FOUND", { message: "Delivery not found." });
      const { rows } = await pool().query<{ id: string }>(
        `INSERT INTO webhook_deliveries (id, project_id, endpoint_id, event_id, order_key)
         SELECT gen_random_uuid(), d.project_id, d.endpoint_id, d.event_id, d.order_key
           FROM webhook_deliveries d WHERE d.id = $1 AND d.project_id = $2
         RETURNING id`,
        [o.deliveryId, o.projectId],
      );
      const row = rows[0];
      if (!row) throw new AppError("NOT_FOUND", { message: "Delivery not found." });
      afterTransaction(wakeDispatcher);
      return { deliveryId: row.id };
    },
  });
}

/**
 * Admins; audited as webhook.replay: a new PENDING delivery to this endpoint for every stored
 * event of the types it subscribes to now, created in [from, to), oldest first. More than
 * MAX_REPLAY is refused (narrow the range), and so is a project's replay past REPLAYS_PER_HOUR
 * in the last hour (counted from the audit rows, one per replay). Only events that were written are there: a project
 * stores an event only while some endpoint of it, enabled or not, subscribes to its type (so a
 * disabled endpoint's missed events are), and keeps it for the retention (retention.ts).
 */
export function replayWebhookEventsAs(
  ctx: OperatorContext,
  o: { projectId: string; endpointId: string; from: string; to: string },
): Promise<{ count: number }> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "webhook.replay",
    target: o.endpointId,
    after: (r) => ({ from: o.from, to: o.to, count: r.count }),
    run: async () => {
      const range = parse(ZReplayRange, { from: o.from, to: o.to });
      const endpoint = await readEndpoint(o.projectId, o.endpointId);
      await assertReplayBudget(o.projectId);
      const { rows } = await pool().query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_events
          WHERE project_id = $1 AND type = ANY($2::text[]) AND created_at >= $3::timestamptz AND created_at < $4::timestamptz`,
        [o.projectId, endpoint.eventTypes, range.from, range.to],
      );
      const n = rows[0]?.n ?? 0;
      if (n > MAX_REPLAY)
        throw new AppError("LIMIT_EXCEEDED", {
          message: `${n} events are in this range; a replay sends at most ${MAX_REPLAY}. Narrow the range.`,
        });
      const inserted = await pool().query(
        `INSERT INTO webhook_deliveries (id, project_id, endpoint_id, event_id, order_key)
         SELECT gen_random_uuid(), $1, $2, e.id, e.player_id FROM (
           SELECT id, player_id FROM webhook_events
            WHERE project_id = $1 AND type = ANY($3::text[]) AND created_at >= $4::timestamptz AND created_at < $5::timestamptz
            ORDER BY created_at, id
         ) e`,
        [o.projectId, o.endpointId, endpoint.eventTypes, range.from, range.to],
      );
      if ((inserted.rowCount ?? 0) > 0) afterTransaction(wakeDispatcher);
      return { count: inserted.rowCount ?? 0 };
    },
  });
}

/**
 * Refuses a project's replay past REPLAYS_PER_HOUR in the last hour. Replays of one project take
 * turns (a transaction lock) so two at once cannot both see the last free one. The audit rows'
 * ids are UUIDv7 (time first): the hour is an id range on the (project_id, id) index.
 */
async function assertReplayBudget(projectId: string): Promise<void> {
  await pool().query("SELECT pg_advisory_xact_lock(hashtext('webhook-replay:' || $1))", [projectId]);
  const { rows } = await pool().query<{ n: number }>(
    "SELECT count(*)::int AS n FROM audit_log WHERE project_id = $1 AND id >= $2::uuid AND action = 'webhook.replay'",
    [projectId, uuidv7Floor(Date.now() - 3_600_000)],
  );
  if ((rows[0]?.n ?? 0) >= REPLAYS_PER_HOUR) {
    throw new AppError("LIMIT_EXCEEDED", {
      message: `This project started ${REPLAYS_PER_HOUR} replays in the last hour, the most allowed; try again later.`,
    });
  }
}

/** Admins; audited as webhook.test: a webhook.test event delivered to this endpoint only (even a disabled one). */
export function sendWebhookTestAs(ctx: OperatorContext, o: { projectId: string; endpointId: string }): Promise<{ eventId: string }> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "webhook.test",
    target: o.endpointId,
    after: (r) => r,
    run: async (actor) => {
      await readEndpoint(o.projectId, o.endpointId);
      const eventId = await emitEvent({
        projectId: o.projectId,
        type: "webhook.test",
        endpointId: o.endpointId,
        data: { endpointId: o.endpointId, sentBy: actor.operatorId, message: "A test event sent from the dashboard." },
      });
      if (!eventId) throw notFound();
      afterTransaction(wakeDispatcher);
      return { eventId };
    },
  });
}
