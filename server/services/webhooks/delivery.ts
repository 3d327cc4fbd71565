import { afterTransaction, pool } from "../../db";
import { env } from "../../env";
import { logger } from "../../log";
import { observeWebhookAttempt, type WebhookOutcome } from "../../metrics";
import { OutboundRefused, postOutbound } from "../../outbound";
import { runCommand, system } from "../command";
import { endpointsChanged, onDeliveriesWritten } from "./events";
import type { WebhookPolicy } from "./schemas";
import { signatureHeaders, signingSecrets } from "./signing";

/**
 * The webhook dispatcher. `webhook_deliveries` is its queue: every process of every instance runs
 * one, and takes due deliveries with `FOR UPDATE SKIP LOCKED`, leasing each (its next_attempt_at
 * moved past the attempt's timeout) so one process attempts it at a time, without holding a
 * transaction open over the HTTP call. A process that dies mid-attempt leaves the lease to expire
 * (WEBHOOK_TIMEOUT_MS + WEBHOOK_LEASE_MARGIN_MS, 40 s by default) and the delivery is attempted
 * again: at least once, receivers dedupe by `webhook-id`.
 *
 * A delivery with an order key (the player) waits while an earlier (lower seq) pending delivery
 * with the same key to the same endpoint exists: one player's events reach an endpoint in order,
 * and a failing one holds the later ones back until it succeeds or finally fails.
 *
 * Wake-ups: a transaction that wrote deliveries pokes this process's dispatcher after it ends;
 * a failed attempt sets a timer for its retry; and every WEBHOOK_POLL_MS the dispatcher looks for
 * due deliveries anyway (written by other instances, left by a crash).
 */

/** The retry schedule (Standard Webhooks / Svix): the wait before attempt n+1 after n failed attempts. */
export const RETRY_SCHEDULE_MS = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;
/** Attempts in all: after this many failures the delivery is FAILED. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length;
/** What of the receiver's answer is kept (the dashboard shows it). */
export const RESPONSE_BODY_BYTES = 4096;

/** This instance's delivery rules, from its settings: what the dashboard tells operators of a failing endpoint. */
export function webhookPolicy(): WebhookPolicy {
  const config = env();
  return {
    attempts: MAX_ATTEMPTS,
    retrySpanMs: RETRY_SCHEDULE_MS.reduce<number>((a, b) => a + b, 0) * config.WEBHOOK_RETRY_SCALE,
    disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
    retentionDays: config.WEBHOOK_RETENTION_DAYS,
  };
}

/** The wait before the next attempt after `attempts` failed ones (±10 % jitter), or null: no more attempts. */
export function retryDelayMs(attempts: number, scale: number, random: () => number = Math.random): number | null {
  const base = RETRY_SCHEDULE_MS[attempts];
  if (base === undefined) return null;
  return Math.round(base * scale * (0.9 + 0.2 * random()));
}

/** The JSON body of a delivery (documented in the OpenAPI document's `webhooks`). */
export function deliveryBody(e: { id: string; type: string; createdAt: Date; projectId: string; data: unknown }): string {
  return JSON.stringify({ id: e.id, type: e.type, timestamp: e.createdAt.toISOString(), projectId: e.projectId, data: e.data });
}

type Claimed = {
  id: string;
  project_id: string;
  attempts: number;
  due: Date;
  order_key: string | null;
  seq: string;
  endpoint_id: string;
  url: string;
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  event_id: string;
  type: string;
  data: unknown;
  event_created_at: Date;
};

