import { errorFromResponse, GameApiError, SessionEndedError } from "./errors.js";
import { defaultStorage, parseSession, type Session, type SessionStorage, sessionFromResponse, withLock } from "./session.js";
import type { ApiPath, BodyOf, Method, PathParamsOf, QueryOf, SessionResponse, SuccessOf } from "./types.js";

export type RetryOptions = {
  /** Retries after the first attempt. Default 3. */
  retries?: number;
  /** First backoff step; doubles per retry, with full jitter. Default 200 ms. */
  baseDelayMs?: number;
  /** Longest wait between attempts. A Retry-After longer than this is not waited out: the call fails with it. Default 5,000 ms. */
  maxDelayMs?: number;
};

export type ClientOptions = {
  /** The backend's origin, e.g. "https://game.example.com"; the SDK adds /api/v1. */
  baseUrl: string;
  /** A client key of the project (ships in game builds). */
  apiKey: string;
  /** Where the session is kept. Default: localStorage in browsers, memory elsewhere. */
  storage?: SessionStorage;
  /** The storage key. Default "game-backend.session"; use one per project if a page talks to several. */
  storageKey?: string;
  /** Retries of network errors, 429, 503 and in-progress idempotent calls; `false` turns them off. */
  retry?: RetryOptions | false;
  /**
   * Each call's deadline in ms, covering all its attempts and the waits between them; past it the
   * call rejects with TIMEOUT (a call's `deadlineMs` overrides it). Default 30,000.
   */
  deadlineMs?: number;
  /** A fetch implementation. Default: the platform's. */
  fetch?: typeof fetch;
  /** Refresh this many seconds before the access token expires. Default 30. */
  refreshMarginSeconds?: number;
  /**
   * Anonymous players that come back (default true): `auth.anonymous()` sends this device's secret
   * (32+ random bytes, made once and kept in `storage` under `<storageKey>.device`, also after
   * logout), so the device signs in the same player again, and an anonymous session the server
   * ended (a session file copied to a second device and refreshed there) is signed in again
   * once, transparently. `false`: every `auth.anonymous()` is a new player; nothing is recovered.
   */
  deviceSecret?: boolean;
  /** Sent as X-Client-Version: the game's build ("1.4.2"), for the operators' health views. */
  clientVersion?: string;
  /** Sent as X-Platform: "web", "ios", "android", "windows", … (free text, up to 32 characters). */
  platform?: string;
};

/** The last, optional argument of every call. */
export type CallOptions = {
  retry?: false;
  signal?: AbortSignal;
  /** This call's deadline in ms (all attempts and waits); past it the call rejects with TIMEOUT. Default: the client's. */
  deadlineMs?: number;
};

/** The last argument of the calls that send an Idempotency-Key. */
export type IdempotentCallOptions = CallOptions & {
  /**
   * The Idempotency-Key to send (1–255 visible ASCII characters) instead of a new one. Make it with
   * `newIdempotencyKey()` and keep it with the pending change before calling: sent again with the
   * same key (after a crash, a lost answer, a TIMEOUT) within 24 hours, the change is applied at
   * most once and the server answers the first result.
   */
  idempotencyKey?: string;
};

/** The answer of a call that sent an Idempotency-Key, with the key it sent as a non-enumerable `idempotencyKey`. */
export type WithIdempotencyKey<T> = T & { readonly idempotencyKey: string };

type Auth = "none" | "player" | "optional";

export type RequestSpec<P extends ApiPath, M extends Method> = {
  method: M;
  path: P;
  params?: PathParamsOf<P, M>;
  query?: QueryOf<P, M>;
  body?: BodyOf<P, M>;
  headers?: Record<string, string>;
  auth: Auth;
  /** Safe to send again after a lost answer: GET/PUT/DELETE, or carrying an Idempotency-Key. */
  resendable: boolean;
  /** Sends an Idempotency-Key: the call's `idempotencyKey`, or a new one; the same on every retry. */
  idempotent?: boolean;
  /**
   * Also retry any 5xx (not only 503): for calls whose body is itself the idempotency key, such as
   * a store receipt, which the server answers the same however often it arrives.
   */
  retryServerErrors?: boolean;
  /** Sees every 2xx and 304 answer (a 304 resolves with `undefined`): for headers such as ETag. */
  seen?: (response: Response) => void;
};

