import type { SessionResponse } from "./types.js";

/** A signed-in player, as the SDK keeps it. `expiresAt` is the access token's expiry (epoch ms). */
export type Session = { playerId: string; accessToken: string; refreshToken: string; expiresAt: number };

/**
 * Where the session is persisted: `localStorage`, React Native's AsyncStorage, or anything with
 * these three methods, synchronous or returning promises.
 */
export type SessionStorage = {
  getItem(key: string): string | null | undefined | Promise<string | null | undefined>;
  setItem(key: string, value: string): void | Promise<void>;
  removeItem(key: string): void | Promise<void>;
};

export function memoryStorage(): SessionStorage {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

/** localStorage where the platform has a usable one (browsers; not in private modes that throw), else memory. */
export function defaultStorage(): { storage: SessionStorage; shared: boolean } {
  try {
    const local = (globalThis as { localStorage?: SessionStorage }).localStorage;
    if (local) {
      const probe = "game-backend.probe";
      local.setItem(probe, "1");
      local.removeItem(probe);
      return { storage: local, shared: true };
    }
  } catch {
    // Storage disabled or full: the session lives for this page only.
  }
  return { storage: memoryStorage(), shared: false };
}

export function sessionFromResponse(body: SessionResponse, now = Date.now()): Session {
  return {
    playerId: body.playerId,
    accessToken: body.accessToken,
    refreshToken: body.refreshToken,
    expiresAt: now + body.expiresIn * 1000,
  };
}

/** A stored value that is not a session (another app's key, an old format) reads as none. */
export function parseSession(raw: string | null | undefined): Session | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<Session> | null;
    if (
      value &&
      typeof value.playerId === "string" &&
      typeof value.accessToken === "string" &&
      typeof value.refreshToken === "string" &&
      typeof value.expiresAt === "number"
    ) {
      return { playerId: value.playerId, accessToken: value.accessToken, refreshToken: value.refreshToken, expiresAt: value.expiresAt };
    }
  } catch {
    // Not JSON: treated as no session.
  }
  return null;
}

type LockManager = {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>;
  request<T>(name: string, options: { ifAvailable: boolean }, callback: (lock: unknown) => Promise<T>): Promise<T>;
};

/**
 * Runs `work` under a Web Lock where the platform has them (browsers, Deno), so tabs refresh one
 * at a time. `contended` tells `work` that another holder (another tab) had the lock first.
 */
export function withLock<T>(name: string, work: (contended: boolean) => Promise<T>): Promise<T> {
  const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
  if (!locks) return work(false);
  return locks.request(name, { ifAvailable: true }, (lock) => (lock ? work(false) : locks.request(name, () => work(true))));
}
