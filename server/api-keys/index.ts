import { randomBytes } from "node:crypto";
import { onBroadcast } from "../cluster";
import { sha256 } from "../crypto";
import { prisma } from "../db";
import { env } from "../env";
import { AppError } from "../errors";
import type { ApiKeyKind, Plan } from "../generated/prisma/enums";
import { invalidateEverywhere } from "../invalidate";
import { logger } from "../log";

/**
 * API keys: `gb_client_…` ships inside game builds, `gb_server_…` stays on a studio's servers.
 * Only the SHA-256 of a key is stored. Lookups are cached briefly per process
 * (API_KEY_CACHE_TTL_SECONDS, 30 by default). A plan change or revocation clears the cache of
 * every worker of the instance that made it at once, and reaches other instances within the TTL.
 */
const KEY_PREFIX = { CLIENT: "gb_client_", SERVER: "gb_server_" } as const;

export type ApiKeyContext = {
  keyId: string;
  projectId: string;
  kind: ApiKeyKind;
  plan: Plan;
  customRateLimit: number | null;
  playerRateLimit: number | null;
  ipRateLimit: number | null;
  /** A rotated key's end of overlap (epoch ms): its cache entry never outlives it. */
  expiresAtMs: number | null;
};

export function hashApiKey(key: string): Uint8Array<ArrayBuffer> {
  return sha256(key);
}

export function generateApiKey(kind: ApiKeyKind): { key: string; prefix: string; hash: Uint8Array<ArrayBuffer> } {
  const key = `${KEY_PREFIX[kind]}${randomBytes(24).toString("base64url")}`;
  return { key, prefix: key.slice(0, KEY_PREFIX[kind].length + 6), hash: hashApiKey(key) };
}

type CacheEntry = { value: ApiKeyContext | null; expiresAt: number };
// On globalThis: Next may load this module once per route bundle, and one lookup serves them all.
const holder = globalThis as typeof globalThis & {
  __gameBackendApiKeys?: { cache: Map<string, CacheEntry>; loading: Map<string, Promise<ApiKeyContext | null>> };
};
holder.__gameBackendApiKeys ??= { cache: new Map(), loading: new Map() };
const { cache, loading } = holder.__gameBackendApiKeys;
const MAX_CACHE_ENTRIES = 10_000;
const LAST_USED_EVERY_MS = 60_000;
const lastUsedWritten = new Map<string, number>();

/** Resolves a presented key, or throws INVALID_API_KEY. Unknown keys are cached too (briefly). */
export async function resolveApiKey(presented: string): Promise<ApiKeyContext> {
  const looksValid = presented.length <= 200 && (presented.startsWith(KEY_PREFIX.CLIENT) || presented.startsWith(KEY_PREFIX.SERVER));
  if (!looksValid) throw new AppError("INVALID_API_KEY");
  const hash = hashApiKey(presented);
  const cacheKey = Buffer.from(hash).toString("base64");
  const now = Date.now();
  const hit = cache.get(cacheKey);
  const value = hit && hit.expiresAt > now ? hit.value : await load(cacheKey, hash);
  if (!value) throw new AppError("INVALID_API_KEY");
  touchLastUsed(value.keyId, now);
  return value;
}

/** One lookup per key at a time: requests arriving while it runs (all of them, when an entry expires under load) share it. */
function load(cacheKey: string, hash: Uint8Array<ArrayBuffer>): Promise<ApiKeyContext | null> {
  const pending = loading.get(cacheKey);
  if (pending) return pending;
  const started = loadKey(hash)
    .then((value) => {
      // A clearApiKeyCache() meanwhile (revocation, plan change) wins over this older read.
      if (!cleared.has(started)) {
        if (cache.size >= MAX_CACHE_ENTRIES) cache.clear();
        const ttlMs = env().API_KEY_CACHE_TTL_SECONDS * 1_000;
        const cachedUntil = Date.now() + (value ? ttlMs : Math.min(ttlMs, 5_000));
        cache.set(cacheKey, { value, expiresAt: Math.min(cachedUntil, value?.expiresAtMs ?? cachedUntil) });
      }
      return value;
    })
    .finally(() => {
      if (loading.get(cacheKey) === started) loading.delete(cacheKey);
      cleared.delete(started);
    });
  loading.set(cacheKey, started);
  return started;
}
const cleared = new WeakSet<Promise<unknown>>();

async function loadKey(hash: Uint8Array<ArrayBuffer>): Promise<ApiKeyContext | null> {
  const row = await prisma().apiKey.findUnique({
    where: { keyHash: hash },
    select: {
      id: true,
      projectId: true,
      kind: true,
      revokedAt: true,
      expiresAt: true,
      project: { select: { plan: true, customRateLimit: true, playerRateLimit: true, ipRateLimit: true } },
    },
  });
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt.getTime() <= Date.now())) return null;
  return { keyId: row.id, projectId: row.projectId, kind: row.kind, expiresAtMs: row.expiresAt?.getTime() ?? null, ...row.project };
}

/** last_used_at is written at most once a minute per key per process, off the request path. */
function touchLastUsed(keyId: string, now: number): void {
  const last = lastUsedWritten.get(keyId) ?? 0;
  if (now - last < LAST_USED_EVERY_MS) return;
  lastUsedWritten.set(keyId, now);
  prisma()
    .apiKey.update({ where: { id: keyId }, data: { lastUsedAt: new Date(now) }, select: { id: true } })
    .catch((error: unknown) => logger("api-keys").error({ reason: (error as Error).message }, "last_used_at update failed"));
}

/**
 * Drops the cached lookups of this process and of its sibling workers (revocations and plan
 * changes apply at once on this instance); resolves once the siblings have dropped theirs.
 */
export async function clearApiKeyCache(): Promise<void> {
  await invalidateEverywhere(CLEAR_TOPIC, null, dropCachedKeys);
}

const CLEAR_TOPIC = "api-keys:clear";
onBroadcast(CLEAR_TOPIC, () => dropCachedKeys());

function dropCachedKeys(): void {
  cache.clear();
  // Lookups still running may have read the row before the change: their answers are not cached.
  for (const pending of loading.values()) cleared.add(pending);
  loading.clear();
}
