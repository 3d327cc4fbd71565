import { type AppError, toErrorBody } from "../errors";
import { rateLimitHeadersOfRefusal } from "./headers";

/** What a handler returns when 200 with a JSON body is not the whole story. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** A JSON body already serialised (a cached answer): sent as it is, not stringified again. */
export class JsonText {
  constructor(readonly text: string) {}
}

export const noContent = (headers?: Record<string, string>) => new Reply(204, null, headers);
/** 202 `{}`: accepted, the work (an e-mail) happens after the answer. */
export const accepted = () => new Reply(202, {});

export function jsonResponse(status: number, body: unknown, headers: Record<string, string>): Response {
  if (status === 204 || body === null) return new Response(null, { status, headers });
  return new Response(body instanceof JsonText ? body.text : JSON.stringify(body), {
    status,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      ...headers,
    },
  });
}

export function errorResponse(error: AppError, headers: Record<string, string>): Response {
  const refusal = error.code === "RATE_LIMITED" ? rateLimitHeadersOfRefusal(error.details) : {};
  return jsonResponse(error.status, toErrorBody(error), { ...headers, ...refusal, ...error.headers });
}
