import { onBroadcast } from "../cluster";
import { env } from "../env";
import { invalidateEverywhere } from "../invalidate";

/**
 * Session state (revoked, end, the player's ban) for SESSION_CACHE_TTL_SECONDS (2 by default,
 * 0 = off), so an authenticated read is one database round trip instead of two. A revocation
 * (logout, ban, refresh-token reuse) forgets the affected entries at once on every worker of the
 * instance that made it; other instances see it when their entry expires, within the TTL. Kept on
 * globalThis: Next may load this module once per route bundle, and a logout in one route must
 * reach all.
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
const holder = globalThis as typeof globalThis & { __gameBackendSessions?: Map<string, Entry> };
const MAX_ENTRIES = 100_000;

function entries(): Map<string, Entry> {
  holder.__gameBackendSessions ??= new Map();
  return holder.__gameBackendSessions;
}

export function cachedSession(sessionId: string): SessionState | undefined {
  const hit = entries().get(sessionId);
  if (!hit) return undefined;
  if (hit.until > Date.now()) return hit.state;
  entries().delete(sessionId);
  return undefined;
}

export function rememberSession(sessionId: string, state: SessionState): void {
  const ttlMs = env().SESSION_CACHE_TTL_SECONDS * 1000;
  if (ttlMs <= 0) return;
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
  const all = entries();
  if (o.sessionId) all.delete(o.sessionId);
  if (!o.playerId) return;
  for (const [id, entry] of all) if (entry.state.playerId === o.playerId) all.delete(id);
}
