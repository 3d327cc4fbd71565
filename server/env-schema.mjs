// The one list of environment variables and their rules (zod), shared by the app
// (server/env.ts, the app's only reader of process.env) and the launcher (server/cli/*.mjs, which
// runs before anything is compiled, so this is JavaScript): a bad variable fails the same way in
// both, with every problem listed. docs/operating/configuration.md describes each one.
import { z } from "zod";

/** Every variable the app and the launcher read. */
export const ZEnv = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z.string().url(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /**
   * `apply`: a start applies the pending migrations itself (npm start's one command). `check`: a
   * start applies nothing and refuses when one of this version's migrations is missing, failed or
   * changed (run `npm run migrate`, the image's `migrate`, first); migrations the database has
   * and this version does not know (a newer version's, during a rolling upgrade) only warn.
   * server/schema-verdict.mjs says why.
   */
  MIGRATIONS: z.enum(["apply", "check"]).default("apply"),
  /**
   * A statement sent on a transaction's connection while another of that transaction still runs
   * (Promise.all inside transaction()): `throw` refuses it with an error naming the rule, `warn`
   * lets it run (pg queues it) and logs a warning once per call site, `off` checks nothing (no cost
   * per query). Unset: `throw` in tests (NODE_ENV=test or under vitest), `off` otherwise.
   */
  TRANSACTION_CONCURRENCY_CHECK: z.enum(["throw", "warn", "off"]).optional(),
  /**
   * How long each process keeps a project's economy and leaderboard definitions: a change made on
   * another instance applies here within this time. Tests shorten it instead of sleeping 2 s.
   */
  DEFINITION_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
  /**
   * The memory each process gives GET /config's serialised answers (with their ETags), kept per
   * definitions snapshot and what decided the answer (the overrides that applied, the experiment
   * assignments), least recently used out first. 0: every answer is serialised and hashed anew.
   */
  CONFIG_ANSWER_CACHE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(4 * 1024 ** 3)
    .default(32 * 1024 ** 2),
  /**
   * A request header your proxy or CDN sets to the client's two-letter country (`cf-ipcountry`
   * behind Cloudflare): recorded on the player at sign-in and refresh for remote config audiences.
   * Unset: no country is recorded (a client's own header is never trusted by default). Read only
   * with TRUST_PROXY: without a proxy of yours in front, the header is the client's own.
   */
  CLIENT_COUNTRY_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/)
    .transform((h) => h.toLowerCase())
    .optional(),
  /**
   * Who creates projects besides instance admins: operators an instance admin `allowed` (the
   * Operators page's tick), `everyone` signed in, or nobody else (`admins`).
   */
  PROJECT_CREATORS: z.enum(["allowed", "everyone", "admins"]).default("allowed"),
  /** Projects an operator who is not an instance admin may own (creating more is refused). */
  MAX_PROJECTS_PER_OPERATOR: z.coerce.number().int().min(0).max(10_000).default(20),
  /** HS256 secret for access tokens: at least 32 characters. */
  JWT_SECRET: z.string().min(32).optional(),
  JWT_ISSUER: z.string().min(1).default("game-backend"),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
  REFRESH_TOKEN_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  /** A rotated refresh token presented again within this many seconds gets working tokens instead of revoking (0: strict). */
  REFRESH_REUSE_GRACE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),
  REDIS_URL: z.string().url().optional(),
  UPSTASH_REDIS_REST_URL: z.string().url().optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
  /** Where the launcher keeps embedded Postgres data, generated secrets and demo.json. */
  DATA_DIR: z.string().min(1).default(".data"),
  PUBLIC_URL: z.string().url().optional(),
  PORT: z.coerce.number().int().min(1).max(65_535).default(3000),
  SEED_DEMO: z
    .enum(["true", "false", "1", "0"])
    .default("true")
    .transform((v) => v === "true" || v === "1"),
  /** Trust X-Forwarded-For for the client IP (set when behind your own proxy). */
  TRUST_PROXY: z
    .enum(["true", "false", "1", "0"])
    .default("false")
    .transform((v) => v === "true" || v === "1"),
  /** Length of every rate-limit window. 60 in production; tests shorten it to see resets. */
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3_600).default(60),
  /** Budget per client IP per window for requests without a valid API key. */
  RATE_LIMIT_IP_PER_WINDOW: z.coerce.number().int().min(1).default(60),
  /**
   * A limiter store call still unanswered after this many ms counts as "store down" (gameplay
   * fails open, credential endpoints closed). Measured inside the app, so a saturated event loop
   * adds to it; raise it on small, busy hosts.
   */
  RATE_LIMIT_STORE_TIMEOUT_MS: z.coerce.number().int().min(10).max(10_000).default(100),
  /** `off` disables the API budgets (for a deployment behind a gateway that limits; the benchmark's baseline). */
  RATE_LIMITS: z.enum(["on", "off"]).default("on"),
  /** How long an instance trusts a session's cached state while it hears revocations (one instance, or Redis pub/sub up); 2 s at most otherwise (0: no cache). */
  SESSION_CACHE_TTL_SECONDS: z.coerce.number().min(0).max(300).default(30),
  /**
   * How often each process adds the request counts it kept in memory to the database (the
   * dashboard's health view): at most this much is lost when a process dies. Tests shorten it.
   */
  USAGE_FLUSH_MS: z.coerce.number().int().min(10).max(60_000).default(5_000),
  /** How long an instance trusts its cached API key → project/plan lookup. */
  API_KEY_CACHE_TTL_SECONDS: z.coerce.number().min(0).max(300).default(30),
  /** Failed logins per (account, client IP) per window: the attacker's address is cut off from the account. */
  LOGIN_FAILURES_PER_ACCOUNT_IP: z.coerce.number().int().min(1).default(10),
  /** Failed logins per account from all addresses per window; when spent, only known addresses may still try. */
  LOGIN_FAILURES_PER_ACCOUNT: z.coerce.number().int().min(1).default(100),
  LOGIN_FAILURES_PER_IP: z.coerce.number().int().min(1).default(50),
  LOGIN_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(900),
  /**
   * argon2 operations (password hash or check) in flight per process. Default: the cores shared
   * among the launcher's workers (WEB_CONCURRENCY), at least 1 — hashing never takes more cores
   * than the machine has, whatever the sign-in traffic.
   */
  PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).optional(),
  /**
   * The most password checks waiting for a hashing slot per process (a hard cap); fewer are let
   * in when the measured hashing speed could not start them within PASSWORD_HASH_MAX_WAIT_MS.
   * Beyond either they are refused (503, Retry-After).
   */
  PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).max(10_000).default(500),
  /** A password check still waiting for a slot after this long is refused (503) instead of hashing late. */
  PASSWORD_HASH_MAX_WAIT_MS: z.coerce.number().int().min(10).max(60_000).default(5_000),
  /** The launcher's worker count (read here only to share the cores among hashing slots; unset: one per core). */
  WEB_CONCURRENCY: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return undefined;
      const workers = Number(text);
      if (Number.isInteger(workers) && workers >= 1 && workers <= 64) return workers;
      ctx.addIssue({ code: "custom", message: `WEB_CONCURRENCY must be a whole number of worker processes from 1 to 64, not "${text}"` });
      return z.NEVER;
    }),
  /**
   * How long a credential request (e-mail auth, dashboard sign-in; these fail closed) waits for
   * the limiter store. Longer than RATE_LIMIT_STORE_TIMEOUT_MS: a sign-in is about to spend tens
   * of ms on argon2 anyway, and a busy but working store must not refuse every sign-in.
   */
  RATE_LIMIT_CREDENTIAL_TIMEOUT_MS: z.coerce.number().int().min(10).max(10_000).default(1_000),
  /** E-mail registrations per client IP and project per LOGIN_FAILURE_WINDOW_SECONDS. */
  REGISTRATIONS_PER_IP: z.coerce.number().int().min(1).default(100),
  /** Serve the benchmark's bare baseline route (/api/internal/bare); only `npm run bench` sets it. */
  BENCH_BARE_ROUTE: z
    .enum(["true", "false", "1", "0"])
    .default("false")
    .transform((v) => v === "true" || v === "1"),
  /**
   * Set by the launcher in each of its WEB_CONCURRENCY workers (0…n-1, kept by a replacement); unset
   * in a single process. Worker 0 seeds the demo and runs the hourly maintenance.
   */
  GAME_BACKEND_WORKER_INDEX: z.coerce.number().int().min(0).max(63).optional(),
  /**
   * The client key the sample game at /play hands to the browser; unset: the demo project's key
   * from DATA_DIR/demo.json. Only a client key: a server key acts as any player.
   */
  PLAY_API_KEY: z
    .string()
    .regex(/^gb_client_/, "must be a client key (gb_client_…): a server key must never reach a browser")
    .optional(),
  /** Log level (pino): lines below it are not written. `warn` drops the per-request access lines. */
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** `json` (the default outside `npm run dev`) or `pretty` (the default in `npm run dev`). */
  LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
  /** Log lines are gathered up to this many bytes per write (read by server/log.mjs, which the launcher shares; validated here). */
  LOG_BUFFER_BYTES: z.coerce.number().int().min(0).max(65536).default(4096),
  /** Gathered log lines are written at least this often (ms). */
  LOG_FLUSH_MS: z.coerce.number().int().min(10).max(10_000).default(200),
  /** `off`: no Prometheus series are recorded and /api/metrics answers 404 (measuring their cost, or nobody scrapes). */
  METRICS: z.enum(["on", "off"]).default("on"),
  /** On SIGTERM, keep serving this long while /api/health/ready answers 503, so a load balancer stops sending traffic first. */
  SHUTDOWN_DELAY_SECONDS: z.coerce.number().min(0).max(60).default(0),
  // How long the primary waits for every sibling worker to acknowledge a broadcast (a logout, a revoked key).
  CLUSTER_BROADCAST_WAIT_MS: z.coerce.number().int().min(100).max(60_000).default(1_000),
  /** SMTP server for players' e-mail (smtp://user:pass@host:587, smtps://…); unset: messages stay in the dashboard's outbox. */
  SMTP_URL: z.string().url().optional(),
  /** The instance's default From address; a project may set its own sender in its settings. */
  EMAIL_FROM: z.string().email().default("no-reply@game-backend.local"),
  /** Password reset and verification code requests per account, and per client IP, per LOGIN_FAILURE_WINDOW_SECONDS. */
  CODE_REQUESTS_PER_ACCOUNT: z.coerce.number().int().min(1).default(5),
  CODE_REQUESTS_PER_IP: z.coerce.number().int().min(1).default(30),
  /** How long a reset or verification code lives. */
  CODE_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  /**
   * Wrong code guesses per address and purpose, across codes, before guesses are refused for a
   * back-off: CODE_GUESS_BACKOFF_SECONDS, doubling each time the cap trips, at most
   * CODE_GUESS_BACKOFF_MAX_SECONDS. A right code resets both.
   */
  CODE_GUESS_LIMIT: z.coerce.number().int().min(1).max(1_000).default(10),
  CODE_GUESS_BACKOFF_SECONDS: z.coerce.number().int().min(1).default(900),
  CODE_GUESS_BACKOFF_MAX_SECONDS: z.coerce.number().int().min(1).default(86_400),
  /** Messages to one address per project per hour; more are not queued (the caller's answer stays the same). */
  EMAIL_PER_RECIPIENT_PER_HOUR: z.coerce.number().int().min(1).max(1_000).default(10),
  /**
   * The domains a project's sender address may use (comma-separated: `studio.com,mail.studio.com`,
   * exact match, any case); unset or empty: any domain.
   */
  EMAIL_FROM_DOMAINS: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? "")
        .split(",")
        .map((d) => d.trim().toLowerCase())
        .filter((d) => d !== ""),
    ),
  /** How often each process looks for due scheduled changes: the bound on how late a sale starts or ends (docs/operating/scheduled-changes.md). */
  SCHEDULER_INTERVAL_SECONDS: z.coerce.number().min(0.2).max(60).default(2),
  /** The job queue: how often an idle worker looks for jobs. */
  QUEUE_POLL_SECONDS: z.coerce.number().min(0.5).max(60).default(2),
  /** E-mail delivery retries: the first after this many seconds, then doubling (pg-boss backoff), EMAIL_RETRY_LIMIT times. */
  EMAIL_RETRY_DELAY_SECONDS: z.coerce.number().int().min(1).default(30),
  EMAIL_RETRY_LIMIT: z.coerce.number().int().min(0).max(50).default(12),
  /**
   * Store receipts (docs/guides/store-receipts.md). The roots Apple's signed transactions must chain
   * to: comma-separated paths of DER or PEM certificates; unset, Apple Root CA - G3 (built in).
   * Tests point it at a root they made.
   */
  STORE_APPLE_ROOT_CERTIFICATES: z.string().min(1).optional(),
  /** Ask Apple's OCSP responder whether a signing certificate was revoked (needs the internet). */
  STORE_APPLE_ONLINE_CHECKS: z
    .enum(["true", "false", "1", "0"])
    .default("false")
    .transform((v) => v === "true" || v === "1"),
  /** Google Play Developer API and its OAuth token endpoint; tests point them at a fake on loopback. */
  STORE_GOOGLE_API_URL: z.string().url().default("https://androidpublisher.googleapis.com"),
  STORE_GOOGLE_TOKEN_URL: z.string().url().default("https://oauth2.googleapis.com/token"),
  /** Steam's partner Web API (ISteamMicroTxn); tests point it at a fake on loopback. */
  STORE_STEAM_API_URL: z.string().url().default("https://partner.steam-api.com"),
  /** One attempt at a store's API; 5xx and timeouts are retried STORE_RETRIES times, then 503 STORE_UNAVAILABLE. */
  STORE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  STORE_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  /**
   * The most units one store receipt may grant (StoreKit sells 1–10 of a product at once; Google
   * Play's multi-quantity purchases are capped per product in Play Console). A receipt naming
   * more is refused (RECEIPT_INVALID) before anything is granted.
   */
  STORE_MAX_QUANTITY: z.coerce.number().int().min(1).max(100).default(10),
  /** How often each project's refunds are fetched from Google (voided purchases) and Steam (GetReport CHARGEBACK); 0: never. */
  STORE_REFUND_POLL_MINUTES: z.coerce.number().int().min(0).max(1_440).default(60),
  /** Let identity providers' JWKS URLs point at private/loopback addresses (development, tests). */
  IDP_ALLOW_PRIVATE_NETWORKS: z
    .enum(["true", "false", "1", "0"])
    .default("false")
    .transform((v) => v === "true" || v === "1"),
  /** Let webhook endpoints be private/loopback addresses (development, tests): checked when each delivery connects. */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z
    .enum(["true", "false", "1", "0"])
    .default("false")
    .transform((v) => v === "true" || v === "1"),
  /** A webhook delivery attempt not answered (connect to last byte) within this fails and is retried. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /**
   * Multiplies the retry schedule (immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then
   * failed). 1 in production; tests shrink a day of retries to seconds instead of waiting.
   */
  WEBHOOK_RETRY_SCALE: z.coerce.number().positive().max(10).default(1),
  /** An endpoint whose deliveries have failed without a success for this long is disabled (default 5 days). */
  WEBHOOK_DISABLE_AFTER_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(5 * 24 * 3_600_000),
  /**
   * Webhook events and finished deliveries older than this are deleted by the hourly
   * housekeeping (an event with a pending delivery never is): a replay reaches this far back.
   */
  WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(30),
  /** A refused store receipt (kept so support sees what was sent and why) is deleted this long after it was refused. */
  REJECTED_RECEIPT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(90),
  /** A resolved player report is deleted this long after it was resolved (appeals reach this far back). */
  RESOLVED_REPORT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(365),
  /** How often each process looks for due webhook deliveries written elsewhere (its own are sent at once). */
  WEBHOOK_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
  /**
   * How long past WEBHOOK_TIMEOUT_MS a delivery stays leased to the process attempting it (time to
   * record the answer). A process that dies mid-attempt leaves its deliveries to be attempted
   * again once the lease ends; tests shorten it instead of waiting.
   */
  WEBHOOK_LEASE_MARGIN_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** Webhook delivery attempts in flight per process. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),

  // Read by the launcher (server/cli/start.mjs) before the app starts.
  /** The address the app listens on. */
  HOST: z.string().min(1).default("0.0.0.0"),
  /** Port of the embedded Postgres (only without DATABASE_URL). */
  EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65_535).default(54329),
  /** The embedded Postgres's shared_buffers in MB (only without DATABASE_URL); unset: a quarter of the memory, 128–1,024. */
  EMBEDDED_POSTGRES_SHARED_BUFFERS_MB: z.coerce.number().int().min(16).max(65_536).optional(),
  /** Slow-loris guard: a request's headers must all arrive within this many seconds. */
  HTTP_HEADERS_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3_600).default(60),
  /**
   * How long the launcher keeps asking its first GET /api/health while the app answers 503 or not
   * at all (starting on a busy machine) before it gives up and stops: a start that is not healthy
   * by then fails.
   */
  STARTUP_HEALTH_DEADLINE_SECONDS: z.coerce.number().int().min(1).max(3_600).default(120),
  /** Bearer token for GET /api/metrics and /api/health's full report; unset: loopback callers only. */
  METRICS_TOKEN: z.string().min(1).optional(),
  /** `0` opts in to Next.js's anonymous telemetry; the launcher sets `1` when unset. */
  NEXT_TELEMETRY_DISABLED: z.enum(["0", "1", "true", "false"]).optional(),
});

