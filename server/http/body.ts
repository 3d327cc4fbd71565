import { NextRequest } from "next/server";
import type { z } from "zod";
import { AppError } from "../errors";
import { logger } from "../log";
import { checkJsonShape, parseWith } from "../validation";
import { requestIdFrom } from "./headers";
import { errorResponse } from "./respond";

export const MAX_BODY_BYTES = 2 * 1024 * 1024;

function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const type = value.split(";")[0]?.trim().toLowerCase();
  return type === "application/json" || (type?.startsWith("application/") === true && type.endsWith("+json"));
}

/** Reads the body while counting bytes: an oversized body is refused before it is buffered. */
async function readText(req: Request, limitBytes: number): Promise<string> {
  const declared = Number(req.headers.get("content-length") ?? 0);
  if (declared > limitBytes) throw await tooLarge(req.body?.getReader() ?? null, limitBytes, declared);
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(clientWentAway);
    if (done) break;
    received += value.byteLength;
    if (received > limitBytes) throw await tooLarge(reader, limitBytes);
    chunks.push(value);
  }
  try {
    return UTF8.decode(Buffer.concat(chunks, received));
  } catch {
    // Buffer#toString would turn invalid bytes into U+FFFD and store them silently.
    throw new AppError("INVALID_JSON", { message: "The request body is not valid UTF-8." });
  }
}

/**
 * The rest of a refused body is read and dropped (never kept) up to this much and this long, so
 * the client, still sending, gets its 413 on a connection that stays usable. A longer or slower
 * body gets `Connection: close` instead (RFC 9112 §9.6): a kept-alive connection with an unread
 * body on it would stall the client's next request.
 */
const DISCARD_LIMIT_BYTES = 16 * 1024 * 1024;
// 10 s, not 2: on a busy machine draining 2 MiB over loopback once took longer than 2 s, and a
// connection closed with the body unread is reset, which can discard the 413 before the client
// reads it (seen as "closed without an answer" in the abuse suite under load).
const DISCARD_LIMIT_MS = 10_000;

async function tooLarge(reader: ReadableStreamDefaultReader<Uint8Array> | null, limitBytes: number, declaredBytes = 0): Promise<AppError> {
  const drained = reader === null || (declaredBytes <= DISCARD_LIMIT_BYTES && (await discardRest(reader)));
  if (!drained) await reader?.cancel().catch(() => undefined);
  return new AppError("PAYLOAD_TOO_LARGE", { details: { limitBytes }, headers: drained ? {} : { Connection: "close" } });
}

/** Reads to the end of the body, dropping every chunk: true when it ended within the limits. */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), DISCARD_LIMIT_MS);
  });
  try {
    let discarded = 0;
    for (;;) {
      const next = await Promise.race([reader.read(), late]).catch(() => "gone" as const);
      if (next === "late" || next === "gone") return false;
      if (next.done) return true;
      discarded += next.value.byteLength;
      if (discarded > DISCARD_LIMIT_BYTES) return false;
    }
  } finally {
    clearTimeout(timer);
  }
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The socket closed mid-body: the client's doing, not a server fault (no 503, no alarm). */
function clientWentAway(cause: unknown): never {
  logger("http").info("client closed the connection before the body was complete");
  throw new AppError("CLIENT_CLOSED_REQUEST", { cause });
}

/**
 * The same request with its body read under `limitBytes` while streaming, for handlers that read
 * bodies themselves (tRPC, next-auth): an oversized body is refused before it is buffered or
 * parsed. A NextRequest, because next-auth reads `nextUrl`; a refusal (413, a client gone) is
 * the error-shaped Response to answer with.
 */
export async function boundedRequest(req: Request, limitBytes: number): Promise<NextRequest | Response> {
  // From its parts, not `new NextRequest(req)`: on Node 24 the incoming request is not of the
  // runtime's own Request class, and copying it threw "Cannot read private member #state" (a 500
  // on every GET of next-auth and tRPC).
  if (req.method === "GET" || req.method === "HEAD")
    return new NextRequest(req.url, { method: req.method, headers: req.headers, signal: req.signal });
  try {
    const body = await readText(req, limitBytes);
    return new NextRequest(req.url, { method: req.method, headers: req.headers, body });
  } catch (error) {
    if (error instanceof AppError) return errorResponse(error, { "X-Request-Id": requestIdFrom(req) });
    throw error;
  }
}

/**
 * The body step of the request path: content type, size while streaming, JSON parse, schema.
 * An empty body parses as `undefined`, so a schema may make the body optional.
 */
export async function readJsonBody<T extends z.ZodType>(req: Request, schema: T, limitBytes = MAX_BODY_BYTES): Promise<z.output<T>> {
  const contentType = req.headers.get("content-type");
  if (contentType && !isJsonContentType(contentType)) throw new AppError("UNSUPPORTED_MEDIA_TYPE");
  const text = await readText(req, limitBytes);
  if (text.trim() === "") return parseWith(schema, undefined, "body");
  if (!contentType) throw new AppError("UNSUPPORTED_MEDIA_TYPE");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AppError("INVALID_JSON");
  }
  checkJsonShape(parsed);
  return parseWith(schema, parsed, "body");
}
