import { AppError } from "./errors";
import { logger } from "./log";
import { countQueryError } from "./metrics";

/**
 * Any throw becomes an AppError, whatever the transport (REST here, tRPC procedures next):
 * database outages and transactions Postgres rolled back for a deadlock or a serialization
 * conflict become 503 (retry), text Postgres cannot store becomes 400, anything else is logged
 * and becomes a 500 that carries no internal detail.
 */
const DB_UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "57P01",
  "57P03",
  // A deadlock or serialization failure rolled the transaction back whole: nothing was changed
  // and the same request succeeds when sent again (Prisma's P2034 is the same refusal).
  "40P01",
  "40001",
  "P2034",
  // A statement or lock wait over its bound (a config import sets them): rolled back, nothing changed.
  "57014",
  "55P03",
  "53300",
  "P1001",
  "P1002",
  "P1017",
]);

/** The next error down: its `cause`, or the driver adapter's error a Prisma error carries in `meta`. */
function inner(e: unknown): unknown {
  const cause = (e as { cause?: unknown }).cause;
  if (cause) return cause;
  return (e as { meta?: { driverAdapterError?: unknown } }).meta?.driverAdapterError;
}

function isDatabaseUnavailable(error: unknown): boolean {
  // Prisma reports a refused query as P2039 with the Postgres code (57P03: starting up or
  // shutting down) on meta.driverAdapterError.cause, not on its own cause chain.
  for (let e: unknown = error, depth = 0; e && depth < 5; e = inner(e), depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && DB_UNAVAILABLE_CODES.has(code)) return true;
    const message = (e as { message?: unknown }).message;
    if (
      typeof message === "string" &&
      /timeout exceeded when trying to connect|Connection terminated|DatabaseNotReachable|Can't reach database|the database system is (starting up|shutting down)/i.test(
        message,
      )
    )
      return true;
  }
  return false;
}

/** Postgres refused the text itself: NUL bytes, unpaired surrogates, malformed input syntax. */
const DB_REFUSED_INPUT_CODES = new Set(["22P05", "22021", "22P02", "54000"]);

function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    for (const field of ["code", "originalCode"]) {
      const code = (e as Record<string, unknown>)[field];
      if (typeof code === "string") codes.push(code);
    }
  }
  return codes;
}

/**
 * A row written for a player whose deletion committed while the write waited for the player's
 * key-share lock: the foreign key to players refused it (23503 on a `*_player_id_fkey`). The
 * write changed nothing; the player is gone.
 */
function isDeletedPlayerReference(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = inner(e), depth++) {
    const { code, constraint } = e as { code?: unknown; constraint?: unknown };
    if (code === "23503" && typeof constraint === "string" && constraint.endsWith("_player_id_fkey")) return true;
  }
  return false;
}

/** Any throw becomes the one error shape; unknown errors are logged, never shown. */
export function toAppError(error: unknown, requestId: string): AppError {
  if (error instanceof AppError) return error;
  // A SQLSTATE or Prisma code, or no connection at all: a database error, counted by class.
  const dbCode = errorCodes(error).find((c) => /^([0-9A-Z]{5}|P\d{4})$/.test(c));
  if (dbCode || isDatabaseUnavailable(error)) countQueryError(dbCode);
  if (error instanceof RangeError) {
    return new AppError("VALIDATION_ERROR", { message: "The request is too deeply nested.", details: { issues: [] } });
  }
  if (errorCodes(error).some((code) => DB_REFUSED_INPUT_CODES.has(code))) {
    logger("http").warn({ requestId, reason: (error as Error).message }, "input refused by the database");
    return new AppError("VALIDATION_ERROR", { message: "The request contains text that cannot be stored.", details: { issues: [] } });
  }
  if (isDeletedPlayerReference(error)) {
    return new AppError("PLAYER_NOT_FOUND", { message: "The player was deleted." });
  }
  if (isDatabaseUnavailable(error)) {
    logger("http").error({ requestId, reason: (error as Error).message }, "database unavailable");
    return new AppError("SERVICE_UNAVAILABLE", { headers: { "Retry-After": "5" }, details: { retryAfterSeconds: 5 } });
  }
  logger("http").error({ requestId, err: error }, "unhandled error");
  return new AppError("INTERNAL_ERROR");
}
