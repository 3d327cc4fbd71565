import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { broadcast, runBroadcastHandler } from "./cluster";
import { afterTransaction, inTransaction } from "./db";
import { env } from "./env";
import { logger } from "./log";

/**
 * Drops a cache entry in this process, in every sibling worker (server/cluster.ts, resolving
 * once they all have) and, with `REDIS_URL`, on every other instance: the topic and payload are
 * published on one Redis channel every process of the deployment subscribes to, and each runs
 * the topic's handler when the message arrives (milliseconds; not awaited). Inside a transaction
 * the change is not committed yet: a sibling could read the old row again and cache it before the
 * commit, so every process drops it once more when the transaction has ended.
 */
export async function invalidateEverywhere(topic: string, payload: unknown, here: () => void): Promise<void> {
  here();
  await Promise.all([broadcast(topic, payload), publish(topic, payload)]);
  if (!inTransaction()) return;
  afterTransaction(() => {
    here();
    void broadcast(topic, payload);
    void publish(topic, payload);
  });
}

/**
 * True while every instance that could cache what this process caches hears its invalidations:
 * without `REDIS_URL` there is one instance (the start says several need Redis, their rate limits
 * too) and its workers hear each other over IPC; with it, while this process's subscription to
 * the channel is up. A cache that may only hold an entry long because revocations are heard
 * (the session cache) holds it briefly otherwise. Starts the subscription on first call.
 */
export function invalidationsHeard(): boolean {
  const url = env().REDIS_URL;
  if (!url) return env().UPSTASH_REDIS_REST_URL === undefined;
  const b = bus(url);
  // A connection can look open and deliver nothing (a NAT or failover dropped it without a
  // reset): this process publishes an echo every ECHO_EVERY_MS and counts as hearing only while
  // its own echo came back within ECHO_STALE_MS.
  return b.heard && Date.now() - b.lastEcho <= ECHO_STALE_MS;
}

/**
 * Subscribes this process (at start, before the first request: a revocation made elsewhere
 * meanwhile is then heard) and waits up to `timeoutMs` for the subscription. True once heard.
 */