/** Takes up to `limit` due deliveries and leases them for `leaseMs`. */
async function claim(limit: number, leaseMs: number): Promise<Claimed[]> {
  const { rows } = await pool().query<Claimed>(
    `WITH picked AS (
       SELECT d.id, d.next_attempt_at AS due FROM webhook_deliveries d
        WHERE d.status = 'PENDING' AND d.next_attempt_at <= now()
          AND (d.order_key IS NULL OR NOT EXISTS (
            SELECT 1 FROM webhook_deliveries e
             WHERE e.endpoint_id = d.endpoint_id AND e.order_key = d.order_key AND e.status = 'PENDING' AND e.seq < d.seq))
        ORDER BY d.next_attempt_at
        LIMIT $1
        FOR UPDATE OF d SKIP LOCKED
     )
     UPDATE webhook_deliveries d SET next_attempt_at = now() + $2 * interval '1 millisecond'
       FROM picked, webhook_endpoints ep, webhook_events ev
      WHERE d.id = picked.id AND ep.id = d.endpoint_id AND ev.id = d.event_id
     RETURNING d.id, d.project_id, d.attempts, picked.due, d.order_key, d.seq::text AS seq, ep.id AS endpoint_id, ep.url, ep.enabled, ep.secret,
               ep.previous_secret, ep.previous_secret_until, ev.id AS event_id, ev.type, ev.data, ev.created_at AS event_created_at`,
    [limit, leaseMs],
  );
  return rows;
}

type Result =
  | { ok: true; status: number; body: string; ms: number }
  | { ok: false; status: number | null; body: string | null; ms: number; error: string };

async function attempt(d: Claimed): Promise<Result> {
  const config = env();
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const body = deliveryBody({ id: d.event_id, type: d.type, createdAt: d.event_created_at, projectId: d.project_id, data: d.data });
    const headers = signatureHeaders({
      id: d.event_id,
      timestamp: Math.floor(Date.now() / 1000),
      body,
      secrets: signingSecrets({ secret: d.secret, previousSecret: d.previous_secret, previousSecretUntil: d.previous_secret_until }),
    });
    const res = await postOutbound({
      url: d.url,
      headers,
      body,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      maxBodyBytes: RESPONSE_BODY_BYTES,
    });
    const kept = res.truncated ? `${res.body}…` : res.body;
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, body: kept, ms: ms() };
    const error = res.status >= 300 && res.status < 400 ? `HTTP ${res.status} (redirects are not followed)` : `HTTP ${res.status}`;
    return { ok: false, status: res.status, body: kept, ms: ms(), error };
  } catch (e) {
    const error =
      e instanceof OutboundRefused ? `refused: ${e.message}` : `${(e as NodeJS.ErrnoException).code ?? "error"}: ${(e as Error).message}`;
    return { ok: false, status: null, body: null, ms: ms(), error: error.slice(0, 500) };
  }
}

/**
 * An attempt's result is written only over the delivery as it was claimed: still PENDING, with the
 * attempts it had (the parameter named here). A delivery changed meanwhile (another dispatcher
 * took it after the lease ran out and recorded first, or it was failed by someone else) keeps that
 * change: the late result would count an attempt twice or undo it.
 */
const stillAsClaimed = (attemptsParameter: string) => `status = 'PENDING' AND attempts = ${attemptsParameter}`;

