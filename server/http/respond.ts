import { AppError, toErrorBody } from "../errors";
import { rateLimitHeadersOfRefusal } from "./headers";

/** What a handler returns when 200 with a JSON body is not the whole story. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

export const noContent = (headers?: Record<string, string>) => new Reply(204, null, headers);

export function jsonResponse(status: number, body: unknown, headers: Record<string, string>): Response {
  if (status === 204 || body === null) return new Response(null, { status, headers });
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      ...headers,
    },
  });
}

const DB_UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "57P01",
  "57P03",
  "53300",
  "P1001",
  "P1002",
  "P1017",
]);

function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && DB_UNAVAILABLE_CODES.has(code)) return true;
    const message = (e as { message?: unknown }).message;
    if (
      typeof message === "string" &&
      /timeout exceeded when trying to connect|Connection terminated|DatabaseNotReachable|Can't reach database/i.test(message)
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

/** Any throw becomes the one error shape; unknown errors are logged, never shown. */
export function toAppError(error: unknown, requestId: string): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof RangeError) {
    return new AppError("VALIDATION_ERROR", { message: "The request is too deeply nested.", details: { issues: [] } });
  }
  if (errorCodes(error).some((code) => DB_REFUSED_INPUT_CODES.has(code))) {
    console.warn(`[http] ${requestId} input refused by the database:`, (error as Error).message);
    return new AppError("VALIDATION_ERROR", { message: "The request contains text that cannot be stored.", details: { issues: [] } });
  }
  if (isDatabaseUnavailable(error)) {
    console.error(`[http] ${requestId} database unavailable:`, (error as Error).message);
    return new AppError("SERVICE_UNAVAILABLE", { headers: { "Retry-After": "5" }, details: { retryAfterSeconds: 5 } });
  }
  console.error(`[http] ${requestId} unhandled error:`, error);
  return new AppError("INTERNAL_ERROR");
}

export function errorResponse(error: AppError, headers: Record<string, string>): Response {
  const refusal = error.code === "RATE_LIMITED" ? rateLimitHeadersOfRefusal(error.details) : {};
  return jsonResponse(error.status, toErrorBody(error), { ...headers, ...refusal, ...error.headers });
}
