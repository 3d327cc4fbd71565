// The in-process rate-limit counters: the fixed-window algorithm @upstash/ratelimit's Lua scripts
// run (INCRBY with an expiry set on the first increment), without Redis. Plain JavaScript because
// two processes use it: the app's MemoryStore (server/ratelimit/stores.ts, one process) and the
// launcher's primary process (server/cli/start.mjs), which holds the counters for all its
// workers so a project has one budget however many workers serve it.

/** @typedef {"increment" | "read"} ScriptKind */

/**
 * Which of the library's scripts this is: "increment" (limit), "read" (getRemaining) or null.
 * @param {string} script
 * @returns {ScriptKind | null}
 */
export function scriptKind(script) {
  if (script.includes('redis.call("INCRBY", key, incrementBy)')) return "increment";
  if (script.includes("redis.call('GET', key)")) return "read";
  return null;
}

const SWEEP_EVERY_MS = 60_000;

export class FixedWindowCounters {
  /** @type {Map<string, { value: number, expiresAt: number }>} */
  #counters = new Map();
  #lastSweep = Date.now();

  /**
   * Runs a script of `kind` with the library's keys and arguments, and answers what its Lua would.
   * @param {ScriptKind} kind
   * @param {readonly unknown[]} keys
   * @param {readonly unknown[]} args
   * @returns {[number, number]}
   */
  run(kind, keys, args) {
    const key = String(keys[0] ?? "");
    const limit = Number(args[0]);
    if (kind === "increment") return [this.increment(key, Number(args[2]), Number(args[1])), limit];
    if (kind === "read") return [limit - this.current(key), limit];
    throw new Error(`unsupported rate-limit script kind ${String(kind)}`);
  }

  /**
   * The count in the key's running window (0 when none runs).
   * @param {string} key
   */
  current(key) {
    const entry = this.#counters.get(key);
    return entry && entry.expiresAt > Date.now() ? entry.value : 0;
  }

  /**
   * @param {string} key
   * @param {number} by
   * @param {number} windowMs
   */
  increment(key, by, windowMs) {
    const now = Date.now();
    this.#sweep(now);
    const entry = this.#counters.get(key);
    if (!entry || entry.expiresAt <= now) {
      this.#counters.set(key, { value: by, expiresAt: now + windowMs });
      return by;
    }
    entry.value += by;
    return entry.value;
  }

  /**
   * Ended windows are forgotten at most once a minute, on the increment path.
   * @param {number} now
   */
  #sweep(now) {
    if (now - this.#lastSweep < SWEEP_EVERY_MS) return;
    this.#lastSweep = now;
    for (const [key, entry] of this.#counters) if (entry.expiresAt <= now) this.#counters.delete(key);
  }
}
