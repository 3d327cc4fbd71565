import { availableParallelism } from "node:os";
import argon2 from "argon2";
import { env } from "./env";
import { AppError } from "./errors";
import { countPasswordHash, countPasswordHashRefusal, type HashPriority } from "./metrics";

/** argon2id with OWASP's recommended floor: 19 MiB memory, 2 iterations, parallelism 1. */
export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * The hashing gate. argon2 costs tens of ms of a core each and runs on libuv's thread pool: a
 * sign-in flood that hashed without bound took every core from the event loop, so gameplay
 * slowed and the limiter missed its deadline. Per process:
 * - at most PASSWORD_HASH_CONCURRENCY operations run (default: the cores shared among the
 *   launcher's workers);
 * - the rest wait in a queue bounded by time, not by a small count: a check is let in only when
 *   the ones ahead of it will have run within PASSWORD_HASH_MAX_WAIT_MS at the measured hashing
 *   speed (and at most PASSWORD_HASH_QUEUE wait, a hard cap). So a launch-day burst of real
 *   players waits its turn (50 registrations at once on two cores: about a second), and only what
 *   could not start in time is refused;
 * - the queue is fair: known clients (a right password from this address before) wait ahead of
 *   strangers, and when the queue is full a newcomer displaces the newest waiter of the address
 *   that has the most waiting, if that address has more than the newcomer's — one address
 *   flooding cannot keep everyone else out;
 * - a refusal is 503 SERVICE_UNAVAILABLE (reason password_checks_busy) before any hashing, with
 *   Retry-After: the seconds until the queue ahead will have drained;
 * - a waiter not started within PASSWORD_HASH_MAX_WAIT_MS (the machine slowed) is refused too.
 * Requests that do not hash never pass through here, so they never wait behind it.
 */
type Refusal = "queue_full" | "displaced" | "waited_too_long";
type Waiter = { priority: HashPriority; source: string; start: () => void; refuse: (reason: Refusal) => void };

export type HashGateLimits = { concurrency: number; queue: number; maxWaitMs: number };

/** What a refusal tells the client: when to try again. */
export function busyError(retryAfterSeconds: number): AppError {
  return new AppError("SERVICE_UNAVAILABLE", {
    message: "Too many sign-ins are being checked right now; try again shortly.",
    headers: { "Retry-After": String(retryAfterSeconds) },
    details: { reason: "password_checks_busy", retryAfterSeconds },
  });
}

/**
 * What the gate rejects with: a plain marker, made into this module's AppError by the caller
 * (toAppError). The gate lives on globalThis and is made by whichever route bundle came first;
 * an AppError made there would be of that bundle's class, not `instanceof` the AppError of the
 * route that is answering, and would answer 500 instead of 503.
 */
type GateBusy = { gateBusy: true; retryAfterSeconds: number };
const gateBusy = (retryAfterSeconds: number): GateBusy => ({ gateBusy: true, retryAfterSeconds });
const isGateBusy = (error: unknown): error is GateBusy => (error as Partial<GateBusy> | null)?.gateBusy === true;
const toAppError = (error: unknown): unknown => (isGateBusy(error) ? busyError(error.retryAfterSeconds) : error);

/** The first estimate of one hash's duration, before any was measured (argon2id at ARGON2_OPTIONS on one busy core). */
const FIRST_ESTIMATE_MS = 60;

/**
 * One gate (the process has one, `gate()`; tests make their own). `limits` is read on every
 * admission, `now` measures hashing durations (an exponentially weighted mean).
 */
export function createHashGate(limits: () => HashGateLimits, now: () => number = performance.now.bind(performance)) {
  let running = 0;
  let hashMs = FIRST_ESTIMATE_MS;
  const known: Waiter[] = [];
  const strangers: Waiter[] = [];
  const waiting = () => known.length + strangers.length;

  /** Milliseconds until `ahead` queued checks (and those running) are done, at the measured speed. */
  const drainMs = (ahead: number, concurrency: number) => Math.ceil((ahead + 1) / concurrency) * hashMs;
  const retryAfter = () => {
    const l = limits();
    return Math.max(1, Math.min(Math.ceil(l.maxWaitMs / 1000), Math.ceil(drainMs(waiting(), l.concurrency) / 1000)));
  };
  /** Whether one more waiter fits: under the hard cap, and started within the wait limit. */
  const fits = () => {
    const l = limits();
    return waiting() < l.queue && drainMs(waiting(), l.concurrency) <= l.maxWaitMs;
  };
  const full = () => running >= limits().concurrency && !fits();

  function remove(waiter: Waiter) {
    const line = waiter.priority === "known" ? known : strangers;
    const at = line.indexOf(waiter);
    if (at >= 0) line.splice(at, 1);
  }

  /** The waiter a newcomer may displace from a full queue, or none. */
  function displaceable(priority: HashPriority, source: string): Waiter | undefined {
    if (priority === "known") return strangers.at(-1);
    const counts = new Map<string, number>();
    for (const w of strangers) counts.set(w.source, (counts.get(w.source) ?? 0) + 1);
    let most: string | undefined;
    for (const [s, n] of counts) if (most === undefined || n > (counts.get(most) ?? 0)) most = s;
    if (most === undefined || (counts.get(most) ?? 0) <= (counts.get(source) ?? 0) + 1) return undefined;
    for (let i = strangers.length - 1; i >= 0; i--) if (strangers[i]?.source === most) return strangers[i];
    return undefined;
  }

  function release() {
    running--;
    const next = known.shift() ?? strangers.shift();
    next?.start();
  }

  async function acquire(isKnown: () => Promise<boolean>, source: string): Promise<HashPriority> {
    const free = () => running < limits().concurrency && waiting() === 0;
    if (free()) {
      running++;
      return "stranger";
    }
    const priority: HashPriority = (await isKnown()) ? "known" : "stranger";
    if (free()) {
      running++;
      return priority;
    }
    if (!fits()) {
      const displaced = displaceable(priority, source);
      if (!displaced) {
        countPasswordHashRefusal(priority, "queue_full");
        throw gateBusy(retryAfter());
      }
      remove(displaced);
      displaced.refuse("displaced");
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        priority,
        source,
        start: () => {
          clearTimeout(timer);
          running++;
          resolve();
        },
        refuse: (reason) => {
          clearTimeout(timer);
          countPasswordHashRefusal(priority, reason);
          reject(gateBusy(retryAfter()));
        },
      };
      const timer = setTimeout(() => {
        remove(waiter);
        waiter.refuse("waited_too_long");
      }, limits().maxWaitMs);
      (priority === "known" ? known : strangers).push(waiter);
    });
    return priority;
  }

  return {
    state: () => ({ running, waiting: waiting(), hashMs }),
    full,
    retryAfter,
    async run<T>(o: { isKnown: () => Promise<boolean>; source: string }, work: () => Promise<T>): Promise<T> {
      const priority = await acquire(o.isKnown, o.source);
      const started = now();
      try {
        countPasswordHash(priority);
        return await work();
      } finally {
        hashMs = hashMs * 0.8 + Math.max(1, now() - started) * 0.2;
        release();
      }
    },
  };
}

