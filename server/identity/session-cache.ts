import { onBroadcast } from "../cluster";
import { env } from "../env";
import { invalidateEverywhere, invalidationsHeard, onInvalidationGap } from "../invalidate";

/**
 * Session state (revoked, end, the player's ban) for SESSION_CACHE_TTL_SECONDS (30 by default,
 * 0 = off), so an authenticated read is one database round trip instead of two. A revocation
 * (logout, ban, refresh-token reuse) forgets the affected entries at once on every worker of the
 * instance that made it, and on every other instance as soon as Redis delivers the message
 * (server/invalidate.ts). While this process may miss such messages (REDIS_URL set and its
 * subscription down, or Upstash, which has no subscription) an entry is trusted for
 * UNHEARD_TTL_SECONDS at most, and every loss or return of the subscription clears the cache.
 * Kept on globalThis: Next may load this module once per route bundle, and a logout in one route
 * must reach all.
 */
export type SessionState = {
  playerId: string;
  revokedAt: Date | null;
  expiresAt: Date;
  bannedAt: Date | null;
  bannedUntil: Date | null;
  banReason: string | null;
};

type Entry = { state: SessionState; until: number };
type Cache = { entries: Map<string, Entry>; generation: number };
const holder = globalThis as typeof globalThis & { __gameBackendSessions?: Cache };
const MAX_ENTRIES = 100_000;
/** The bound while revocations made on other instances may not be heard (the pre-pub/sub default). */
export const UNHEARD_TTL_SECONDS = 2;

function cache(): Cache {
  holder.__gameBackendSessions ??= { entries: new Map(), generation: 0 };
  return holder.__gameBackendSessions;
}

function entries(): Map<string, Entry> {
  return cache().entries;
}

/**
 * Counts every forget and clear. A lookup reads it before its query and passes it to
 * `rememberSession`: a revocation heard while the query ran (its row read before the commit)
 * then keeps the stale answer out of the cache.
 */
export function sessionGeneration(): number {
  return cache().generation;
}

onInvalidationGap("sessions", () => {
  cache().generation += 1;
  entries().clear();
});

export function cachedSession(sessionId: string): SessionState | undefined {
  const hit = entries().get(sessionId);
  if (!hit) return undefined;
  const now = Date.now();
  // A refresh extends the session's end in the database: an end the cache has passed is read again.
  if (hit.until > now && hit.state.expiresAt.getTime() > now) return hit.state;
  entries().delete(sessionId);
  return undefined;
}

export function rememberSession(sessionId: string, state: SessionState, generation: number): void {
  const configured = env().SESSION_CACHE_TTL_SECONDS;
  const ttlMs = (invalidationsHeard() ? configured : Math.min(configured, UNHEARD_TTL_SECONDS)) * 1000;
  if (ttlMs <= 0 || generation !== cache().generation) return;
  const all = entries();
  if (all.size >= MAX_ENTRIES) all.clear();
  all.set(sessionId, { state, until: Date.now() + ttlMs });
}

type Forget = { sessionId?: string; playerId?: string };

/** Forgets one session, or every session of a player, here and on the sibling workers; resolves once they have. */
export async function forgetSessions(o: Forget): Promise<void> {
  await invalidateEverywhere(FORGET_TOPIC, o, () => forgetHere(o));
}

const FORGET_TOPIC = "sessions:forget";
onBroadcast(FORGET_TOPIC, (payload) => forgetHere(payload as Forget));

function forgetHere(o: Forget): void {
  cache().generation += 1;
  const all = entries();
  if (o.sessionId) all.delete(o.sessionId);
  if (!o.playerId) return;
  for (const [id, entry] of all) if (entry.state.playerId === o.playerId) all.delete(id);
}
