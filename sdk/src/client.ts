import { type ConflictCopy, GameApiError, VersionConflictError } from "./errors.js";
import type { Session } from "./session.js";
import {
  type CallOptions,
  type ClientOptions,
  createTransport,
  type IdempotentCallOptions,
  type RequestSpec,
  type Transport,
  type WithIdempotencyKey,
} from "./transport.js";
import type {
  ApiPath,
  ConfigAnswer,
  ConfigValue,
  CurrencyBalance,
  CurrencyChange,
  EconomyTransactionPage,
  InventoryEntry,
  JsonValue,
  LeaderboardPage,
  LeaderboardPlayerEntry,
  Method,
  OwnProfile,
  PatchPlayerDataBody,
  PlayerDataRecord,
  PlayerExport,
  PublicProfile,
  PurchaseResult,
  Receipt,
  ReceiptResult,
  RemoteConfig,
  ReportInput,
  ReportResult,
  Save,
  SaveMetadata,
  SteamOrder,
  SteamOrderInput,
  SubmitScoreResult,
  SuccessOf,
  Visibility,
} from "./types.js";

export type WriteOptions = {
  /** Write only if the stored version is this one (If-Match); otherwise VersionConflictError. */
  ifVersion?: number;
  /** Write only if nothing is stored yet (If-None-Match: *). */
  createOnly?: boolean;
};

/**
 * Sent again after a lost answer only when a repeat answers the same as the first: a conditional
 * write that succeeded would meet its own new version (412), a delete its own absence (404).
 */
const unconditional = (options: WriteOptions | undefined): boolean => options?.ifVersion === undefined && !options?.createOnly;
const batchResendable = (ops: PatchPlayerDataBody): boolean =>
  !ops.delete?.length && Object.values(ops.set ?? {}).every((op) => op.version === undefined);

function versionHeaders(options: WriteOptions | undefined): Record<string, string> {
  if (options?.ifVersion !== undefined) return { "If-Match": `"${options.ifVersion}"` };
  if (options?.createOnly) return { "If-None-Match": "*" };
  return {};
}

/**
 * A 412 becomes a VersionConflictError carrying the server's copy, read right after the conflict:
 * null when it no longer exists, undefined when it could not be read (read it again yourself).
 */
async function withConflictCopy<T, C extends ConflictCopy | null>(write: () => Promise<T>, readCurrent: () => Promise<C>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof GameApiError) || error.code !== "VERSION_CONFLICT") throw error;
    const current = await readCurrent().then(
      (copy): C | null | undefined => copy,
      (readError: unknown) => (readError instanceof GameApiError && GONE.has(readError.code) ? null : undefined),
    );
    throw new VersionConflictError(
      { status: error.status, code: error.code, message: error.message, details: error.details, requestId: error.requestId, cause: error },
      current,
    );
  }
}

const GONE = new Set<string>(["KEY_NOT_FOUND", "SAVE_NOT_FOUND"]);

