import client from "prom-client";

/**
 * The app's Prometheus metrics (docs/operating/observability.md lists them with their labels).
 * prom-client is a server external package: one module, one default registry per process, which
 * the launcher serves at /api/metrics (server/cli/cluster-metrics.mjs) and sums across workers. Next may
 * load this file once per route bundle, so each metric is created once per process and found by
 * name afterwards. Labels are bounded: a route is the endpoint's pattern, never a raw path.
 */
function once<T extends client.Metric>(name: string, make: () => T): T {
  return (client.register.getSingleMetric(name) as T | undefined) ?? make();
}

const requests = once(
  "gb_http_requests_total",
  () =>
    new client.Counter({
      name: "gb_http_requests_total",
      help: "Game API requests answered, by route pattern, method, status class and error code ('' on success).",
      labelNames: ["route", "method", "status", "code"] as const,
    }),
);

const duration = once(
  "gb_http_request_duration_seconds",
  () =>
    new client.Histogram({
      name: "gb_http_request_duration_seconds",
      help: "Game API request duration in seconds (handler start to the response object), by route pattern and method.",
      labelNames: ["route", "method"] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    }),
);

const STATUS_CLASSES = ["1xx", "2xx", "3xx", "4xx", "5xx"] as const;

/**
 * METRICS=off stops recording (the endpoint answers 404): for measuring what metrics cost, or a
 * deployment that does not scrape. Read here and by the launcher; server/env.ts validates it.
 */
export const metricsOn = process.env.METRICS !== "off";

/** One answered request's series: its count by status class and error code, and its duration. */
export function recordRequestMetrics(r: { route: string; method: string; status: number; code: string; durationMs: number }): void {
  if (!metricsOn) return;
  const status = STATUS_CLASSES[Math.floor(r.status / 100) - 1] ?? "5xx";
  requests.inc({ route: r.route, method: r.method, status, code: r.code });
  duration.observe({ route: r.route, method: r.method }, r.durationMs / 1000);
}

const procedures = once(
  "gb_dashboard_procedures_total",
  () =>
    new client.Counter({
      name: "gb_dashboard_procedures_total",
      help: "Dashboard (tRPC) procedure calls, by procedure path, type (query, mutation) and error code ('' on success).",
      labelNames: ["procedure", "type", "code"] as const,
    }),
);

