import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterTransaction, pool } from "../../db";
import { env } from "../../env";
import { logger } from "../../log";

/**
 * The rank index: with REDIS_URL, one Redis sorted set per board and period gives ranks and
 * pages in O(log n) instead of Postgres' O(rank) / O(offset). Postgres stays the truth; the
 * index is a cache of it, rebuilt from Postgres when missing.
 *
 * - Every member has score 0 and sorts by its name, which encodes (sort_key, seq, playerId) as
 *   fixed-width hex that sorts like the numbers: the tie-break (who reached the score first) is
 *   exact in the index too, with no floating-point packing of two numbers into one.
 * - A hash maps player → member. Updates are a Lua script that applies a member only when its
 *   seq is newer than the stored one, so updates arriving out of order (two instances, a rebuild
 *   racing submits) converge on what Postgres holds.
 * - A ready marker (TTL READY_TTL_SECONDS) says the set is complete. Without it, reads use
 *   Postgres and one instance rebuilds the set in the background (a lock key). The TTL bounds
 *   how long an update lost to a Redis failure can be missing: the set is rebuilt at least that
 *   often while read. A Redis failure never fails a request: the index is skipped and Postgres
 *   answers; a process whose update failed drops the markers when Redis is back, forcing a rebuild.
 * - A rebuild runs on its own connection with a patient timeout, under a lock that is a lease
 *   renewed per batch and released only by its holder.
 * - Without REDIS_URL (in-process or Upstash limiter store) there is no index: Postgres answers.
 */
export const READY_TTL_SECONDS = 3_600;
const KEY_TTL_SECONDS = 7 * 86_400;
const REBUILD_BATCH = 500;
/**
 * The rebuild lock is a lease renewed after every batch: a process that dies mid-rebuild, or whose
 * release never reaches Redis, blocks other rebuilds of that board for at most this long.
 */
const REBUILD_LEASE_MS = 10_000;
/** Background rebuilds are not on a request's path: they get a patient command timeout. */
const REBUILD_COMMAND_TIMEOUT_MS = 5_000;

type Keys = { set: string; members: string; ready: string; lock: string };
export function indexKeys(projectId: string, boardId: string, period: string): Keys {
  const base = `lb:{${projectId}:${boardId}:${period}}`;
  return { set: `${base}:z`, members: `${base}:m`, ready: `${base}:ready`, lock: `${base}:lock` };
}

const UPSERT = `
local old = redis.call('HGET', KEYS[2], ARGV[1])
if old then
  if string.sub(old, 17, 32) >= ARGV[3] then return 0 end
  redis.call('ZREM', KEYS[1], old)
end
redis.call('ZADD', KEYS[1], 0, ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1`;

const REMOVE = `
local old = redis.call('HGET', KEYS[2], ARGV[1])
if not old then return 0 end
redis.call('ZREM', KEYS[1], old)
redis.call('HDEL', KEYS[2], ARGV[1])
return 1`;

/** Places a member whatever seq the index held for the player (a restored entry keeps its older seq). */
const REPLACE = `
local old = redis.call('HGET', KEYS[2], ARGV[1])
if old then redis.call('ZREM', KEYS[1], old) end
redis.call('ZADD', KEYS[1], 0, ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1`;

/** -2: no complete index; -1: the player is not in it; else the 0-based rank. */
const RANK = `
if redis.call('EXISTS', KEYS[3]) == 0 then return -2 end
local m = redis.call('HGET', KEYS[2], ARGV[1])
if not m then return -1 end
return redis.call('ZRANK', KEYS[1], m)`;

/** {-2} without a complete index, else {total, member…} of ranks [start, stop] (0-based). */
const RANGE = `
if redis.call('EXISTS', KEYS[2]) == 0 then return {-2} end
local out = redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2])
table.insert(out, 1, redis.call('ZCARD', KEYS[1]))
return out`;

/**
 * {-2} without a complete index, {-1} when the player is not in it, else {rank, start, total,
 * member…}: the player's 0-based rank and the members of ranks [rank - range, rank + range].
 */
const WINDOW = `
if redis.call('EXISTS', KEYS[3]) == 0 then return {-2} end
local m = redis.call('HGET', KEYS[2], ARGV[1])
if not m then return {-1} end
local rank = redis.call('ZRANK', KEYS[1], m)
local start = math.max(0, rank - tonumber(ARGV[2]))
local out = redis.call('ZRANGE', KEYS[1], start, rank + tonumber(ARGV[2]))
table.insert(out, 1, redis.call('ZCARD', KEYS[1]))
table.insert(out, 1, start)
table.insert(out, 1, rank)
return out`;