export function createClient(options: ClientOptions) {
  const t: Transport = createTransport(options);
  const send = <P extends ApiPath, M extends Method>(spec: RequestSpec<P, M>, call?: IdempotentCallOptions): Promise<SuccessOf<P, M>> =>
    t.send(spec, call);
  const player = { auth: "player", resendable: true } as const;
  const once = { auth: "player", resendable: false } as const;
  /** Sends the call's `idempotencyKey` (or a new one) as Idempotency-Key, the same on every retry; the answer carries it. */
  const idempotent = { auth: "player", resendable: true, idempotent: true } as const;

  const auth = {
    /**
     * Signs in this device's anonymous player: a new one the first time, the same one on later
     * calls (also after logout) through the device secret (see `ClientOptions.deviceSecret`).
     * Upgrade it with `register` or `idp` to keep progress on other devices.
     */
    anonymous: async (call?: CallOptions): Promise<Session> => t.signIn(await t.anonymous(call)),
    /**
     * Forgets this device's secret (not the session): the next `anonymous()` creates a new player.
     * Call it when the player wants to start over; the old anonymous player cannot be signed in again.
     */
    forgetDevice: (): Promise<void> => t.forgetDevice(),
    /**
     * Creates an e-mail account; while signed in as a player without an e-mail (an anonymous one),
     * links the e-mail to that player instead (same playerId). Not resent after a lost answer.
     */
    register: async (input: { email: string; password: string; displayName?: string }, call?: CallOptions): Promise<Session> =>
      t.signIn(await send({ method: "post", path: "/auth/email/register", body: input, auth: "optional", resendable: false }, call)),
    login: async (input: { email: string; password: string }, call?: CallOptions): Promise<Session> =>
      t.signIn(await send({ method: "post", path: "/auth/email/login", body: input, auth: "none", resendable: true }, call)),
    /**
     * E-mails a six-digit password reset code to the address, if it has an account that may get
     * one; the answer is the same either way (nothing tells whether the address is registered).
     */
    requestPasswordReset: async (email: string, call?: CallOptions): Promise<void> => {
      await send({ method: "post", path: "/auth/email/password-reset", body: { email }, auth: "none", resendable: true }, call);
    },
    /** Sets a new password with the e-mailed code and signs in; the player's other sessions end. */
    confirmPasswordReset: async (input: { email: string; code: string; password: string }, call?: CallOptions): Promise<Session> =>
      t.signIn(
        await send({ method: "post", path: "/auth/email/password-reset/confirm", body: input, auth: "none", resendable: false }, call),
      ),
    /** Confirms the player's e-mail address with the code mailed on registration (or by `resendVerification`). */
    verifyEmail: (code: string, call?: CallOptions) => send({ method: "post", path: "/auth/email/verify", body: { code }, ...once }, call),
    /** Mails a new verification code (when the address is not verified yet). */
    resendVerification: async (call?: CallOptions): Promise<void> => {
      await send({ method: "post", path: "/auth/email/verify/resend", ...player }, call);
    },
    /** Signs in with an identity provider's ID token; while signed in, links that identity to the player. */
    idp: async (input: { provider: string; token: string }, call?: CallOptions): Promise<Session> =>
      t.signIn(await send({ method: "post", path: "/auth/idp", body: input, auth: "optional", resendable: true }, call)),
    /** Rotates the tokens now (calls do this by themselves when needed). */
    refresh: (call?: CallOptions): Promise<Session> => t.refresh(call),
    /**
     * Ends the session on the server and forgets it here. A session the server had already ended
     * counts as signed out; a network error rejects (the server's session lives on) but the local
     * session is forgotten all the same.
     */
    logout: async (call?: CallOptions): Promise<void> => {
      await t.ready;
      try {
        if (t.session) await send({ method: "post", path: "/auth/logout", ...player }, call);
      } catch (error) {
        if (!(error instanceof GameApiError && error.status === 401)) throw error;
      } finally {
        await t.setSession(null);
      }
    },
  };

  const players = {
    me: (call?: CallOptions) =>
      send({ method: "get", path: "/players/{id}", params: { id: "me" }, ...player }, call) as Promise<OwnProfile>,
    update: (input: { displayName: string | null }, call?: CallOptions) =>
      send({ method: "patch", path: "/players/{id}", params: { id: "me" }, body: input, ...player }, call) as Promise<OwnProfile>,
    /** Another player's profile as others see it ("me" is answered by `me`). */
    get: (playerId: string, call?: CallOptions) =>
      send({ method: "get", path: "/players/{id}", params: { id: playerId }, ...player }, call) as Promise<PublicProfile>,
    /**
     * Deletes the signed-in player and everything they own, then forgets the session here. An
     * e-mail account passes its password (a wrong one rejects with INVALID_CREDENTIALS and
     * nothing changes); an anonymous one passes none. Not resent after a lost answer: the
     * session it would need is gone once the deletion committed.
     */
    deleteAccount: async (password?: string, call?: CallOptions): Promise<void> => {
      const body = password === undefined ? {} : { password };
      await send({ method: "delete", path: "/players/{id}", params: { id: "me" }, body, ...once }, call);
      await t.setSession(null);
    },
    /** Everything the project holds about the signed-in player, as one JSON document. */
    exportData: (call?: CallOptions): Promise<PlayerExport> =>
      send({ method: "get", path: "/players/{id}/export", params: { id: "me" }, ...player }, call),
    /**
     * Reports another player to the project's moderators with one of the project's report reasons
     * (default `cheating`, `abuse`, `offensive_name`, `spam`, `other`) and an optional note (up to
     * 500 characters). Reporting the same player again while the report is open updates it (same
     * `id`), so a lost answer is simply sent again. Rejects with a `GameApiError` whose `code` is a
     * `ReportErrorCode`: 400 CANNOT_REPORT_SELF, 400 VALIDATION_ERROR (an unknown reason:
     * `details.reasons` lists the project's), 404 PLAYER_NOT_FOUND, 429 RATE_LIMITED (too many
     * reports lately; `retryAfterSeconds` says when to try again).
     */
    report: (playerId: string, input: ReportInput, call?: CallOptions): Promise<ReportResult> =>
      send({ method: "post", path: "/players/{id}/report", params: { id: playerId }, body: input, ...player }, call),
  };

  const readData = (key: string, playerId = "me", call?: CallOptions): Promise<PlayerDataRecord> =>
    send({ method: "get", path: "/players/{id}/data/{key}", params: { id: playerId, key }, ...player }, call);

  const data = {
    /** One key of the player's data (or another player's public key with `playerId`). */
    get: (key: string, opts?: { playerId?: string }, call?: CallOptions): Promise<PlayerDataRecord> => readData(key, opts?.playerId, call),
    list: (opts?: { playerId?: string }, call?: CallOptions): Promise<PlayerDataRecord[]> =>
      send({ method: "get", path: "/players/{id}/data", params: { id: opts?.playerId ?? "me" }, ...player }, call),
    set: (
      key: string,
      value: JsonValue,
      opts?: WriteOptions & { visibility?: Visibility },
      call?: CallOptions,
    ): Promise<PlayerDataRecord> =>
      withConflictCopy(
        () =>
          send(
            {
              method: "put",
              path: "/players/{id}/data/{key}",
              params: { id: "me", key },
              body: opts?.visibility ? { value, visibility: opts.visibility } : { value },
              headers: versionHeaders(opts),
              ...player,
              resendable: unconditional(opts),
            },
            call,
          ),
        () => readData(key, "me", call),
      ),
    delete: (key: string, opts?: { ifVersion?: number }, call?: CallOptions): Promise<void> =>
      withConflictCopy(
        () =>
          send(
            { method: "delete", path: "/players/{id}/data/{key}", params: { id: "me", key }, headers: versionHeaders(opts), ...once },
            call,
          ),
        () => readData(key, "me", call),
      ),
    /** Up to 100 writes and deletes, all or nothing; any version mismatch fails the batch with every conflict listed. */
    batch: (ops: PatchPlayerDataBody, call?: CallOptions): Promise<PlayerDataRecord[]> =>
      withConflictCopy(
        () =>
          send(
            { method: "patch", path: "/players/{id}/data", params: { id: "me" }, body: ops, ...player, resendable: batchResendable(ops) },
            call,
          ),
        async () => null,
      ),
  };

  const readSave = (key: string, call?: CallOptions): Promise<Save> =>
    send({ method: "get", path: "/saves/{key}", params: { key }, ...player }, call);

  const saves = {
    list: (call?: CallOptions): Promise<SaveMetadata[]> => send({ method: "get", path: "/saves", ...player }, call),
    get: readSave,
    /** On a conflict, the VersionConflictError's `current` is the cloud save with its data. */
    put: (
      key: string,
      saveData: JsonValue,
      opts?: WriteOptions & { meta?: Record<string, unknown> },
      call?: CallOptions,
    ): Promise<SaveMetadata> =>
      withConflictCopy(
        () =>
          send(
            {
              method: "put",
              path: "/saves/{key}",
              params: { key },
              body: opts?.meta ? { data: saveData, meta: opts.meta } : { data: saveData },
              headers: versionHeaders(opts),
              ...player,
              resendable: unconditional(opts),
            },
            call,
          ),
        () => readSave(key, call),
      ),
    delete: (key: string, opts?: { ifVersion?: number }, call?: CallOptions): Promise<void> =>
      withConflictCopy(
        () => send({ method: "delete", path: "/saves/{key}", params: { key }, headers: versionHeaders(opts), ...once }, call),
        () => readSave(key, call),
      ),
  };

  const leaderboards = {
    /**
     * Submits once per call: retries reuse the call's Idempotency-Key, so a lost answer never counts
     * twice; pass your own `idempotencyKey` to make it once across calls (see `economy.purchase`).
     */
    submit: (
      boardId: string,
      score: number,
      opts?: { metadata?: Record<string, unknown> },
      call?: IdempotentCallOptions,
    ): Promise<WithIdempotencyKey<SubmitScoreResult>> =>
      send(
        {
          method: "post",
          path: "/leaderboards/{id}/scores",
          params: { id: boardId },
          body: opts?.metadata ? { score, metadata: opts.metadata } : { score },
          ...idempotent,
        },
        call,
      ) as Promise<WithIdempotencyKey<SubmitScoreResult>>,
    page: (boardId: string, opts?: { offset?: number; limit?: number }, call?: CallOptions): Promise<LeaderboardPage> =>
      send({ method: "get", path: "/leaderboards/{id}", params: { id: boardId }, query: opts, auth: "none", resendable: true }, call),
    /** The player's own entry; `range` adds that many neighbours above and below. */
    me: (boardId: string, opts?: { range?: number }, call?: CallOptions): Promise<LeaderboardPlayerEntry> =>
      send({ method: "get", path: "/leaderboards/{id}/player", params: { id: boardId }, query: opts, ...player }, call),
  };

  const change =
    (direction: "add" | "subtract") =>
    (currencyId: string, amount: number, call?: IdempotentCallOptions): Promise<WithIdempotencyKey<CurrencyChange>> =>
      send(
        {
          method: "post",
          path: direction === "add" ? "/economy/currencies/{id}/add" : "/economy/currencies/{id}/subtract",
          params: { id: currencyId },
          body: { amount },
          ...idempotent,
        },
        call,
      ) as Promise<WithIdempotencyKey<CurrencyChange>>;

  const economy = {
    currencies: (call?: CallOptions): Promise<CurrencyBalance[]> => send({ method: "get", path: "/economy/currencies", ...player }, call),
    add: change("add"),
    subtract: change("subtract"),
    /**
     * All costs and rewards in one transaction; spends once per call however often it is retried.
     * Crash-safe: make a key with `newIdempotencyKey()`, keep it with the pending purchase, pass it
     * as `{ idempotencyKey }` (also on the next start, after a crash or a TIMEOUT): the server spends
     * once per key and answers every repeat with the first result. The answer's and the error's
     * `idempotencyKey` is the key sent.
     */
    purchase: (
      purchaseId: string,
      opts?: { quantity?: number },
      call?: IdempotentCallOptions,
    ): Promise<WithIdempotencyKey<PurchaseResult>> =>
      send(
        {
          method: "post",
          path: "/economy/purchase",
          body: opts?.quantity === undefined ? { purchaseId } : { purchaseId, quantity: opts.quantity },
          ...idempotent,
        },
        call,
      ) as Promise<WithIdempotencyKey<PurchaseResult>>,
    /**
     * Redeems a real-money store purchase: the server verifies it with the store and grants the
     * store product's rewards once per store transaction. The receipt is its own idempotency key
     * (the same receipt again answers the first result, `replayed: true`), so a lost answer, a 5xx
     * and 503 STORE_UNAVAILABLE (after its Retry-After) are retried with the same body; a 4xx never.
     *
     * - **App Store (StoreKit 2)**: `Product.purchase()` → `.success(let verification)` →
     *   `{ store: "apple", signedTransaction: verification.jwsRepresentation }` (the
     *   `VerificationResult`'s JWS, verified or not: the server checks it); call
     *   `transaction.finish()` only after this resolves. Unfinished transactions come back in
     *   `Transaction.unfinished` / `Transaction.updates` on the next start: send them again.
     * - **Google Play (Play Billing)**: `BillingClient.launchBillingFlow` → `onPurchasesUpdated` →
     *   `{ store: "google", productId: purchase.getProducts()[0], purchaseToken: purchase.getPurchaseToken() }`.
     *   Don't `consumeAsync` or `acknowledgePurchase` on the device: the server consumes or
     *   acknowledges once it has granted (an unacknowledged purchase is refunded by Google after
     *   three days, so keep sending it until this resolves).
     * - **Steam**: `economy.startSteamOrder(...)` (the server's `ISteamMicroTxn/InitTxn`), Steam's
     *   overlay asks the player, the game gets `MicroTxnAuthorizationResponse_t`; when
     *   `m_bAuthorized`, `{ store: "steam", orderId }` with the order id `startSteamOrder` answered.
     *
     * Rejects with `ReceiptPendingError` (409 RECEIPT_PENDING: not paid yet; send it again later),
     * or a `GameApiError` whose `code` is a `ReceiptErrorCode`: 409 RECEIPT_ALREADY_USED (another
     * player redeemed it), 422 RECEIPT_INVALID, RECEIPT_EXPIRED, RECEIPT_WRONG_APP,
     * RECEIPT_WRONG_ENVIRONMENT, RECEIPT_WRONG_PRODUCT, RECEIPT_CANCELLED, STORE_NOT_CONFIGURED
     * (nothing granted: finish/consume nothing and tell the player), 503 STORE_UNAVAILABLE once the
     * retries are spent (keep the receipt and send it again later).
     */
    validateReceipt: (receipt: Receipt, call?: CallOptions): Promise<ReceiptResult> =>
      send({ method: "post", path: "/economy/receipts", body: receipt, ...player, retryServerErrors: true }, call),
    /**
     * Starts a Steam microtransaction for a store product (ours, e.g. "gems-500") with the player's
     * 64-bit Steam id (`SteamUser()->GetSteamID()`): Steam then shows the overlay. Keep `orderId`
     * for `validateReceipt({ store: "steam", orderId })` once `MicroTxnAuthorizationResponse_t`
     * says authorized. Not resent after a lost answer (each call is a new order at Steam): call it
     * again, an order the player never approves costs nothing.
     */
    startSteamOrder: (input: SteamOrderInput, call?: CallOptions): Promise<SteamOrder> =>
      send({ method: "post", path: "/economy/receipts/steam", body: input, ...once }, call),
    inventory: (call?: CallOptions): Promise<InventoryEntry[]> => send({ method: "get", path: "/economy/inventory", ...player }, call),
    /** The player's ledger, newest first; pass `nextCursor` back as `cursor` for the next page. */
    transactions: (opts?: { cursor?: string; limit?: number }, call?: CallOptions): Promise<EconomyTransactionPage> =>
      send({ method: "get", path: "/economy/transactions", query: opts, ...player }, call),
  };

  /** The config last answered to a player, kept in storage beside the session (`<storageKey>.config`). */
  type Kept = { playerId: string; etag: string | null; config: RemoteConfig };
  let kept: Kept | null = null;

  const config = {
    /**
     * The signed-in player's config, resolved by the server: `values` (key → value, the operators'
     * overrides and experiments applied), `assignments` (experiment id → variant id) and `version`.
     * Cheap to call at every start and on resume: the SDK sends the last answer's ETag and a `304`
     * answers the kept values without a body. The last answer is kept in `storage` (per player), so
     * when the server cannot be reached (a network error, a TIMEOUT, or a 5xx after the retries) this resolves
     * with those values and `stale: true`; with nothing kept it rejects as any call does.
     */
    get: async (call?: CallOptions): Promise<ConfigAnswer> => {
      await t.ready;
      const playerId = t.session?.playerId;
      if (kept?.playerId !== playerId) {
        const stored = await t.kept<Kept>("config");
        kept = stored?.playerId === playerId && stored?.config ? (stored as Kept) : null;
      }
      const known = kept;
      let etag: string | null = null;
      try {
        const fresh: RemoteConfig | undefined = await send(
          {
            method: "get",
            path: "/config",
            headers: known?.etag ? { "If-None-Match": known.etag } : {},
            ...player,
            seen: (response) => {
              etag = response.headers.get("etag");
            },
          },
          call,
        );
        if (fresh && playerId) kept = await t.keep("config", { playerId, etag, config: fresh });
        return { ...(fresh ?? (known as Kept).config), stale: false };
      } catch (error) {
        if (known && error instanceof GameApiError && (error.code === "NETWORK_ERROR" || error.code === "TIMEOUT" || error.status >= 500)) {
          return { ...known.config, stale: true };
        }
        throw error;
      }
    },
    /**
     * One value of the config `get()` answered last (fresh or stale) to the signed-in player, or
     * `fallback` when there is none, the key is unknown, or its value is not of `fallback`'s type:
     * `game.config.value("shop.discount", 0)` is a number whatever the server holds.
     */
    value: <T extends JsonValue>(key: string, fallback: T): ConfigValue<T> => {
      const v = kept?.playerId === t.session?.playerId ? kept?.config.values[key] : undefined;
      return (v != null && typeof v === typeof fallback ? v : fallback) as ConfigValue<T>;
    },
  };

  return {
    /** Resolves once the stored session is restored (at once for synchronous storage such as localStorage). */
    ready: t.ready,
    /** The signed-in player, or null. */
    get session(): Session | null {
      return t.session;
    },
    /** Called with the new session on sign-in, refresh and sign-out (null), also when another tab changes it. */
    onSessionChange: t.onSessionChange,
    auth,
    players,
    data,
    saves,
    leaderboards,
    economy,
    config,
  };
}

export type GameClient = ReturnType<typeof createClient>;