export async function startInvalidations(timeoutMs: number): Promise<boolean> {
  const started = Date.now();
  while (!invalidationsHeard()) {
    if (Date.now() - started >= timeoutMs) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/**
 * Runs `clear` whenever this process may have missed invalidations: its subscription dropped, or
 * came back (messages published in between are lost; Redis pub/sub keeps none). One callback
 * per name; the last registration wins (Next may load a module once per route bundle).
 */
export function onInvalidationGap(name: string, clear: () => void): void {
  holder.__gameBackendInvalidationGaps ??= new Map();
  holder.__gameBackendInvalidationGaps.set(name, clear);
}

const CHANNEL = "game-backend:invalidate";

type Message = { origin: string; topic: string; payload: unknown };
type Bus = {
  url: string;
  origin: string;
  subscriber: Redis;
  publisher: Redis;
  heard: boolean;
  everHeard: boolean;
  lastEcho: number;
  timer: NodeJS.Timeout;
};
/** How often each process publishes its echo, and how old the last echo may be while it counts as hearing. */
export const ECHO_EVERY_MS = 2_000;
export const ECHO_STALE_MS = 5_000;
const ECHO_TOPIC = "invalidate:echo";
const holder = globalThis as typeof globalThis & {
  __gameBackendInvalidationBus?: Bus;
  __gameBackendInvalidationGaps?: Map<string, () => void>;
};

function gap(reason: string, quiet = false): void {
  for (const clear of holder.__gameBackendInvalidationGaps?.values() ?? []) clear();
  if (!quiet) logger("invalidate").info({ reason }, `cache invalidations: ${reason}; caches that rely on them were cleared`);
}

function bus(url: string): Bus {
  const existing = holder.__gameBackendInvalidationBus;
  if (existing?.url === url) return existing;
  // Commands wait for the first connection (a logout right after the start is published too);
  // `publish` bounds how long a request waits for one.
  const options = { maxRetriesPerRequest: 0, connectTimeout: 1_000, retryStrategy: (times: number) => Math.min(times * 100, 1_000) };
  const created: Bus = {
    url,
    origin: randomUUID(),
    // Named so that `CLIENT LIST TYPE pubsub` shows which process it is (and a test can drop it).
    subscriber: new Redis(url, { ...options, connectionName: `game-backend-invalidate-${process.pid}` }),
    publisher: new Redis(url, options),
    heard: false,
    everHeard: false,
    lastEcho: 0,
    timer: setInterval(() => checkEcho(created), ECHO_EVERY_MS).unref(),
  };
  holder.__gameBackendInvalidationBus = created;
  const { subscriber, publisher } = created;
  publisher.on("error", () => {});
  subscriber.on("error", () => {});
  // ioredis re-subscribes by itself after a reconnect; `subscribe`'s answer comes on every (re)subscription.
  subscriber.on("ready", () => {
    void subscriber.subscribe(CHANNEL).then(
      () => {
        if (created.heard) return;
        created.heard = true;
        created.lastEcho = Date.now();
        // The first subscription is the start's (bootstrap logs it); a later one ends a gap.
        gap("subscribed again", !created.everHeard);
        created.everHeard = true;
      },
      () => {},
    );
  });
  subscriber.on("close", () => {
    if (!created.heard) return;
    created.heard = false;
    gap("subscription lost");
  });
  subscriber.on("message", (_channel: string, raw: string) => {
    let message: Message;
    try {
      message = JSON.parse(raw) as Message;
    } catch {
      return;
    }
    if (message.origin !== created.origin) runBroadcastHandler(message.topic, message.payload);
    else if (message.topic === ECHO_TOPIC) created.lastEcho = Date.now();
  });
  return created;
}

/**
 * Every ECHO_EVERY_MS: publishes this process's echo, and when the last one is older than
 * ECHO_STALE_MS treats the subscription as lost (a gap: caches cleared, entries trusted briefly)
 * and reconnects it; the subscription's return is another gap, as after any reconnect.
 */
export function checkEcho(b: Bus): void {
  if (b.heard && Date.now() - b.lastEcho > ECHO_STALE_MS) {
    b.heard = false;
    gap(`no echo for ${ECHO_STALE_MS} ms`);
    b.subscriber.disconnect(true);
  }
  const echo: Message = { origin: b.origin, topic: ECHO_TOPIC, payload: null };
  b.publisher.publish(CHANNEL, JSON.stringify(echo)).catch(() => {});
}

async function publish(topic: string, payload: unknown): Promise<void> {
  const url = env().REDIS_URL;
  if (!url) return;
  const { publisher, origin } = bus(url);
  const message: Message = { origin, topic, payload };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PUBLISH_WAIT_MS} ms`)), PUBLISH_WAIT_MS);
  });
  try {
    await Promise.race([publisher.publish(CHANNEL, JSON.stringify(message)), timeout]);
  } catch (error) {
    // Redis unreachable from here: the other instances' subscriptions most likely dropped too,
    // which cleared their caches and shortened their TTL (see invalidationsHeard).
    logger("invalidate").warn({ topic, reason: (error as Error).message }, `invalidation of ${topic} not published to the other instances`);
  } finally {
    clearTimeout(timer);
  }
}

/** How long a request that revoked something waits for Redis to take the message. */
const PUBLISH_WAIT_MS = 1_000;

/** Closes this process's connections to the channel (tests; a process that stops exits anyway). */
export async function closeInvalidationBus(): Promise<void> {
  const existing = holder.__gameBackendInvalidationBus;
  if (!existing) return;
  delete holder.__gameBackendInvalidationBus;
  existing.heard = false;
  clearInterval(existing.timer);
  existing.subscriber.disconnect();
  existing.publisher.disconnect();
}
