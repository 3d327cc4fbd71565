import { Ratelimit } from "@upstash/ratelimit";
import { env } from "../env";
import { AppError } from "../errors";
import type { Plan } from "../generated/prisma/enums";
import { logger } from "../log";
import { observeRateLimit, observeRateLimitStore } from "../metrics";
import { ipSubject } from "./ip";
/**
 * Named rate-limit policies on @upstash/ratelimit (fixed window, so X-RateLimit-Reset is the
 * moment the whole budget comes back). Same algorithm on every store.
 */
import { projectLimit } from "./plans";
import { createStore, type Store, type StoreKind, shareThenProject } from "./stores";

export { PLAN_LIMITS, projectLimit } from "./plans";
/** Store calls slower than this count as "store down" (RATE_LIMIT_STORE_TIMEOUT_MS, default 100). */
export function storeTimeoutMs(): number {
  return env().RATE_LIMIT_STORE_TIMEOUT_MS;
}

/**
 * How long a fail-closed (credential) decision waits for the store (RATE_LIMIT_CREDENTIAL_TIMEOUT_MS,
 * default 1000): gameplay keeps the short deadline and fails open; a credential request would be
 * refused instead, so a store slowed by load (not down: a refused connection fails at once) gets
 * longer before everyone's sign-in is refused.
 */
export function credentialTimeoutMs(): number {
  return Math.max(env().RATE_LIMIT_CREDENTIAL_TIMEOUT_MS, storeTimeoutMs());
}

export type LimitResult = {
  policy: string;
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch milliseconds when the window resets. */
  resetMs: number;
  windowSeconds: number;
  /** The store failed and the request was let through. */
  degraded: boolean;
};

type Limiter = Store & {
  instances: Map<string, { ratelimit: Ratelimit; refusals: RefusalCache | null }>;
  refusals: RefusalCache[];
  lastSweep: number;
};
/** The library's ephemeral cache: identifier → epoch ms when its refusal ends. */
type RefusalCache = Map<string, number>;
const SWEEP_EVERY_MS = 60_000;
const holder = globalThis as typeof globalThis & { __gameBackendLimiter?: Limiter };

// On globalThis like the limiter: Next may load this module once per route bundle, and
// /api/health must see what every route counted.
const statsHolder = globalThis as typeof globalThis & { __gameBackendLimiterStats?: { failOpen: number; failClosed: number } };
statsHolder.__gameBackendLimiterStats ??= { failOpen: 0, failClosed: 0 };
export const limiterStats = statsHolder.__gameBackendLimiterStats;

function limiter(): Limiter {
  if (!holder.__gameBackendLimiter) {
    const created = createStore(env());
    holder.__gameBackendLimiter = { ...created, instances: new Map(), refusals: [], lastSweep: Date.now() };
  }
  return holder.__gameBackendLimiter;
}

export function limiterKind(): StoreKind {
  return limiter().kind;
}

/** Waits (bounded) for the store's first connection; false when it is not reachable yet. */
export function limiterReady(timeoutMs = 3_000): Promise<boolean> {
  return limiter().ready(timeoutMs);
}

/**
 * `refundable`: the budget gives units back (login attempts refunded on a correct password).
 * The library's ephemeral cache remembers a refused identifier until the window ends and
 * refuses it locally from then on, refunds included — so it is off for those budgets.
 */
export function instance(policy: string, limit: number, windowSeconds: number, o: { refundable?: boolean } = {}): Ratelimit {
  return instanceOf(policy, limit, windowSeconds, o).ratelimit;
}

function instanceOf(policy: string, limit: number, windowSeconds: number, o: { refundable?: boolean } = {}) {
  const l = limiter();
  if (Date.now() - l.lastSweep >= SWEEP_EVERY_MS) sweepRefusals();
  const id = `${policy}:${limit}:${windowSeconds}`;
  let found = l.instances.get(id);
  if (!found) {
    const refusals: RefusalCache | null = o.refundable ? null : new Map();
    if (refusals) l.refusals.push(refusals);
    const ratelimit = new Ratelimit({
      redis: l.store as unknown as ConstructorParameters<typeof Ratelimit>[0]["redis"],
      limiter: Ratelimit.fixedWindow(limit, `${windowSeconds} s`),
      // The prefix leaves out the limit, so a plan change keeps the window's count.
      prefix: prefixOf(policy),
      timeout: 0,
      analytics: false,
      ephemeralCache: refusals ?? false,
    });
    found = { ratelimit, refusals };
    l.instances.set(id, found);
  }
  return found;
}

const prefixOf = (policy: string) => `gb:rl:${policy}`;