const RETRYABLE_STATUS = new Set([429, 503]);

/** What the server accepts as an Idempotency-Key. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** A refusal before anything is sent, shaped as the server's own VALIDATION_ERROR. */
function invalid(path: string, message: string): GameApiError {
  return new GameApiError({ status: 400, code: "VALIDATION_ERROR", message, details: { issues: [{ path, message }] } });
}

/** Fails fast on options that would otherwise surface later as a NETWORK_ERROR or a 401. */
function checkOptions(o: ClientOptions): void {
  const fail = (message: string) => {
    throw new TypeError(`createClient: ${message}`);
  };
  const url = String(o.baseUrl);
  if (!/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/i.test(url)) {
    const problem = /^[a-z][\w+.-]*:\/\//i.test(url) ? "" : " (it has no scheme)";
    fail(`baseUrl "${url}" is not an absolute http(s) URL${problem}, e.g. "https://game.example.com".`);
  }
  const key = String(o.apiKey ?? "");
  if (!/^[\x21-\x7e]+$/.test(key)) {
    fail(`apiKey ${key ? (/\n$/.test(key) ? "ends with a newline" : "has whitespace or a control character") : "is empty"}.`);
  }
  const r = o.retry || {};
  const numbers = {
    "retry.retries": r.retries,
    "retry.baseDelayMs": r.baseDelayMs,
    "retry.maxDelayMs": r.maxDelayMs,
    refreshMarginSeconds: o.refreshMarginSeconds,
  };
  for (const [name, value] of Object.entries(numbers)) {
    if (value !== undefined && !(finite(value) && value >= 0)) fail(`${name} must be a finite number, 0 or more, not ${value}.`);
  }
  if (o.deadlineMs !== undefined && !validDeadline(o.deadlineMs)) fail(`deadlineMs must be a finite number above 0, not ${o.deadlineMs}.`);
}

const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const validDeadline = (value: unknown): boolean => finite(value) && value > 0;

export type Transport = ReturnType<typeof createTransport>;

