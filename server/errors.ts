import type { TRPCError } from "@trpc/server";

/** tRPC's own list of codes: a typo or a code tRPC does not have fails the typecheck. */
type TrpcCode = TRPCError["code"];

/**
 * The one error table: code → HTTP status → tRPC code → default message.
 * REST (server/http), tRPC and the OpenAPI document all read it.
 */
export const ERRORS = {
  INVALID_JSON: { status: 400, trpc: "PARSE_ERROR", message: "The request body is not valid JSON." },
  VALIDATION_ERROR: { status: 400, trpc: "BAD_REQUEST", message: "The request is invalid." },
  UNKNOWN_PROVIDER: { status: 400, trpc: "BAD_REQUEST", message: "Unknown identity provider." },
  CANNOT_REPORT_SELF: { status: 400, trpc: "BAD_REQUEST", message: "A player cannot report themselves." },
  MISSING_API_KEY: { status: 401, trpc: "UNAUTHORIZED", message: "The X-API-Key header is required." },
  INVALID_API_KEY: { status: 401, trpc: "UNAUTHORIZED", message: "The API key is unknown or revoked." },
  MISSING_TOKEN: { status: 401, trpc: "UNAUTHORIZED", message: "A bearer access token is required." },
  INVALID_TOKEN: { status: 401, trpc: "UNAUTHORIZED", message: "The access token is not valid." },
  INVALID_CREDENTIALS: { status: 401, trpc: "UNAUTHORIZED", message: "E-mail or password is wrong." },
  INVALID_IDP_TOKEN: { status: 401, trpc: "UNAUTHORIZED", message: "The identity provider token is not valid." },
  INVALID_CODE: { status: 401, trpc: "UNAUTHORIZED", message: "The code is wrong, expired or already used." },
  FORBIDDEN: { status: 403, trpc: "FORBIDDEN", message: "You may not do this." },
  CLIENT_WRITE_FORBIDDEN: { status: 403, trpc: "FORBIDDEN", message: "Only a server key may write this." },
  PLAYER_BANNED: { status: 403, trpc: "FORBIDDEN", message: "This player is banned." },
  EMAIL_NOT_VERIFIED: { status: 403, trpc: "FORBIDDEN", message: "Confirm your e-mail address before signing in with it." },
  NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "Not found." },
  PLAYER_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "Player not found." },
  KEY_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "Key not found." },
  SAVE_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "Save not found." },
  LEADERBOARD_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "Leaderboard not found." },
  ENTRY_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "Leaderboard entry not found." },
  CURRENCY_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "Currency not found." },
  ITEM_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "Item not found." },
  PURCHASE_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "Purchase not found." },
  METHOD_NOT_ALLOWED: { status: 405, trpc: "METHOD_NOT_SUPPORTED", message: "Method not allowed." },
  REQUEST_TIMEOUT: { status: 408, trpc: "TIMEOUT", message: "The request was not received in time." },
  EMAIL_TAKEN: { status: 409, trpc: "CONFLICT", message: "This e-mail is already registered." },
  ACCOUNT_ALREADY_LINKED: { status: 409, trpc: "CONFLICT", message: "This account is already linked." },
  INSUFFICIENT_FUNDS: { status: 409, trpc: "CONFLICT", message: "Insufficient funds." },
  INSUFFICIENT_ITEMS: { status: 409, trpc: "CONFLICT", message: "Insufficient items." },
  CURRENCY_MAX_EXCEEDED: { status: 409, trpc: "CONFLICT", message: "The balance would exceed the maximum." },
  /** An addition to the contract's table: an item's max stack, like CURRENCY_MAX_EXCEEDED. */
  ITEM_MAX_EXCEEDED: { status: 409, trpc: "CONFLICT", message: "The quantity would exceed the item's maximum stack." },
  /** Operator actions: a definition players hold or another definition refers to cannot be deleted. */
  IN_USE: { status: 409, trpc: "CONFLICT", message: "This is in use and cannot be deleted." },
  /** Operator actions: a definition (leaderboard, currency…) with this id exists. */
  ALREADY_EXISTS: { status: 409, trpc: "CONFLICT", message: "Something with this id already exists." },
  /** Remote config: a started experiment's variants, weights and audience are fixed; status goes draft → running → stopped. */
  EXPERIMENT_LOCKED: {
    status: 409,
    trpc: "CONFLICT",
    message: "The experiment has started: its variants, weights and audience are fixed.",
  },
  RECEIPT_PENDING: { status: 409, trpc: "CONFLICT", message: "The purchase is not paid yet; send the receipt again once it is." },
  RECEIPT_ALREADY_USED: { status: 409, trpc: "CONFLICT", message: "This receipt was already redeemed by another player." },
  /** A limited-time board refuses scores before its startsAt and from its endsAt (the message names the window). */
  LEADERBOARD_NOT_OPEN: { status: 409, trpc: "CONFLICT", message: "The leaderboard does not accept scores now." },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, trpc: "CONFLICT", message: "A request with this Idempotency-Key is still running." },
  VERSION_CONFLICT: { status: 412, trpc: "PRECONDITION_FAILED", message: "The stored version does not match." },
  PAYLOAD_TOO_LARGE: { status: 413, trpc: "PAYLOAD_TOO_LARGE", message: "The request body is too large." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, trpc: "UNSUPPORTED_MEDIA_TYPE", message: "Send Content-Type: application/json." },
  LIMIT_EXCEEDED: { status: 422, trpc: "UNPROCESSABLE_CONTENT", message: "A limit was exceeded." },
  SCORE_OUT_OF_RANGE: { status: 422, trpc: "UNPROCESSABLE_CONTENT", message: "The score is outside the leaderboard's bounds." },
  /** Store receipts (server/stores/types.ts RECEIPT_REFUSALS): nothing is granted for any of these. */
  RECEIPT_INVALID: { status: 422, trpc: "UNPROCESSABLE_CONTENT", message: "The receipt is malformed or its signature does not verify." },
  RECEIPT_EXPIRED: { status: 422, trpc: "UNPROCESSABLE_CONTENT", message: "The receipt was signed with an expired certificate." },
  RECEIPT_WRONG_APP: { status: 422, trpc: "UNPROCESSABLE_CONTENT", message: "The receipt belongs to another app." },
  RECEIPT_WRONG_ENVIRONMENT: {
    status: 422,
    trpc: "UNPROCESSABLE_CONTENT",
    message: "The receipt is from a store environment this project does not accept.",
  },
  RECEIPT_WRONG_PRODUCT: {
    status: 422,
    trpc: "UNPROCESSABLE_CONTENT",
    message: "The receipt is for a product this project does not sell.",
  },
  RECEIPT_CANCELLED: { status: 422, trpc: "UNPROCESSABLE_CONTENT", message: "The store cancelled, refunded or revoked this purchase." },
  STORE_NOT_CONFIGURED: { status: 422, trpc: "UNPROCESSABLE_CONTENT", message: "This project has no credentials for this store." },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    trpc: "UNPROCESSABLE_CONTENT",
    message: "This Idempotency-Key was used with another request body.",
  },
  RATE_LIMITED: { status: 429, trpc: "TOO_MANY_REQUESTS", message: "Too many requests." },
  REQUEST_HEADER_FIELDS_TOO_LARGE: { status: 431, trpc: "BAD_REQUEST", message: "The request headers are too large." },
  /** The client went away mid-request; logged as such, the answer reaches nobody. */
  CLIENT_CLOSED_REQUEST: { status: 499, trpc: "CLIENT_CLOSED_REQUEST", message: "The client closed the connection." },
  INTERNAL_ERROR: { status: 500, trpc: "INTERNAL_SERVER_ERROR", message: "Something went wrong on our side." },
  STORE_UNAVAILABLE: { status: 503, trpc: "SERVICE_UNAVAILABLE", message: "The store did not answer; try again later." },
  SERVICE_UNAVAILABLE: { status: 503, trpc: "SERVICE_UNAVAILABLE", message: "The service is temporarily unavailable." },
} as const satisfies Record<string, { status: number; trpc: TrpcCode; message: string }>;

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

