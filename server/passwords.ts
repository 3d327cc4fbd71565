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
 * - at most PASSWORD_HASH_QUEUE wait for a slot, known clients (a right password from this
 *   address before) ahead of strangers; a known client arriving at a full queue displaces the
 *   newest waiting stranger;
 * - everything else, and a waiter not started within PASSWORD_HASH_MAX_WAIT_MS, is refused at
 *   once with 503 SERVICE_UNAVAILABLE and Retry-After, before any hashing.
 * Requests that do not hash never pass through here, so they never wait behind it.
 */
type Waiter = { priority: HashPriority; start: () => void; refuse: (reason: "displaced" | "waited_too_long") => void };
type Gate = { running: number; known: Waiter[]; strangers: Waiter[] };

// On globalThis: Next may load this module once per route bundle, and the e-mail login and the
// dashboard sign-in must share one gate.
const holder = globalThis as typeof globalThis & { __gameBackendHashGate?: Gate };
function gate(): Gate {
  holder.__gameBackendHashGate ??= { running: 0, known: [], strangers: [] };
  return holder.__gameBackendHashGate;
}

export function hashConcurrency(): number {
  const e = env();
  if (e.PASSWORD_HASH_CONCURRENCY) return e.PASSWORD_HASH_CONCURRENCY;
  const workers = e.GAME_BACKEND_WORKER_INDEX === undefined ? 1 : (e.WEB_CONCURRENCY ?? availableParallelism());
  return Math.max(1, Math.floor(availableParallelism() / workers));
}

/** The gate's state (for /api/health-style reporting and tests of this module). */
export function hashGateState(): { running: number; waiting: number } {
  const g = gate();
  return { running: g.running, waiting: g.known.length + g.strangers.length };
}

/**
 * Whether a stranger's password check would be refused now (every slot busy, the queue full).
 * The sign-ins ask before anything else — budgets, the account lookup — and refuse a stranger
 * at once (refuseStranger), so a refused attempt costs a flood as little as possible.
 */
export function hashGateFull(): boolean {
  const g = gate();
  return g.running >= hashConcurrency() && g.known.length + g.strangers.length >= env().PASSWORD_HASH_QUEUE;
}

/** The gate's refusal of a stranger, counted like its own. */
export function refuseStranger(): never {
  countPasswordHashRefusal("stranger", "queue_full");
  throw busy();
}

function busy(): AppError {
  const retryAfterSeconds = Math.max(1, Math.ceil(env().PASSWORD_HASH_MAX_WAIT_MS / 1000));
  return new AppError("SERVICE_UNAVAILABLE", {
    message: "Too many sign-ins are being checked right now; try again shortly.",
    headers: { "Retry-After": String(retryAfterSeconds) },
    details: { reason: "password_checks_busy", retryAfterSeconds },
  });
}

function release(): void {
  const g = gate();
  g.running--;
  const next = g.known.shift() ?? g.strangers.shift();
  next?.start();
}

/**
 * Waits for a slot. `isKnown` is asked only when no slot is free (it may query the database),
 * so an idle server pays nothing for it.
 */
async function acquire(isKnown: () => Promise<boolean>): Promise<HashPriority> {
  const g = gate();
  if (g.running < hashConcurrency() && g.known.length + g.strangers.length === 0) {
    g.running++;
    return "stranger";
  }
  const priority: HashPriority = (await isKnown()) ? "known" : "stranger";
  if (g.running < hashConcurrency() && g.known.length + g.strangers.length === 0) {
    g.running++;
    return priority;
  }
  const full = g.known.length + g.strangers.length >= env().PASSWORD_HASH_QUEUE;
  if (full) {
    const displaced = priority === "known" ? g.strangers.pop() : undefined;
    if (!displaced) {
      countPasswordHashRefusal(priority, "queue_full");
      throw busy();
    }
    displaced.refuse("displaced");
  }
  await new Promise<void>((resolve, reject) => {
    const waiter: Waiter = {
      priority,
      start: () => {
        clearTimeout(timer);
        g.running++;
        resolve();
      },
      refuse: (reason) => {
        clearTimeout(timer);
        countPasswordHashRefusal(priority, reason);
        reject(busy());
      },
    };
    const timer = setTimeout(() => {
      const line = priority === "known" ? g.known : g.strangers;
      const at = line.indexOf(waiter);
      if (at >= 0) line.splice(at, 1);
      waiter.refuse("waited_too_long");
    }, env().PASSWORD_HASH_MAX_WAIT_MS);
    (priority === "known" ? g.known : g.strangers).push(waiter);
  });
  return priority;
}

async function withHashSlot<T>(isKnown: () => Promise<boolean>, work: () => Promise<T>): Promise<T> {
  const priority = await acquire(isKnown);
  try {
    countPasswordHash(priority);
    return await work();
  } finally {
    release();
  }
}

const stranger = async () => false;

export type HashOptions = {
  /** Whether the caller is a known good client (queued ahead of strangers); asked only when the gate is busy. */
  isKnown?: () => Promise<boolean>;
};

export function hashPassword(password: string, o: HashOptions = {}): Promise<string> {
  return withHashSlot(o.isKnown ?? stranger, () => argon2.hash(password, ARGON2_OPTIONS));
}

export function verifyPassword(hash: string, password: string, o: HashOptions = {}): Promise<boolean> {
  return withHashSlot(o.isKnown ?? stranger, () => argon2.verify(hash, password).catch(() => false));
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