type Gate = ReturnType<typeof createHashGate>;

export function hashConcurrency(): number {
  const e = env();
  if (e.PASSWORD_HASH_CONCURRENCY) return e.PASSWORD_HASH_CONCURRENCY;
  const workers = e.GAME_BACKEND_WORKER_INDEX === undefined ? 1 : (e.WEB_CONCURRENCY ?? availableParallelism());
  return Math.max(1, Math.floor(availableParallelism() / workers));
}

// On globalThis: Next may load this module once per route bundle, and the e-mail login and the
// dashboard sign-in must share one gate.
const holder = globalThis as typeof globalThis & { __gameBackendHashGate?: Gate };
function gate(): Gate {
  holder.__gameBackendHashGate ??= createHashGate(() => ({
    concurrency: hashConcurrency(),
    queue: env().PASSWORD_HASH_QUEUE,
    maxWaitMs: env().PASSWORD_HASH_MAX_WAIT_MS,
  }));
  return holder.__gameBackendHashGate;
}

/** The gate's state (for /api/health-style reporting and tests of this module). */
export function hashGateState(): { running: number; waiting: number } {
  const { running, waiting } = gate().state();
  return { running, waiting };
}

/**
 * Whether a stranger's password check would be refused now (every slot busy, the queue full).
 * The sign-ins ask before anything else — budgets, the account lookup — and refuse a stranger
 * at once (refuseStranger), so a refused attempt costs a flood as little as possible.
 */
export function hashGateFull(): boolean {
  return gate().full();
}

/** The gate's refusal of a stranger, counted like its own. */
export function refuseStranger(): never {
  countPasswordHashRefusal("stranger", "queue_full");
  throw busyError(gate().retryAfter());
}

const stranger = async () => false;

export type HashOptions = {
  /** Whether the caller is a known good client (queued ahead of strangers); asked only when the gate is busy. */
  isKnown?: () => Promise<boolean>;
  /** Where the request comes from (the client address's rate-limit subject): the queue's fair share is per source. */
  source?: string;
};

const slot = (o: HashOptions) => ({ isKnown: o.isKnown ?? stranger, source: o.source ?? "" });

export function hashPassword(password: string, o: HashOptions = {}): Promise<string> {
  return gate()
    .run(slot(o), () => argon2.hash(password, ARGON2_OPTIONS))
    .catch((error: unknown) => {
      throw toAppError(error);
    });
}

export function verifyPassword(hash: string, password: string, o: HashOptions = {}): Promise<boolean> {
  return gate()
    .run(slot(o), () => argon2.verify(hash, password).catch(() => false))
    .catch((error: unknown) => {
      throw toAppError(error);
    });
}

/**
 * A real hash to verify against when the account does not exist, so timing does not tell. Made
 * once per process, outside the gate (it is no client's request).
 */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= argon2.hash("not-a-real-password", ARGON2_OPTIONS);
  return dummyHash;
}