/**
 * Parses `source` (process.env) with `schema`: the values, or an Error listing every bad
 * variable. An empty variable (`REDIS_URL=`) means unset, as in most tools.
 * @template {z.ZodType} S
 * @param {S} schema
 * @param {Record<string, string | undefined>} source
 * @returns {z.output<S>}
 */
export function parseEnv(schema, source) {
  const set = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ""));
  const parsed = schema.safeParse(set);
  if (parsed.success) return parsed.data;
  // A rule whose message is a whole sentence about its variable is printed as it is.
  const lines = parsed.error.issues.map((i) => {
    const name = i.path.join(".");
    return `  ${i.message.startsWith(name) ? "" : `${name}: `}${i.message}`;
  });
  throw new Error(`Invalid environment:\n${lines.join("\n")}`);
}

/** The operator CLI's (`npm run admin`, server/cli/admin.mjs): where the server is, and an operator access token. */
export const ZAdminEnv = z.object({
  GB_URL: z.string().url().optional(),
  GB_TOKEN: z.string().min(1).optional(),
});

/**
 * What the launcher checks before it starts anything: every variable, as the app will; DATABASE_URL
 * may be unset (the launcher then starts the embedded Postgres and sets it for the app).
 */
export const ZLauncherEnv = ZEnv.partial({ DATABASE_URL: true });