export type ErrorDetails = Record<string, unknown>;

/**
 * The table's message, except for a validation error that lists its issues: then the first
 * issue, so that a developer reading only `error.message` (a log line, an SDK exception) learns
 * what is wrong — "body.quantity: Invalid input: expected number, received string".
 */
function defaultMessage(code: ErrorCode, details: ErrorDetails | undefined): string {
  const issues = details?.issues;
  if (code !== "VALIDATION_ERROR" || !Array.isArray(issues) || issues.length === 0) return ERRORS[code].message;
  const first = issues[0] as { path?: unknown; message?: unknown };
  if (typeof first.message !== "string" || first.message === "") return ERRORS[code].message;
  const where = typeof first.path === "string" && first.path !== "" ? `${first.path}: ` : "";
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more in details.issues)` : "";
  return `${where}${first.message}${more}`;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  /** Extra response headers (Retry-After, Allow, ETag…). */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    options: { message?: string; details?: ErrorDetails; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    // A 4xx is an answer, not a fault: its stack trace would never be read, and capturing one
    // under Next's deep async stacks was the largest cost of our own in a 405's or a 429's
    // profile (a refused flood makes one per request). 5xx errors keep theirs.
    const limit = Error.stackTraceLimit;
    if (ERRORS[code].status < 500) Error.stackTraceLimit = 0;
    try {
      super(options.message ?? defaultMessage(code, options.details), { cause: options.cause });
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = "AppError";
    this.code = code;
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return ERRORS[this.code].status;
  }
}

export type ErrorBody = { error: { code: ErrorCode; message: string; details: ErrorDetails } };

/** What a client sees. 5xx never carry the internal message. */
export function toErrorBody(error: AppError): ErrorBody {
  const message = error.status >= 500 ? ERRORS[error.code].message : error.message;
  return { error: { code: error.code, message, details: error.details } };
}
