import { createHash } from "node:crypto";
import { Redis as UpstashRedis } from "@upstash/redis";
import { Redis as IoRedis } from "ioredis";

/**
 * The three stores @upstash/ratelimit can run on here. The library calls `evalsha`, then `eval`
 * when the answer says NOSCRIPT; the self-hosted and in-process stores speak that interface.
 */
export type ScriptStore = {
  evalsha(sha: string, keys: string[], args: unknown[]): Promise<unknown>;
  eval(script: string, keys: string[], args: unknown[]): Promise<unknown>;
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<unknown>;
};

export type StoreKind = "upstash" | "redis" | "memory";

function sha1(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}

function noScript(): Error {
  return new Error("NOSCRIPT No matching script. Please use EVAL.");
}

/**
 * Self-hosted Redis through ioredis. The library's scripts start with
 * `#!lua flags=allow-key-locking`, which Redis 7.0 rejects, so the shebang is dropped and the
 * library's script hash is mapped to the hash of the stripped script (else every call would pay
 * NOSCRIPT + EVAL).
 */
export class IoRedisStore implements ScriptStore {
  private readonly strippedHash = new Map<string, string>();

  constructor(readonly client: IoRedis) {}

  async evalsha(sha: string, keys: string[], args: unknown[]): Promise<unknown> {
    const mapped = this.strippedHash.get(sha);
    if (!mapped) throw noScript();
    return this.client.evalsha(mapped, keys.length, ...keys, ...(args as string[]));
  }

  async eval(script: string, keys: string[], args: unknown[]): Promise<unknown> {
    const stripped = script.replace(/^#!lua[^\n]*\n/, "");
    this.strippedHash.set(sha1(script), sha1(stripped));
    return this.client.eval(stripped, keys.length, ...keys, ...(args as string[]));
  }

  async get(key: string): Promise<unknown> {
    return this.client.get(key);
  }

  async set(key: string, value: unknown): Promise<unknown> {
    return this.client.set(key, String(value));
  }
}

/**
 * In-process store for a single instance without Redis. It runs the same fixed-window algorithm
 * the library's Lua scripts run (INCRBY with an expiry set on the first increment).
 */
export class MemoryStore implements ScriptStore {
  private readonly counters = new Map<string, { value: number; expiresAt: number }>();
  /** The library's script hashes, learnt from its first `eval` of each: a NOSCRIPT error per call cost a stack trace. */
  private readonly scripts = new Map<string, "increment" | "read">();
  private lastSweep = Date.now();

  async evalsha(sha: string, keys: string[], args: unknown[]): Promise<unknown> {
    const kind = this.scripts.get(sha);
    if (!kind) throw noScript();
    return this.run(kind, keys, args);
  }

  async eval(script: string, keys: string[], args: unknown[]): Promise<unknown> {
    const kind = script.includes('redis.call("INCRBY", key, incrementBy)')
      ? "increment"
      : script.includes("redis.call('GET', key)")
        ? "read"
        : null;
    if (!kind) throw new Error("MemoryStore: unsupported rate-limit script (only the fixed window is implemented)");
    this.scripts.set(sha1(script), kind);
    return this.run(kind, keys, args);
  }

  private run(kind: "increment" | "read", keys: string[], args: unknown[]): unknown {
    const key = keys[0] ?? "";
    const limit = Number(args[0]);
    if (kind === "increment") return [this.increment(key, Number(args[2]), Number(args[1])), limit];
    return [limit - this.current(key), limit];
  }

  async get(key: string): Promise<unknown> {
    return this.current(key) || null;
  }

  async set(): Promise<unknown> {
    return "OK";
  }

  private current(key: string): number {
    const entry = this.counters.get(key);
    return entry && entry.expiresAt > Date.now() ? entry.value : 0;
  }

  private increment(key: string, by: number, windowMs: number): number {
    const now = Date.now();
    this.sweep(now);
    const entry = this.counters.get(key);
    if (!entry || entry.expiresAt <= now) {
      this.counters.set(key, { value: by, expiresAt: now + windowMs });
      return by;
    }
    entry.value += by;
    return entry.value;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, entry] of this.counters) if (entry.expiresAt <= now) this.counters.delete(key);
  }
}

export type StoreConfig = { REDIS_URL?: string; UPSTASH_REDIS_REST_URL?: string; UPSTASH_REDIS_REST_TOKEN?: string };

export type Store = { kind: StoreKind; store: ScriptStore; ping: () => Promise<void>; ready: (timeoutMs: number) => Promise<boolean> };

export function createStore(config: StoreConfig): Store {
  if (config.UPSTASH_REDIS_REST_URL && config.UPSTASH_REDIS_REST_TOKEN) {
    const redis = new UpstashRedis({ url: config.UPSTASH_REDIS_REST_URL, token: config.UPSTASH_REDIS_REST_TOKEN });
    return {
      kind: "upstash",
      store: redis as unknown as ScriptStore,
      ping: async () => {
        await redis.ping();
      },
      ready: async () => true,
    };
  }
  if (config.REDIS_URL) {
    const client = new IoRedis(config.REDIS_URL, {
      // Fail fast while disconnected instead of queueing: the limiter then fails open/closed
      // at once, and ioredis keeps reconnecting in the background so recovery needs no restart.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1_000,
      retryStrategy: (times) => Math.min(times * 100, 1_000),
      lazyConnect: false,
    });
    client.on("error", () => {});
    return {
      kind: "redis",
      store: new IoRedisStore(client),
      ping: async () => {
        await client.ping();
      },
      // Commands fail fast while disconnected, so wait for the first connection at start.
      ready: (timeoutMs) =>
        client.status === "ready"
          ? Promise.resolve(true)
          : new Promise<boolean>((resolve) => {
              const timer = setTimeout(() => resolve(false), timeoutMs);
              client.once("ready", () => {
                clearTimeout(timer);
                resolve(true);
              });
            }),
    };
  }
  return { kind: "memory", store: new MemoryStore(), ping: async () => {}, ready: async () => true };
}