/**
 * The library forgets a cached refusal only when its identifier comes back after the window,
 * so every address of a botnet that was refused once would stay in memory for good. Ended
 * refusals are swept from our maps (at most once a minute, on the request path). Returns the
 * refusals still cached.
 */
export function sweepRefusals(now = Date.now()): number {
  const l = limiter();
  l.lastSweep = now;
  let left = 0;
  for (const cache of l.refusals) {
    for (const [identifier, until] of cache) if (until <= now) cache.delete(identifier);
    left += cache.size;
  }
  return left;
}

/**
 * Rejects when `promise` is still pending `ms` after the call. Timers run before the event
 * loop's I/O phase, so on a busy process a store answer that already arrived can still be
 * unread when the timer fires: the decision waits one setImmediate (after that I/O phase), so
 * only an answer that truly has not come counts as a slow store.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      immediate = setImmediate(() => reject(new Error(`rate-limit store slower than ${ms} ms`)));
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
  });
}

export type ConsumeOptions = { policy: string; identifier: string; limit: number; windowSeconds: number; failClosed: boolean };

async function consume({ policy, identifier, limit, windowSeconds, failClosed }: ConsumeOptions): Promise<LimitResult> {
  const started = performance.now();
  try {
    const r = await withTimeout(
      instance(policy, limit, windowSeconds).limit(identifier),
      failClosed ? credentialTimeoutMs() : storeTimeoutMs(),
    );
    observeRateLimitStore((performance.now() - started) / 1000);
    observeRateLimit(policy, r.success ? "allowed" : "limited");
    return { policy, allowed: r.success, limit: r.limit, remaining: r.remaining, resetMs: r.reset, windowSeconds, degraded: false };
  } catch (error) {
    observeRateLimitStore((performance.now() - started) / 1000);
    return storeFailed(error, { policy, limit, windowSeconds, failClosed });
  }
}

/**
 * The store failed or was too slow. Fail open: the request passes (logged, counted). Fail
 * closed: a refused result marked degraded, which the edge answers with 503.
 */
export function storeFailed(error: unknown, o: Omit<ConsumeOptions, "identifier">): LimitResult {
  const windowMs = o.windowSeconds * 1_000;
  const resetMs = (Math.floor(Date.now() / windowMs) + 1) * windowMs;
  const base = { policy: o.policy, limit: o.limit, resetMs, windowSeconds: o.windowSeconds, degraded: true };
  observeRateLimit(o.policy, o.failClosed ? "fail_closed" : "fail_open");
  if (o.failClosed) {
    limiterStats.failClosed++;
    logger("ratelimit").error({ policy: o.policy, reason: (error as Error).message }, `store unavailable, refusing ${o.policy}`);
    return { ...base, allowed: false, remaining: 0 };
  }
  limiterStats.failOpen++;
  logger("ratelimit").warn({ policy: o.policy, reason: (error as Error).message }, `store unavailable, letting ${o.policy} through`);
  return { ...base, allowed: true, remaining: o.limit };
}

export function storeUnavailable(): AppError {
  return new AppError("SERVICE_UNAVAILABLE", {
    message: "Rate limiting is unavailable; credential requests are refused until it is back.",
    headers: { "Retry-After": "5" },
    details: { retryAfterSeconds: 5 },
  });
}

export type ProjectBudgets = { project: number; player: number; ip: number };
type BudgetSource = { plan: Plan; customRateLimit: number | null; playerRateLimit: number | null; ipRateLimit: number | null };

/** A share is at least this much (a player's normal play must fit), and never more than the project budget. */
export const MIN_SHARE = 60;

/**
 * The project's per-window budget and its shares. Defaults: a player may spend 20 % of the
 * project budget, a client IP 30 % on requests without a player (sign-in, registration) —
 * each at least 60, at most the whole budget: Free 100 → 60/60, Pro 1,000 → 200/300,
 * Enterprise 10,000 → 2,000/3,000. A project may set its own shares.
 */
export function budgetsOf(p: BudgetSource): ProjectBudgets {
  const project = projectLimit(p.plan, p.customRateLimit);
  const share = (own: number | null, fraction: number) => Math.min(project, own ?? Math.max(MIN_SHARE, Math.ceil(project * fraction)));
  return { project, player: share(p.playerRateLimit, 0.2), ip: share(p.ipRateLimit, 0.3) };
}

const limitsOff = () => env().RATE_LIMITS === "off";

/** Whose share a keyed request spends: its player's, its client IP's (client keys without a player), or none. */
export type Share = { scope: "player" | "ip"; identifier: string } | null;

/**
 * Counts a request with a valid key: first against its share, then — only if the share let it
 * through, so a refused abuser does not drain it — against the project budget. Returns what
 * was consumed, in that order (null when limits are off).
 */
