// The in-process rate-limit counters: the fixed-window algorithm @upstash/ratelimit's Lua scripts
// run (INCRBY with an expiry set on the first increment), without Redis. Plain JavaScript because
// two processes use it: the app's MemoryStore (server/ratelimit/stores.ts, one process) and the
// launcher's primary process (server/cli/start.mjs), which holds the counters for all its
// workers so a project has one budget however many workers serve it.

/** @typedef {"increment" | "read" | "share-then-project"} ScriptKind */

/**
 * A keyed request's two budgets in one store call: the library's fixed window (INCRBY, PEXPIRE on
 * the first increment) on the share's key, then — only if the share let it through, so a refused
 * abuser does not drain the project — on the project's key. KEYS: the share's and the project's
 * window keys (the library's format); ARGV: the share's limit, the window in ms. Answers
 * {share count, project count}, the project's 0 when it was not counted. Two library calls cost
 * two round trips (to Redis, or to the launcher's primary) on every player request.
 */
export const SHARE_THEN_PROJECT_SCRIPT = `-- gb:share-then-project
local share = redis.call("INCRBY", KEYS[1], 1)
if share == 1 then redis.call("PEXPIRE", KEYS[1], ARGV[2]) end
if share > tonumber(ARGV[1]) then return {share, 0} end
local project = redis.call("INCRBY", KEYS[2], 1)
if project == 1 then redis.call("PEXPIRE", KEYS[2], ARGV[2]) end
return {share, project}
`;

/**
 * Which script this is: the library's "increment" (limit) or "read" (getRemaining), our
 * "share-then-project", or null.
 * @param {string} script
 * @returns {ScriptKind | null}
 */
export function scriptKind(script) {
  if (script.includes('redis.call("INCRBY", key, incrementBy)')) return "increment";
  if (script.includes("redis.call('GET', key)")) return "read";
  if (script.startsWith("-- gb:share-then-project\n")) return "share-then-project";
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
    if (kind === "share-then-project") {
      const windowMs = Number(args[1]);
      const share = this.increment(key, 1, windowMs);
      return [share, share > limit ? 0 : this.increment(String(keys[1] ?? ""), 1, windowMs)];
    }
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