/** Records an attempt's result; on a failure, schedules the retry or fails the delivery, and disables an endpoint failing too long. */
async function record(d: Claimed, r: Result, startedAt: Date): Promise<{ outcome: WebhookOutcome; retryInMs: number | null }> {
  if (r.ok) {
    await pool().query(
      `WITH d AS (
         UPDATE webhook_deliveries SET status = 'SUCCEEDED', attempts = attempts + 1, last_attempt_at = $2, response_status = $3,
                response_ms = $4, response_body = $5, error = NULL
          WHERE id = $1 AND ${stillAsClaimed("$6")} RETURNING endpoint_id)
       UPDATE webhook_endpoints SET failing_since = NULL WHERE id = (SELECT endpoint_id FROM d) AND failing_since IS NOT NULL`,
      [d.id, startedAt, r.status, r.ms, r.body, d.attempts],
    );
    return { outcome: "succeeded", retryInMs: null };
  }
  const config = env();
  const delay = retryDelayMs(d.attempts + 1, config.WEBHOOK_RETRY_SCALE);
  // A failing endpoint turned off is the system's change, audited with no operator.
  const { disabled } = await runCommand(null, {
    authorization: system(d.project_id),
    action: "webhook.disabled",
    target: d.endpoint_id,
    audited: (r) => r.disabled,
    after: (r) => ({ reason: "failing", failingSince: r.failingSince }),
    run: async () => {
      await pool().query(
        `UPDATE webhook_deliveries SET status = $2, attempts = attempts + 1, last_attempt_at = $3, response_status = $4, response_ms = $5,
              response_body = $6, error = $7, next_attempt_at = now() + $8 * interval '1 millisecond'
        WHERE id = $1 AND ${stillAsClaimed("$9")}`,
        [d.id, delay === null ? "FAILED" : "PENDING", startedAt, r.status, r.ms, r.body, r.error, delay ?? 0, d.attempts],
      );
      // The player's later deliveries wait for this one: not due before its retry, so the dispatcher's
      // scan does not walk over a failing endpoint's held-back deliveries on every pass.
      if (delay !== null && d.order_key !== null) {
        await pool().query(
          `UPDATE webhook_deliveries SET next_attempt_at = now() + $4 * interval '1 millisecond'
          WHERE endpoint_id = $1 AND order_key = $2 AND status = 'PENDING' AND seq > $3::bigint
            AND next_attempt_at < now() + $4 * interval '1 millisecond'`,
          [d.endpoint_id, d.order_key, d.seq, delay],
        );
      }
      const { rows } = await pool().query<{ failing_since: Date }>(
        `UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'failing', updated_at = now()
        WHERE id = $1 AND enabled AND failing_since IS NOT NULL AND failing_since <= now() - $2 * interval '1 millisecond'
        RETURNING failing_since`,
        [d.endpoint_id, config.WEBHOOK_DISABLE_AFTER_MS],
      );
      if (rows[0]) return { disabled: true, failingSince: rows[0].failing_since.toISOString() };
      await pool().query("UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1 AND failing_since IS NULL", [
        d.endpoint_id,
        startedAt,
      ]);
      return { disabled: false, failingSince: null };
    },
  });
  if (disabled) {
    logger("webhooks").warn(
      { endpointId: d.endpoint_id, projectId: d.project_id },
      "webhook endpoint disabled: its deliveries kept failing",
    );
    await endpointsChanged(d.project_id);
  }
  return { outcome: delay === null ? "failed" : "retrying", retryInMs: delay };
}

/** A delivery to an endpoint disabled meanwhile is not attempted (a test event still is): it fails, for a later resend. */
async function skip(d: Claimed): Promise<void> {
  await pool().query("UPDATE webhook_deliveries SET status = 'FAILED', error = 'endpoint disabled' WHERE id = $1 AND status = 'PENDING'", [
    d.id,
  ]);
}

async function deliverOne(d: Claimed): Promise<number | null> {
  const log = logger("webhooks");
  const lag = (Date.now() - d.due.getTime()) / 1000;
  if (!d.enabled && d.type !== "webhook.test") {
    await skip(d);
    observeWebhookAttempt("skipped", 0, lag);
    return null;
  }
  const startedAt = new Date();
  const r = await attempt(d);
  const { outcome, retryInMs } = await record(d, r, startedAt);
  observeWebhookAttempt(outcome, r.ms / 1000, lag);
  const fields = {
    deliveryId: d.id,
    eventId: d.event_id,
    endpointId: d.endpoint_id,
    type: d.type,
    attempt: d.attempts + 1,
    /** When the attempt started: the next one is due `retryInMs` after this attempt was recorded, so never sooner than that after this. */
    startedAt: startedAt.toISOString(),
    status: r.status,
    ms: r.ms,
  };
  if (r.ok) log.debug(fields, "webhook delivered");
  else
    log.warn(
      { ...fields, reason: r.error, retryInMs },
      outcome === "failed" ? "webhook delivery failed, giving up" : "webhook delivery failed, will retry",
    );
  return retryInMs;
}