/** Renews (ARGV[2] = ms) or, without ARGV[2], releases the lock only while it is still ours. */
const LEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return redis.call('DEL', KEYS[1])`;

type IndexRedis = Redis & {
  lbWindow(set: string, members: string, ready: string, player: string, range: number): Promise<Array<string | number>>;
  lbUpsert(set: string, members: string, player: string, member: string, seq: string, ttl: number): Promise<number>;
  lbRemove(set: string, members: string, player: string): Promise<number>;
  lbReplace(set: string, members: string, player: string, member: string, ttl: number): Promise<number>;
  lbRank(set: string, members: string, ready: string, player: string): Promise<number>;
  lbRange(set: string, ready: string, start: number, stop: number): Promise<Array<string | number>>;
  lbLease(lock: string, token: string, ms?: number): Promise<number>;
};

/**
 * `failedSince`: when the current outage began (logged once). `missedWrite`: an update failed
 * during it, so indexes this process touched may be stale and are rebuilt once Redis answers. A
 * failed read leaves every index as it was: it changes nothing and needs no rebuild.
 */
type State = {
  client: IndexRedis | null;
  rebuilder: IndexRedis | null;
  failedSince: number | null;
  missedWrite: boolean;
  connected: Promise<void>;
};
const holder = globalThis as typeof globalThis & { __leaderboardIndex?: State };

function client(): IndexRedis | null {
  if (holder.__leaderboardIndex) return holder.__leaderboardIndex.client;
  const url = env().REDIS_URL;
  if (!url) {
    holder.__leaderboardIndex = { client: null, rebuilder: null, failedSince: null, missedWrite: false, connected: Promise.resolve() };
    return null;
  }
  const redis = connect(url, 250);
  const connected = firstConnection(redis);
  holder.__leaderboardIndex = { client: redis, rebuilder: null, failedSince: null, missedWrite: false, connected };
  return redis;
}

/**
 * Resolves once `redis` has connected, or after a second. Commands fail fast while disconnected
 * (no offline queue), so the first ones on a new connection wait for it.
 */
function firstConnection(redis: Redis): Promise<void> {
  if (redis.status === "ready") return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 1_000);
    redis.once("ready", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A connection with the index's scripts. Requests' commands fail fast (250 ms); rebuilds wait longer. */
function connect(url: string, commandTimeout: number): IndexRedis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    commandTimeout,
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  }) as IndexRedis;
  redis.on("error", () => {});
  redis.defineCommand("lbUpsert", { numberOfKeys: 2, lua: UPSERT });
  redis.defineCommand("lbRemove", { numberOfKeys: 2, lua: REMOVE });
  redis.defineCommand("lbReplace", { numberOfKeys: 2, lua: REPLACE });
  redis.defineCommand("lbRank", { numberOfKeys: 3, lua: RANK });
  redis.defineCommand("lbRange", { numberOfKeys: 2, lua: RANGE });
  redis.defineCommand("lbWindow", { numberOfKeys: 3, lua: WINDOW });
  redis.defineCommand("lbLease", { numberOfKeys: 1, lua: LEASE });
  return redis;
}

/** The rebuilds' own connection (opened on the first rebuild), so a slow rebuild never holds up requests. */
function rebuilder(): IndexRedis | null {
  const state = holder.__leaderboardIndex;
  const url = env().REDIS_URL;
  if (!client() || !state || !url) return null;
  state.rebuilder ??= connect(url, REBUILD_COMMAND_TIMEOUT_MS);
  return state.rebuilder;
}

/** Order-preserving fixed-width hex of a float64 (IEEE bits, sign-flipped) and of a bigint seq. */
export function encodeMember(sortKey: number, seq: string | bigint, playerId: string): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, sortKey === 0 ? 0 : sortKey); // -0 and 0 are equal in Postgres
  let bits = view.getBigUint64(0);
  bits = bits & 0x8000000000000000n ? ~bits & 0xffffffffffffffffn : bits | 0x8000000000000000n;
  return `${bits.toString(16).padStart(16, "0")}${BigInt(seq).toString(16).padStart(16, "0")}${playerId}`;
}

const playerOf = (member: string) => member.slice(32);
const seqHex = (member: string) => member.slice(16, 32);

/**
 * Runs an index operation; a Redis failure is logged once per outage and answers `fallback`. A
 * failed write (`kind: "write"`) means this process may have missed an update: once Redis answers
 * again it drops every ready marker so the indexes are rebuilt from Postgres.
 */
async function guarded<T>(kind: "read" | "write", work: (redis: IndexRedis) => Promise<T>, fallback: T): Promise<T> {
  const redis = client();
  const state = holder.__leaderboardIndex;
  if (!redis || !state) return fallback;
  try {
    await state.connected;
    const result = await work(redis);
    if (state.failedSince !== null) {
      const missedWrite = state.missedWrite;
      state.failedSince = null;
      state.missedWrite = false;
      if (missedWrite) {
        logger("leaderboards").warn("the rank index is reachable again; indexes are rebuilt as they are read");
        await dropReadyMarkers(redis);
      } else {
        logger("leaderboards").warn("the rank index is reachable again; no update was missed");
      }
    }
    return result;
  } catch (error) {
    if (kind === "write") state.missedWrite = true;
    if (state.failedSince === null) {
      state.failedSince = Date.now();
      logger("leaderboards").error({ reason: (error as Error).message }, "rank index unavailable, serving from Postgres");
    }
    return fallback;
  }
}

/** After an outage this process may have missed updates: every index it could have touched is rebuilt. */
async function dropReadyMarkers(redis: IndexRedis): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", "lb:{*}:ready", "COUNT", 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== "0");
}

export type IndexedEntry = { playerId: string; sortKey: number; seq: string };

/** Applies a player's new position (no-op when the index already holds a newer one). */
export function indexUpsert(projectId: string, boardId: string, period: string, e: IndexedEntry): Promise<void> {
  const k = indexKeys(projectId, boardId, period);
  const member = encodeMember(e.sortKey, e.seq, e.playerId);
  return guarded(
    "write",
    async (r) => {
      await r.lbUpsert(k.set, k.members, e.playerId, member, seqHex(member), KEY_TTL_SECONDS);
    },
    undefined,
  );
}

/**
 * Sets a player's position whatever seq the index held: an entry restored after a ban keeps its
 * seq, older than one the player may have made meanwhile. Only for positions just read from Postgres.
 */
export function indexReplace(projectId: string, boardId: string, period: string, e: IndexedEntry): Promise<void> {
  const k = indexKeys(projectId, boardId, period);
  return guarded(
    "write",
    async (r) => {
      await r.lbReplace(k.set, k.members, e.playerId, encodeMember(e.sortKey, e.seq, e.playerId), KEY_TTL_SECONDS);
    },
    undefined,
  );
}

export function indexRemove(projectId: string, boardId: string, period: string, playerId: string): Promise<void> {
  const k = indexKeys(projectId, boardId, period);
  return guarded(
    "write",
    async (r) => {
      await r.lbRemove(k.set, k.members, playerId);
    },
    undefined,
  );
}

/** The 1-based rank from the index, or null when the index cannot say (then ask Postgres). */
export function indexRank(projectId: string, boardId: string, period: string, playerId: string): Promise<number | null> {
  const k = indexKeys(projectId, boardId, period);
  return guarded(
    "read",
    async (r) => {
      const rank = await r.lbRank(k.set, k.members, k.ready, playerId);
      if (rank === -2) rebuildInBackground(projectId, boardId, period);
      return rank >= 0 ? rank + 1 : null;
    },
    null,
  );
}

/**
 * A player's 1-based rank with the player ids at 0-based ranks [rank - 1 - range, rank - 1 + range]
 * (from `start`) and the total, in one round trip; null when the index cannot say.
 */
export function indexWindow(
  projectId: string,
  boardId: string,
  period: string,
  playerId: string,
  range: number,
): Promise<{ rank: number; start: number; total: number; playerIds: string[] } | null> {
  const k = indexKeys(projectId, boardId, period);
  return guarded(
    "read",
    async (r) => {
      const [rank, start, total, ...members] = await r.lbWindow(k.set, k.members, k.ready, playerId, range);
      if (rank === -2) rebuildInBackground(projectId, boardId, period);
      if (Number(rank) < 0) return null;
      return { rank: Number(rank) + 1, start: Number(start), total: Number(total), playerIds: members.map((m) => playerOf(String(m))) };
    },
    null,
  );
}

/** Player ids at 0-based ranks [start, stop] and the total, or null when the index cannot say. */
export function indexRange(
  projectId: string,
  boardId: string,
  period: string,
  start: number,
  stop: number,
): Promise<{ total: number; playerIds: string[] } | null> {
  const k = indexKeys(projectId, boardId, period);
  return guarded(
    "read",
    async (r) => {
      const [total, ...members] = await r.lbRange(k.set, k.ready, start, stop);
      if (total === -2) {
        rebuildInBackground(projectId, boardId, period);
        return null;
      }
      return { total: Number(total), playerIds: members.map((m) => playerOf(String(m))) };
    },
    null,
  );
}

/** One instance rebuilds a missing index from Postgres; reads use Postgres until it is ready. */
function rebuildInBackground(projectId: string, boardId: string, period: string): void {
  const redis = rebuilder();
  if (!redis) return;
  // Started from a request that may be inside a transaction (an idempotent submit): the rebuild
  // reads through the pool once it has ended, else it would miss (and delete from the set) the
  // entry that transaction is writing.
  afterTransaction(() =>
    rebuildIndex(redis, projectId, boardId, period).catch((error: unknown) =>
      logger("leaderboards").error({ reason: (error as Error).message }, "index rebuild failed"),
    ),
  );
}

/** Releases the rebuild lock if it is still ours; a release that fails is retried, then left to the lease. */
async function releaseLock(redis: IndexRedis, lock: string, token: string): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await redis.lbLease(lock, token);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100 * (attempt + 1)));
    }
  }
}

export async function rebuildIndex(redis: IndexRedis, projectId: string, boardId: string, period: string): Promise<boolean> {
  const k = indexKeys(projectId, boardId, period);
  const token = randomUUID();
  // The rebuilds' connection opens on the first rebuild, which used to fail at once ("Stream isn't writeable").
  await firstConnection(redis);
  const locked = await redis.set(k.lock, token, "PX", REBUILD_LEASE_MS, "NX");
  if (locked !== "OK") return false;
  try {
    await redis.del(k.set, k.members);
    let after: { sortKey: number; seq: string } | null = null;
    let loaded = 0;
    for (;;) {
      const { rows } = await pool().query<{ player_id: string; sort_key: number; seq: string }>(
        `SELECT player_id, sort_key, seq FROM leaderboard_entries
          WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3 ${after ? "AND (sort_key, seq) > ($5::float8, $6::bigint)" : ""}
          ORDER BY sort_key, seq LIMIT $4`,
        after ? [projectId, boardId, period, REBUILD_BATCH, after.sortKey, after.seq] : [projectId, boardId, period, REBUILD_BATCH],
      );
      if (rows.length === 0) break;
      const batch = redis.pipeline();
      for (const row of rows) {
        const member = encodeMember(row.sort_key, row.seq, row.player_id);
        (batch as unknown as IndexRedis).lbUpsert(k.set, k.members, row.player_id, member, seqHex(member), KEY_TTL_SECONDS);
      }
      // A command that failed (a timeout under load) leaves the set incomplete: no ready marker then.
      const results = (await batch.exec()) ?? [];
      const failed = results.find(([error]) => error);
      if (failed?.[0]) throw failed[0];
      loaded += rows.length;
      if ((await redis.lbLease(k.lock, token, REBUILD_LEASE_MS)) !== 1) throw new Error("the rebuild lost its lock");
      const last = rows[rows.length - 1] as { sort_key: number; seq: string };
      after = { sortKey: last.sort_key, seq: last.seq };
      if (rows.length < REBUILD_BATCH) break;
    }
    // Submits may have added members meanwhile, never removed any: fewer than loaded means a loss.
    if ((await redis.zcard(k.set)) < loaded) throw new Error("the rebuilt index is missing entries");
    await redis.set(k.ready, "1", "EX", READY_TTL_SECONDS);
    return true;
  } finally {
    await releaseLock(redis, k.lock, token);
  }
}

/** For tests and the benchmark: the index client, or null without REDIS_URL. */
export function rankIndexClient(): Redis | null {
  return client();
}

/** Builds the index now (tests, benchmark); false when another process holds the rebuild lock. */
export async function rebuildIndexNow(projectId: string, boardId: string, period: string): Promise<boolean> {
  const redis = rebuilder();
  return redis ? rebuildIndex(redis, projectId, boardId, period) : false;
}
