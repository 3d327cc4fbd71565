import type { ApiErrorCode, PlayerDataRecord, Save } from "./types.js";

/**
 * Codes the SDK itself produces: the server could not be reached (after the retries), it
 * answered something that is not the contract's JSON (a proxy's HTML page, say), the call's
 * AbortSignal fired (`cause` is the signal's reason), or the call's deadline (`deadlineMs`)
 * passed before an answer (`details.deadlineMs`).
 */
export type ClientErrorCode = "NETWORK_ERROR" | "UNEXPECTED_RESPONSE" | "ABORTED" | "TIMEOUT";
export type ErrorCode = ApiErrorCode | ClientErrorCode;

export type ErrorInit = {
  status: number;
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  requestId?: string | null;
  retryAfterSeconds?: number | null;
  idempotencyKey?: string | null;
  cause?: unknown;
};

/** Every failed call rejects with this (or a subclass): branch on `code`, never on `message`. */
export class GameApiError extends Error {
  override readonly name: string = "GameApiError";
  /** HTTP status; 0 when no answer arrived (NETWORK_ERROR). */
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  /** The server's X-Request-Id: quote it in bug reports, it finds the server's log line. */
  readonly requestId: string | null;
  /** From Retry-After on 429 and 503. */
  readonly retryAfterSeconds: number | null;
  /**
   * The Idempotency-Key the call sent (`leaderboards.submit`, `economy.add` / `subtract` /
   * `purchase`); null for other calls. Whether or not the change happened (a lost answer, a
   * timeout), calling again with `{ idempotencyKey }` set to it applies it at most once.
   */
  readonly idempotencyKey: string | null;

  constructor(init: ErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? {};
    this.requestId = init.requestId ?? null;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.idempotencyKey = init.idempotencyKey ?? null;
  }
}

export type VersionConflict = { key: string; expectedVersion: number | null; currentVersion: number | null };

/** What a version conflict's `current` can be: a save with its data, or a data record. */
export type ConflictCopy = Save | PlayerDataRecord;

/**
 * 412 VERSION_CONFLICT: someone else wrote first. `current` is the server's copy, fetched by the
 * SDK (a save with its data from `saves.*`, a data record from `data.*`; null when it no longer
 * exists), so the game can offer "keep cloud" (use `current`) or "keep local" (write again with
 * `ifVersion: current.version`). Not generic, so `instanceof` gives a typed `current`; narrow it
 * with `SaveConflictError` / `DataConflictError`.
 */
export class VersionConflictError extends GameApiError {
  override readonly name: string = "VersionConflictError";
  readonly conflicts: VersionConflict[];
  /** The server's copy; null when it no longer exists (and after `data.batch`); undefined when the SDK could not read it. */
  readonly current: ConflictCopy | null | undefined;

  constructor(init: ErrorInit, current: ConflictCopy | null | undefined) {
    super(init);
    this.conflicts = Array.isArray(init.details?.conflicts) ? (init.details.conflicts as VersionConflict[]) : [];
    this.current = current;
  }
}

/**
 * The session cannot be used any more: its refresh token was refused (revoked by logout elsewhere,
 * reuse detection, an operator, or 30 days old). The stored session is already cleared and
 * `onSessionChange` listeners got `null`: show sign-in.
 */
export class SessionEndedError extends GameApiError {
  override readonly name: string = "SessionEndedError";
}

/** The codes `economy.validateReceipt` and `economy.startSteamOrder` add to the common ones. */
export type ReceiptErrorCode = Extract<
  ApiErrorCode,
  | "RECEIPT_INVALID"
  | "RECEIPT_EXPIRED"
  | "RECEIPT_WRONG_APP"
  | "RECEIPT_WRONG_ENVIRONMENT"
  | "RECEIPT_WRONG_PRODUCT"
  | "RECEIPT_CANCELLED"
  | "RECEIPT_PENDING"
  | "RECEIPT_ALREADY_USED"
  | "STORE_NOT_CONFIGURED"
  | "STORE_UNAVAILABLE"
>;

/** The codes `players.report` adds to the common ones. */
export type ReportErrorCode = Extract<ApiErrorCode, "CANNOT_REPORT_SELF" | "PLAYER_NOT_FOUND" | "RATE_LIMITED" | "VALIDATION_ERROR">;

/**
 * 409 RECEIPT_PENDING: the store has not been paid yet (Google Play's "pending" purchases, paid
 * later in cash or by a parent's approval). Nothing was granted. Show "waiting for payment", keep
 * the receipt, and send the same receipt again later (on the next start, or when Play Billing
 * reports the purchase as PURCHASED): the server grants it once then.
 */
export class ReceiptPendingError extends GameApiError {
  override readonly name: string = "ReceiptPendingError";
}

/** Reads the contract's error body; anything else becomes UNEXPECTED_RESPONSE. */
export function errorFromResponse(status: number, body: unknown, headers: Headers): GameApiError {
  const error = isRecord(body) && isRecord(body.error) ? body.error : null;
  const retryAfter = Number(headers.get("retry-after"));
  const init: ErrorInit = {
    status,
    code: error && typeof error.code === "string" ? (error.code as ErrorCode) : "UNEXPECTED_RESPONSE",
    message: error && typeof error.message === "string" ? error.message : `Unexpected answer (HTTP ${status})`,
    details: error && isRecord(error.details) ? error.details : {},
    requestId: headers.get("x-request-id"),
    retryAfterSeconds: Number.isFinite(retryAfter) && headers.has("retry-after") ? retryAfter : null,
  };
  return init.code === "RECEIPT_PENDING" ? new ReceiptPendingError(init) : new GameApiError(init);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What `saves.put` and `saves.delete` reject with on a 412: `current` is the cloud save, data included. */
export type SaveConflictError = VersionConflictError & { readonly current: Save | null | undefined };
/** What `data.set` and `data.delete` reject with on a 412: `current` is the stored record. */
export type DataConflictError = VersionConflictError & { readonly current: PlayerDataRecord | null | undefined };