type State = {
  started: boolean;
  stopped: boolean;
  running: boolean;
  again: boolean;
  inFlight: Set<Promise<void>>;
  /** When a pass is wanted: now (a poke), at a retry's time; kept until that time passes. */
  wakes: number[];
  /** The next poll, moved on after every pass. */
  pollAt: number;
  timer?: NodeJS.Timeout;
  timerAt: number;
};
// On globalThis: one dispatcher per process, whichever bundled copy of this module is asking.
const holder = globalThis as typeof globalThis & { __gameBackendWebhooks?: State; __gameBackendStopQueue?: () => Promise<void> };
function state(): State {
  holder.__gameBackendWebhooks ??= {
    started: false,
    stopped: false,
    running: false,
    again: false,
    inFlight: new Set(),
    wakes: [],
    pollAt: 0,
    timerAt: 0,
  };
  return holder.__gameBackendWebhooks;
}

/** Wants a dispatch pass in `delayMs`; an earlier wake does not cancel this one. */
function wakeIn(delayMs: number): void {
  const s = state();
  if (!s.started || s.stopped) return;
  s.wakes.push(Date.now() + delayMs);
  arm();
}

/** Sets the one timer to the earliest wanted pass (a wake, else the poll). */
function arm(): void {
  const s = state();
  if (!s.started || s.stopped) return;
  const at = Math.min(s.pollAt, ...s.wakes);
  if (s.timer && s.timerAt <= at) return;
  if (s.timer) clearTimeout(s.timer);
  s.timerAt = at;
  s.timer = setTimeout(
    () => {
      s.timer = undefined;
      const now = Date.now();
      s.wakes = s.wakes.filter((t) => t > now);
      void pass();
    },
    Math.max(0, at - Date.now()),
  );
  s.timer.unref?.();
}

/**
 * Asks this process's dispatcher to look for due deliveries now. Inside a transaction it waits for
 * the transaction to end (so the rows it wrote are visible). For resends and replays: insert the
 * new PENDING deliveries, then call this.
 */
export function wakeDispatcher(): void {
  afterTransaction(() => wakeIn(0));
}

async function pass(): Promise<void> {
  const s = state();
  if (s.running) {
    s.again = true;
    return;
  }
  s.running = true;
  const config = env();
  try {
    do {
      s.again = false;
      const free = config.WEBHOOK_CONCURRENCY - s.inFlight.size;
      if (free <= 0 || s.stopped) break;
      const rows = await claim(free, config.WEBHOOK_TIMEOUT_MS + config.WEBHOOK_LEASE_MARGIN_MS);
      for (const d of rows) {
        const work: Promise<void> = deliverOne(d)
          .then((retryInMs) => {
            if (retryInMs !== null) wakeIn(retryInMs);
          })
          .catch((error: unknown) =>
            logger("webhooks").error({ deliveryId: d.id, reason: (error as Error).message }, "webhook delivery errored"),
          )
          .finally(() => {
            s.inFlight.delete(work);
            // A finished delivery may release the next one of its player, and frees a slot.
            wakeIn(0);
          });
        s.inFlight.add(work);
      }
      if (rows.length === free) s.again = true;
    } while (s.again);
  } catch (error) {
    logger("webhooks").warn({ reason: (error as Error).message }, "webhook dispatch pass failed");
  } finally {
    s.running = false;
    s.pollAt = Date.now() + config.WEBHOOK_POLL_MS;
    arm();
  }
}

/** Starts this process's dispatcher (bootstrap); the launcher's drain stops it with the job queue. */
export function startDispatcher(): void {
  const s = state();
  if (s.started) return;
  s.started = true;
  onDeliveriesWritten(() => wakeDispatcher());
  const stopQueue = holder.__gameBackendStopQueue;
  holder.__gameBackendStopQueue = async () => {
    await Promise.all([stopQueue?.(), stopDispatcher()]);
  };
  wakeIn(0);
}

/** Stops taking deliveries and waits up to `timeoutMs` for the attempts in flight. */
export async function stopDispatcher(timeoutMs = 5_000): Promise<void> {
  const s = state();
  s.stopped = true;
  if (s.timer) clearTimeout(s.timer);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled([...s.inFlight]), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
}