export async function limitKeyed(p: BudgetSource & { projectId: string }, share: Share, failClosed = false): Promise<LimitResult[] | null> {
  if (limitsOff()) return null;
  const budgets = budgetsOf(p);
  const windowSeconds = env().RATE_LIMIT_WINDOW_SECONDS;
  const project: ConsumeOptions = { policy: "project", identifier: p.projectId, limit: budgets.project, windowSeconds, failClosed };
  if (!share) return [await consume(project)];
  const shared: ConsumeOptions = {
    policy: share.scope,
    identifier: `${p.projectId}:${share.identifier}`,
    limit: budgets[share.scope],
    windowSeconds,
    failClosed,
  };
  return (await consumeShareThenProject(shared, project)) ?? consumeInTurn(shared, project);
}

async function consumeInTurn(shared: ConsumeOptions, project: ConsumeOptions): Promise<LimitResult[]> {
  const first = await consume(shared);
  return first.allowed ? [first, await consume(project)] : [first];
}

/**
 * Both budgets in one store call (the library would make two round trips, to Redis or to the
 * launcher's primary, on every player request), on the library's keys and its fixed window, and
 * its refusal cache kept as the library keeps it. Null where the library's calls must do it: a
 * budget already refused in this process (the library answers from its cache without the store),
 * or on Upstash (its REST API's multi-key scripts are not tested here).
 */
async function consumeShareThenProject(shared: ConsumeOptions, project: ConsumeOptions): Promise<LimitResult[] | null> {
  const l = limiter();
  if (l.kind === "upstash") return null;
  const now = Date.now();
  const budgets = [shared, project].map((o) => {
    const { refusals } = instanceOf(o.policy, o.limit, o.windowSeconds);
    return { o, refusals, identifier: `${prefixOf(o.policy)}:${o.identifier}` };
  });
  if (budgets.some(({ refusals, identifier }) => (refusals?.get(identifier) ?? 0) >= now)) return null;
  const windowMs = shared.windowSeconds * 1_000;
  const bucket = Math.floor(now / windowMs);
  const resetMs = (bucket + 1) * windowMs;
  const started = performance.now();
  let counts: [number, number];
  try {
    counts = await withTimeout(
      shareThenProject(l.store, [`${budgets[0]?.identifier}:${bucket}`, `${budgets[1]?.identifier}:${bucket}`], shared.limit, windowMs),
      shared.failClosed ? credentialTimeoutMs() : storeTimeoutMs(),
    );
  } catch (error) {
    observeRateLimitStore((performance.now() - started) / 1000);
    const first = storeFailed(error, shared);
    return first.allowed ? [first, storeFailed(error, project)] : [first];
  }
  observeRateLimitStore((performance.now() - started) / 1000);
  const results: LimitResult[] = [];
  for (const [i, { o, refusals, identifier }] of budgets.entries()) {
    const used = counts[i] ?? 0;
    if (used === 0) break; // the share refused: the project was not counted
    const allowed = used <= o.limit;
    // As the library does: a refused budget is answered from the cache until its window ends.
    if (!allowed) refusals?.set(identifier, resetMs);
    observeRateLimit(o.policy, allowed ? "allowed" : "limited");
    results.push({
      policy: o.policy,
      allowed,
      limit: o.limit,
      remaining: Math.max(0, o.limit - used),
      resetMs,
      windowSeconds: o.windowSeconds,
      degraded: false,
    });
  }
  return results;
}

/** Requests without a valid API key, per client IP (throttles key guessing). */
export async function limitIp(ip: string, failClosed = false): Promise<LimitResult[] | null> {
  if (limitsOff()) return null;
  const result = await consume({
    policy: "ip",
    identifier: ipSubject(ip),
    limit: env().RATE_LIMIT_IP_PER_WINDOW,
    windowSeconds: env().RATE_LIMIT_WINDOW_SECONDS,
    failClosed,
  });
  return [result];
}

/** The budget a response describes: a refused one, else the one closest to running out. */
export function decisiveLimit(results: LimitResult[]): LimitResult | undefined {
  const refused = results.find((r) => !r.allowed);
  if (refused) return refused;
  return [...results].sort((a, b) => a.remaining - b.remaining || a.limit - b.limit)[0];
}

export async function pingStore(): Promise<{ kind: StoreKind; ok: boolean; latencyMs: number }> {
  const { kind, ping } = limiter();
  const started = performance.now();
  try {
    await withTimeout(ping(), 500);
    return { kind, ok: true, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
  } catch {
    return { kind, ok: false, latencyMs: Math.round(performance.now() - started) };
  }
}