/** This device's anonymous credential and the player it signed in last. */
type Device = { secret: string; playerId: string | null };

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** 43 random base64url characters: 258 random bits (each byte's low 6 bits; 256 is a multiple of 64, so unbiased). */
function newDeviceSecret(): string | null {
  const c = (globalThis as { crypto?: Crypto }).crypto;
  if (!c?.getRandomValues) return null;
  return Array.from(c.getRandomValues(new Uint8Array(43)), (b) => B64URL[b & 63]).join("");
}

/** A path parameter as one segment: percent-encoded, and never one a URL would rewrite or drop. */
function segment(name: string, value: unknown): string {
  const text = String(value);
  if (text === "" || text === "." || text === "..") {
    throw invalid(`params.${name}`, `${JSON.stringify(text)} cannot be a ${name}: a URL would rewrite it. Nothing was sent.`);
  }
  return encodeURIComponent(text);
}

export function createTransport(options: ClientOptions) {
  checkOptions(options);
  if (options.apiKey.startsWith("gb_server_")) {
    throw new Error(
      "createClient: this is a server key (gb_server_…), which can act as any player of the project; never ship it in a game. Use a client key (gb_client_…).",
    );
  }
  const api = `${options.baseUrl.replace(/\/+$/, "")}/api/v1`;
  const fetchImpl = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const storageKey = options.storageKey ?? "game-backend.session";
  const deviceKey = `${storageKey}.device`;
  const { storage, shared } = options.storage ? { storage: options.storage, shared: false } : defaultStorage();
  const retry = options.retry === false ? { retries: 0, baseDelayMs: 0, maxDelayMs: 0 } : options.retry;
  const retries = retry?.retries ?? 3;
  const baseDelayMs = retry?.baseDelayMs ?? 200;
  const maxDelayMs = retry?.maxDelayMs ?? 5_000;
  const marginMs = (options.refreshMarginSeconds ?? 30) * 1000;
  const deadlineMs = options.deadlineMs ?? 30_000;
  const devices = options.deviceSecret !== false;
  const listeners = new Set<(session: Session | null) => void>();
  const identity: Record<string, string> = {};
  if (options.clientVersion) identity["X-Client-Version"] = options.clientVersion;
  if (options.platform) identity["X-Platform"] = options.platform;

  let session: Session | null = null;
  let refreshing: Promise<Session> | null = null;
  const storageChanged: (() => void)[] = [];

  /** Resolves at another tab's next write of the session, or after `ms`. */
  const nextStorageChange = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      storageChanged.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });

  const adopt = (next: Session | null) => {
    const changed = next?.refreshToken !== session?.refreshToken || next?.playerId !== session?.playerId;
    session = next;
    if (changed) for (const listener of listeners) listener(next);
  };

  // Synchronous storage (localStorage) restores before createClient returns; async storage by `ready`.
  let ready: Promise<void>;
  try {
    const stored = storage.getItem(storageKey);
    ready =
      typeof (stored as PromiseLike<unknown> | null)?.then === "function"
        ? Promise.resolve(stored).then(
            (raw) => adopt(parseSession(raw)),
            () => adopt(null),
          )
        : Promise.resolve(adopt(parseSession(stored as string | null | undefined)));
  } catch {
    ready = Promise.resolve();
  }

  // Another tab signed in, refreshed or signed out: follow it.
  if (shared) {
    const target = globalThis as {
      addEventListener?: (type: string, listener: (event: { key: string | null; newValue: string | null }) => void) => void;
    };
    target.addEventListener?.("storage", (event) => {
      if (event.key !== storageKey) return;
      adopt(parseSession(event.newValue));
      for (const notify of storageChanged.splice(0)) notify();
    });
  }

  async function setSession(next: Session | null): Promise<void> {
    // A restore that finishes later must not overwrite this change.
    await ready;
    adopt(next);
    if (next) await storage.setItem(storageKey, JSON.stringify(next));
    else await storage.removeItem(storageKey);
  }

  function url<P extends ApiPath, M extends Method>(spec: RequestSpec<P, M>): string {
    const params = (spec.params ?? {}) as Record<string, string>;
    let path = (spec.path as string).replace(/\{(\w+)\}/g, (_, name: string) => segment(name, params[name]));
    const query = Object.entries((spec.query ?? {}) as Record<string, unknown>).filter(([, v]) => v !== undefined && v !== null);
    // Built by hand: React Native's URLSearchParams takes no list of pairs.
    if (query.length) path += `?${query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join("&")}`;
    return api + path;
  }

  /** Exponential backoff with full jitter; a server's Retry-After wins when present. */
  function delayFor(attempt: number, retryAfterSeconds: number | null, floorMs = 0): number {
    if (retryAfterSeconds !== null) return retryAfterSeconds * 1000 + Math.random() * baseDelayMs;
    return Math.max(floorMs, Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** attempt));
  }

  /**
   * One call: its Idempotency-Key chosen (and kept on the answer and on the error), and one
   * deadline over all its attempts, refreshes and waits.
   */
  async function send<P extends ApiPath, M extends Method>(
    spec: RequestSpec<P, M>,
    call: IdempotentCallOptions | undefined,
  ): Promise<SuccessOf<P, M>> {
    const ms = call?.deadlineMs ?? deadlineMs;
    if (!validDeadline(ms)) throw invalid("deadlineMs", `deadlineMs must be a finite number above 0, not ${ms}.`);
    const key = spec.idempotent ? (call?.idempotencyKey ?? newIdempotencyKey()) : null;
    if (key !== null && !KEY_PATTERN.test(key)) {
      throw invalid("headers.idempotency-key", "idempotencyKey must be 1–255 visible ASCII characters. Nothing was sent.");
    }
    const outer = call?.signal;
    const controller = new AbortController();
    const cancel = () => controller.abort(outer?.reason);
    if (outer?.aborted) cancel();
    outer?.addEventListener("abort", cancel, { once: true });
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      controller.abort();
    }, ms);
    try {
      const body = await attempts(spec, { ...call, signal: controller.signal }, key, Date.now() + ms);
      if (key !== null && typeof body === "object" && body !== null) Object.defineProperty(body, "idempotencyKey", { value: key });
      return body;
    } catch (error) {
      let failure = error;
      if (late && !outer?.aborted && error instanceof GameApiError && error.code === "ABORTED") {
        failure = new GameApiError({ status: 0, code: "TIMEOUT", message: `No answer within ${ms} ms.`, details: { deadlineMs: ms } });
      }
      if (key !== null && failure instanceof GameApiError) (failure as { idempotencyKey: string | null }).idempotencyKey = key;
      throw failure;
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener("abort", cancel);
    }
  }

  async function attempts<P extends ApiPath, M extends Method>(
    spec: RequestSpec<P, M>,
    call: CallOptions & { signal: AbortSignal },
    key: string | null,
    deadline: number,
  ): Promise<SuccessOf<P, M>> {
    await untilAborted(ready, call.signal);
    const target = url(spec);
    const maxRetries = call.retry === false ? 0 : retries;
    /** A wait that would outlast the deadline is not taken: the call fails now with what it has. */
    const fits = (wait: number) => wait < deadline - Date.now();
    let attempt = 0;
    let refreshed = false;
    // A player call belongs to the player signed in when it was made, whatever happens meanwhile.
    const caller = spec.auth === "player" ? session?.playerId : undefined;
    for (;;) {
      const headers: Record<string, string> = { Accept: "application/json", "X-API-Key": options.apiKey, ...identity, ...spec.headers };
      if (key !== null) headers["Idempotency-Key"] = key;
      if (spec.body !== undefined) headers["Content-Type"] = "application/json";
      let token: string | undefined;
      if (spec.auth === "player") token = (await validSession(call, caller)).accessToken;
      else if (spec.auth === "optional" && session) token = session.accessToken;
      if (token) headers.Authorization = `Bearer ${token}`;

      let response: Response;
      let body: unknown;
      try {
        response = await fetchImpl(target, {
          method: spec.method.toUpperCase(),
          headers,
          body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
          signal: call.signal,
        });
        // A connection lost while the body streams in is a lost answer too.
        body = await readBody(response);
      } catch (cause) {
        if (call.signal.aborted) throw aborted(call.signal);
        const wait = delayFor(attempt, null);
        if (spec.resendable && attempt++ < maxRetries && fits(wait)) {
          await sleep(wait, call.signal);
          continue;
        }
        throw new GameApiError({ status: 0, code: "NETWORK_ERROR", message: "The game backend could not be reached.", cause });
      }

      if (response.ok || response.status === 304) {
        spec.seen?.(response);
        if (body instanceof NotJson) {
          throw new GameApiError({ status: response.status, code: "UNEXPECTED_RESPONSE", message: "The answer was not the API's JSON." });
        }
        return body as SuccessOf<P, M>;
      }
      const error = errorFromResponse(response.status, body instanceof NotJson ? body.text : body, response.headers);
      // An access token that expired, or was signed before a key rotation: one refresh, then the same call again.
      if (error.code === "INVALID_TOKEN" && spec.auth !== "none" && token && !refreshed && error.details.reason !== "project") {
        refreshed = true;
        await refresh(token, call);
        continue;
      }
      const inProgress = error.code === "IDEMPOTENCY_IN_PROGRESS";
      const serverError = spec.retryServerErrors === true && response.status >= 500;
      // The server's password-hashing queue is full: it refused before doing anything, so any call
      // (a sign-in, a registration, a password reset) is sent again after Retry-After, as often as
      // the deadline allows.
      const busy =
        response.status === 503 && (error.code === ("PASSWORD_CHECKS_BUSY" as string) || error.details.reason === "password_checks_busy");
      if (busy && maxRetries > 0) {
        const wait = delayFor(0, Math.max(1, error.retryAfterSeconds ?? 1));
        if (fits(wait)) {
          await sleep(wait, call.signal);
          continue;
        }
      } else if ((RETRYABLE_STATUS.has(response.status) || inProgress || serverError) && attempt < maxRetries) {
        // The first attempt is still running on the server: give it time to finish.
        const wait = delayFor(attempt++, error.retryAfterSeconds, inProgress ? 1_000 : 0);
        if (wait <= maxDelayMs + baseDelayMs && fits(wait)) {
          await sleep(wait, call.signal);
          continue;
        }
      }
      throw error;
    }
  }

  async function validSession(call: CallOptions | undefined, caller: string | undefined): Promise<Session> {
    const current = await freshSession(call);
    if (current.playerId !== caller) {
      throw new SessionEndedError({
        status: 401,
        code: "INVALID_TOKEN",
        message: "Another player signed in while this call waited; it was not sent.",
        details: { reason: "player-changed" },
      });
    }
    return current;
  }

  async function freshSession(call: CallOptions | undefined): Promise<Session> {
    if (!session) {
      throw new GameApiError({
        status: 401,
        code: "MISSING_TOKEN",
        message: "Not signed in: call auth.anonymous(), auth.login() or auth.register() first.",
      });
    }
    if (session.expiresAt - marginMs > Date.now()) return session;
    return refresh(session.accessToken, call);
  }

  /**
   * One refresh at a time in this client (single flight) and, where Web Locks exist, across tabs:
   * a caller whose token was already replaced gets the new session without another refresh.
   */
  function refresh(staleAccessToken: string | null, call?: CallOptions): Promise<Session> {
    if (session && staleAccessToken !== null && session.accessToken !== staleAccessToken) return Promise.resolve(session);
    // Shared by every waiting call, so it runs with none of their signals or retry settings: one
    // caller giving up must not drop tokens the server already rotated.
    refreshing ??= withLock(`${storageKey}.refresh`, (contended) => rotate(staleAccessToken, contended)).finally(() => {
      refreshing = null;
    });
    return untilAborted(refreshing, call?.signal);
  }

  async function rotate(staleAccessToken: string | null, contended: boolean): Promise<Session> {
    // Another tab may have rotated while this one waited for the lock: its session is in storage
    // (and may already be adopted here through the storage event).
    if (staleAccessToken !== null) {
      const renewed = (s: Session) => s.accessToken !== staleAccessToken && s.expiresAt - marginMs > Date.now();
      const current = session;
      if (current && renewed(current)) return current;
      let latest = parseSession(await storage.getItem(storageKey));
      // The tab that held the lock has written its new session, but the write may not have reached
      // this tab's copy of localStorage yet (it travels between processes): give it a moment.
      if (contended && shared && (!latest || !renewed(latest))) {
        await nextStorageChange(250);
        if (session && renewed(session)) return session;
        latest = parseSession(await storage.getItem(storageKey));
      }
      if (latest && renewed(latest) && latest.playerId === current?.playerId) {
        adopt(latest);
        return latest;
      }
    }
    const before = session;
    if (!before) throw new SessionEndedError({ status: 401, code: "MISSING_TOKEN", message: "Not signed in." });
    try {
      const body = await send(
        { method: "post", path: "/auth/refresh", body: { refreshToken: before.refreshToken }, auth: "none", resendable: true },
        undefined,
      );
      const next = sessionFromResponse(body);
      // Signed out or into another account while this refresh ran: theirs stands, these tokens are dropped.
      if (session !== before) {
        if (session) return session;
        throw new SessionEndedError({
          status: 401,
          code: "INVALID_TOKEN",
          message: "Signed out while this call waited.",
          details: { reason: "signed-out" },
        });
      }
      await setSession(next);
      return next;
    } catch (error) {
      // Only the refresh token's refusal ends the session; a revoked API key or a proxy's 401 does not.
      if (error instanceof GameApiError && error.code === "INVALID_TOKEN" && session === before) {
        const recovered = await recover(before);
        if (recovered) return recovered;
        if (session !== before) throw error;
        await setSession(null);
        throw new SessionEndedError({
          status: error.status,
          code: error.code,
          message: "The session has ended; sign in again.",
          details: error.details,
          requestId: error.requestId,
          cause: error,
        });
      }
      throw error;
    }
  }

  /** A JSON value kept beside the session under `<storageKey>.<name>`; unreadable reads as null. */
  async function kept<T>(name: string): Promise<Partial<T> | null> {
    try {
      return JSON.parse((await storage.getItem(`${storageKey}.${name}`)) ?? "null");
    } catch {
      return null;
    }
  }

  async function keep<T>(name: string, value: T): Promise<T> {
    await storage.setItem(`${storageKey}.${name}`, JSON.stringify(value));
    return value;
  }

  async function loadDevice(): Promise<Device | null> {
    const value = await kept<Device>("device");
    return typeof value?.secret === "string" ? { secret: value.secret, playerId: value.playerId ?? null } : null;
  }

  const saveDevice = (device: Device): Promise<Device> => keep("device", device);

  const signInWith = (deviceSecret: string, call: CallOptions | undefined) =>
    send({ method: "post", path: "/auth/anonymous", body: { deviceSecret }, auth: "none", resendable: true }, call);

  /** POST /auth/anonymous, with this device's secret (made and stored before its first use, so a resend carries the same). */
  async function anonymous(call: CallOptions | undefined): Promise<SessionResponse> {
    await ready;
    const fresh = devices ? newDeviceSecret() : null;
    if (fresh === null) return send({ method: "post", path: "/auth/anonymous", body: {}, auth: "none", resendable: true }, call);
    let device = (await loadDevice()) ?? (await saveDevice({ secret: fresh, playerId: null }));
    let body: SessionResponse;
    try {
      body = await signInWith(device.secret, call);
    } catch (error) {
      // The device's player has signed up with an e-mail or a provider since: this device gets a new guest.
      if (!(error instanceof GameApiError && error.code === "ACCOUNT_ALREADY_LINKED")) throw error;
      device = await saveDevice({ secret: fresh, playerId: null });
      body = await signInWith(device.secret, call);
    }
    await saveDevice({ secret: device.secret, playerId: body.playerId });
    return body;
  }

  /** The device's anonymous player, whose session the server ended, signed in again with the device secret (once). */
  async function recover(before: Session): Promise<Session | null> {
    const device = devices ? await loadDevice() : null;
    if (device?.playerId !== before.playerId) return null;
    try {
      const body = await signInWith(device.secret, undefined);
      if (body.playerId !== before.playerId || session !== before) {
        // The player was deleted: the secret made a new one, which the next auth.anonymous() signs in.
        await saveDevice({ secret: device.secret, playerId: body.playerId });
        return null;
      }
      const next = sessionFromResponse(body);
      await setSession(next);
      return next;
    } catch {
      return null;
    }
  }

  async function signIn(response: SessionResponse): Promise<Session> {
    const next = sessionFromResponse(response);
    await setSession(next);
    return next;
  }

  return {
    send,
    ready,
    refresh: async (call?: CallOptions) => {
      await ready;
      return refresh(null, call);
    },
    signIn,
    anonymous,
    kept,
    keep,
    /** Forgets this device's secret: the next auth.anonymous() creates a new player. */
    forgetDevice: async () => {
      await ready;
      await storage.removeItem(deviceKey);
    },
    setSession,
    get session() {
      return session;
    },
    onSessionChange(listener: (session: Session | null) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** A body that is not JSON (a proxy's or captive portal's page). */
class NotJson {
  constructor(readonly text: string) {}
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204) return undefined;
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return new NotJson(text);
  }
}

function aborted(signal: AbortSignal): GameApiError {
  return new GameApiError({ status: 0, code: "ABORTED", message: "The call was cancelled.", cause: signal.reason });
}

/** `work`, or an ABORTED rejection as soon as `signal` fires (the work itself goes on). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(aborted(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aborted(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      if (signal) reject(aborted(signal));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * A new Idempotency-Key: a UUID (or 32 hex digits without `crypto.randomUUID`). Make one before a
 * change that must happen once (a purchase), keep it with the pending change, and pass it as the
 * call's `idempotencyKey` on every try, also after a restart. Uniqueness matters here, not secrecy.
 */
export function newIdempotencyKey(): string {
  const c = (globalThis as { crypto?: Crypto }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  const bytes = new Uint8Array(16);
  if (c?.getRandomValues) c.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