const procedureDuration = once(
  "gb_dashboard_procedure_duration_seconds",
  () =>
    new client.Histogram({
      name: "gb_dashboard_procedure_duration_seconds",
      help: "Dashboard (tRPC) procedure duration in seconds, by procedure path and type.",
      labelNames: ["procedure", "type"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    }),
);

/** One dashboard procedure call (a batch of several counts each). */
export function recordProcedureMetrics(r: { procedure: string; type: string; code: string; durationMs: number }): void {
  if (!metricsOn) return;
  procedures.inc({ procedure: r.procedure, type: r.type, code: r.code });
  procedureDuration.observe({ procedure: r.procedure, type: r.type }, r.durationMs / 1000);
}

const ratelimitDecisions = once(
  "gb_ratelimit_decisions_total",
  () =>
    new client.Counter({
      name: "gb_ratelimit_decisions_total",
      help: "Rate-limit decisions by scope (project, player, ip) and outcome (allowed, limited, fail_open, fail_closed).",
      labelNames: ["scope", "outcome"] as const,
    }),
);

const ratelimitStore = once(
  "gb_ratelimit_store_duration_seconds",
  () =>
    new client.Histogram({
      name: "gb_ratelimit_store_duration_seconds",
      help: "Time one rate-limit check waited for its store (Redis, or the primary's counters), in seconds.",
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    }),
);

export function observeRateLimit(scope: string, outcome: "allowed" | "limited" | "fail_open" | "fail_closed"): void {
  if (metricsOn) ratelimitDecisions.inc({ scope, outcome });
}

export function observeRateLimitStore(seconds: number): void {
  if (metricsOn) ratelimitStore.observe(seconds);
}

const business = once(
  "gb_events_total",
  () =>
    new client.Counter({
      name: "gb_events_total",
      help: "What players did: sign_in and new_player (by method), purchase, score_submit, data_write, save_write.",
      labelNames: ["event", "method"] as const,
    }),
);

const bytes = once(
  "gb_written_bytes_total",
  () =>
    new client.Counter({
      name: "gb_written_bytes_total",
      help: "Bytes of player data and cloud saves written, by kind (data, save).",
      labelNames: ["kind"] as const,
    }),
);

const storeReceipts = once(
  "gb_store_receipts_total",
  () =>
    new client.Counter({
      name: "gb_store_receipts_total",
      help: "Store receipts by store and outcome: granted, replayed, or the refusal's code (RECEIPT_INVALID…); refunds as refunded.",
      labelNames: ["store", "outcome"] as const,
    }),
);

export function countStoreReceipt(store: string, outcome: string): void {
  if (metricsOn) storeReceipts.inc({ store, outcome });
}

export type BusinessEvent = "sign_in" | "new_player" | "purchase" | "score_submit" | "data_write" | "save_write";

/** A business event; `method` for sign-ins and new players (anonymous, email, an identity provider's kind), else ''. */
export function countEvent(event: BusinessEvent, method = ""): void {
  if (metricsOn) business.inc({ event, method });
}

export function countWrittenBytes(kind: "data" | "save", n: number): void {
  if (metricsOn) bytes.inc({ kind }, n);
}

const dbErrors = once(
  "gb_db_query_errors_total",
  () =>
    new client.Counter({
      name: "gb_db_query_errors_total",
      help: "Database errors that ended a request, by SQLSTATE class (its first two characters; 'conn' for no connection, 'other' for a driver code).",
      labelNames: ["class"] as const,
    }),
);

const dbConflicts = once(
  "gb_db_transaction_conflicts_total",
  () =>
    new client.Counter({
      name: "gb_db_transaction_conflicts_total",
      help: "Transactions Postgres rolled back for a deadlock or serialization failure; the request answered 503 and the client retries (the server does not).",
    }),
);

/** A database error that ended a request: its SQLSTATE (or driver code), or none for a lost connection. */
export function countQueryError(code: string | undefined): void {
  if (code === "40P01" || code === "40001" || code === "P2034") dbConflicts.inc();
  const sqlState = code && /^[0-9A-Z]{5}$/.test(code) ? code.slice(0, 2) : code ? "other" : "conn";
  dbErrors.inc({ class: sqlState });
}

type PoolStats = { totalCount: number; idleCount: number; waitingCount: number };

/** Registers the pool gauges once, read at scrape time from the pool `stats` returns. */
export function watchPool(stats: () => PoolStats | null): void {
  once(
    "gb_db_pool_connections",
    () =>
      new client.Gauge({
        name: "gb_db_pool_connections",
        help: "The app's database pool: connections in use, idle, and callers waiting for one.",
        labelNames: ["state"] as const,
        collect() {
          const s = stats();
          this.set({ state: "in_use" }, s ? s.totalCount - s.idleCount : 0);
          this.set({ state: "idle" }, s ? s.idleCount : 0);
          this.set({ state: "waiting" }, s ? s.waitingCount : 0);
        },
      }),
  );
}

const webhookAttempts = once(
  "gb_webhook_attempts_total",
  () =>
    new client.Counter({
      name: "gb_webhook_attempts_total",
      help: "Webhook delivery attempts by outcome: succeeded, retrying (failed, tried again later), failed (the last attempt failed), skipped (the endpoint was disabled).",
      labelNames: ["outcome"] as const,
    }),
);

const webhookAttemptDuration = once(
  "gb_webhook_attempt_duration_seconds",
  () =>
    new client.Histogram({
      name: "gb_webhook_attempt_duration_seconds",
      help: "One webhook delivery attempt, connect to the receiver's last byte (or the failure), in seconds.",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    }),
);

const webhookLag = once(
  "gb_webhook_delivery_lag_seconds",
  () =>
    new client.Histogram({
      name: "gb_webhook_delivery_lag_seconds",
      help: "From a webhook delivery being due (written, or its retry time) to its attempt starting, in seconds.",
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    }),
);

export type WebhookOutcome = "succeeded" | "retrying" | "failed" | "skipped";

/** One webhook delivery attempt: its outcome, how long it took and how late it started. */
export function observeWebhookAttempt(outcome: WebhookOutcome, durationSeconds: number, lagSeconds: number): void {
  if (!metricsOn) return;
  webhookAttempts.inc({ outcome });
  if (outcome === "skipped") return;
  webhookAttemptDuration.observe(durationSeconds);
  webhookLag.observe(Math.max(0, lagSeconds));
}

const passwordHashes = once(
  "gb_password_hashes_total",
  () =>
    new client.Counter({
      name: "gb_password_hashes_total",
      help: "argon2 operations (password hash or verify) started, by queue priority (known: a client that signed in from here before; stranger).",
      labelNames: ["priority"] as const,
    }),
);

const passwordHashRefusals = once(
  "gb_password_hash_refusals_total",
  () =>
    new client.Counter({
      name: "gb_password_hash_refusals_total",
      help: "Password checks refused with 503 before hashing, by priority and reason (queue_full, displaced by a known client, waited_too_long).",
      labelNames: ["priority", "reason"] as const,
    }),
);

export type HashPriority = "known" | "stranger";

export function countPasswordHash(priority: HashPriority): void {
  if (metricsOn) passwordHashes.inc({ priority });
}

export function countPasswordHashRefusal(priority: HashPriority, reason: "queue_full" | "displaced" | "waited_too_long"): void {
  if (metricsOn) passwordHashRefusals.inc({ priority, reason });
}
