import { createHash } from "node:crypto";
import { Redis as UpstashRedis } from "@upstash/redis";
import { Redis as IoRedis } from "ioredis";
import { inWorker, requestPrimary } from "../cluster";
import { FixedWindowCounters, type ScriptKind, SHARE_THEN_PROJECT_SCRIPT, scriptKind } from "../fixed-window.mjs";

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

const SHARE_THEN_PROJECT_SHA = sha1(SHARE_THEN_PROJECT_SCRIPT);

/**
 * Counts a keyed request against its share's and its project's windows in one store call (the
 * script: server/fixed-window.mjs). Keys are the library's (`<prefix>:<identifier>:<bucket>`),
 * so its own calls and this one count the same windows. Answers [share count, project count],
 * the project's 0 when the share refused.
 */
export async function shareThenProject(
  store: ScriptStore,
  keys: [share: string, project: string],
  shareLimit: number,
  windowMs: number,
): Promise<[number, number]> {
  const args = [shareLimit, windowMs];
  let answer: unknown;
  try {
    answer = await store.evalsha(SHARE_THEN_PROJECT_SHA, keys, args);
  } catch (error) {
    if (!String(error).includes("NOSCRIPT")) throw error;
    answer = await store.eval(SHARE_THEN_PROJECT_SCRIPT, keys, args);
  }
  const [share, project] = answer as [number, number];
  return [Number(share), Number(project)];
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
 * In-process store for a single process without Redis: the same fixed-window algorithm the
 * library's Lua scripts run (server/fixed-window.mjs).
 */
export class MemoryStore implements ScriptStore {
  private readonly counters = new FixedWindowCounters();
  /** The library's script hashes, learnt from its first `eval` of each: a NOSCRIPT error per call cost a stack trace. */
  private readonly scripts = new Map<string, ScriptKind>();

  async evalsha(sha: string, keys: string[], args: unknown[]): Promise<unknown> {
    const kind = this.scripts.get(sha);
    if (!kind) throw noScript();
    return this.counters.run(kind, keys, args);
  }

  async eval(script: string, keys: string[], args: unknown[]): Promise<unknown> {
    const kind = learnScript(this.scripts, script);
    return this.counters.run(kind, keys, args);
  }

  async get(key: string): Promise<unknown> {
    return this.counters.current(key) || null;
  }

  async set(): Promise<unknown> {
    return "OK";
  }
}

function learnScript(scripts: Map<string, ScriptKind>, script: string): ScriptKind {
  const kind = scriptKind(script);
  if (!kind) throw new Error("in-process rate-limit store: unsupported script (only the fixed window is implemented)");
  scripts.set(sha1(script), kind);
  return kind;
}

/**
 * A launcher worker's store without Redis: the counters live in the launcher's primary process
 * (the same FixedWindowCounters), so every worker counts against one budget per key. Each call
 * is one IPC round trip; one that is not answered within RATE_LIMIT_STORE_TIMEOUT_MS fails like a
 * slow Redis (gameplay let through, credential requests refused).
 */
export class LauncherStore implements ScriptStore {
  private readonly scripts = new Map<string, ScriptKind>();

  constructor(private readonly timeoutMs: number) {}

  async evalsha(sha: string, keys: string[], args: unknown[]): Promise<unknown> {
    const kind = this.scripts.get(sha);
    if (!kind) throw noScript();
    return requestPrimary({ op: "ratelimit", kind, keys, args }, this.timeoutMs);
  }

  async eval(script: string, keys: string[], args: unknown[]): Promise<unknown> {
    const kind = learnScript(this.scripts, script);
    return requestPrimary({ op: "ratelimit", kind, keys, args }, this.timeoutMs);
  }

  async get(key: string): Promise<unknown> {
    return requestPrimary({ op: "ratelimit", kind: "get", keys: [key], args: [] }, this.timeoutMs);
  }

  async set(): Promise<unknown> {
    return "OK";
  }
}

export type StoreConfig = {
  REDIS_URL?: string;
  UPSTASH_REDIS_REST_URL?: string;
  UPSTASH_REDIS_REST_TOKEN?: string;
  /** Set in a launcher worker: without Redis, the counters are the primary's. */
  GAME_BACKEND_WORKER_INDEX?: number;
  RATE_LIMIT_STORE_TIMEOUT_MS?: number;
  RATE_LIMIT_CREDENTIAL_TIMEOUT_MS?: number;
};

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
  if (config.GAME_BACKEND_WORKER_INDEX !== undefined && inWorker()) {
    // The longest deadline a caller may give (credential requests'); shorter ones are the caller's withTimeout.
    const store = new LauncherStore(Math.max(config.RATE_LIMIT_STORE_TIMEOUT_MS ?? 100, config.RATE_LIMIT_CREDENTIAL_TIMEOUT_MS ?? 1_000));
    return {
      kind: "memory",
      store,
      ping: async () => {
        await store.get("gb:ping");
      },
      ready: async () => true,
    };
  }
  return { kind: "memory", store: new MemoryStore(), ping: async () => {}, ready: async () => true };
}
