import type { z } from "zod";
import { AppError } from "../errors";

export const MAX_BODY_BYTES = 2 * 1024 * 1024;

function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const type = value.split(";")[0]?.trim().toLowerCase();
  return type === "application/json" || (type?.startsWith("application/") === true && type.endsWith("+json"));
}

/** Reads the body while counting bytes: an oversized body is refused before it is buffered. */
async function readText(req: Request, limitBytes: number): Promise<string> {
  const declared = req.headers.get("content-length");
  if (declared && Number(declared) > limitBytes) throw tooLarge(limitBytes);
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(clientWentAway);
    if (done) break;
    received += value.byteLength;
    if (received > limitBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limitBytes);
    }
    chunks.push(value);
  }
  try {
    return UTF8.decode(Buffer.concat(chunks, received));
  } catch {
    // Buffer#toString would turn invalid bytes into U+FFFD and store them silently.
    throw new AppError("INVALID_JSON", { message: "The request body is not valid UTF-8." });
  }
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The socket closed mid-body: the client's doing, not a server fault (no 503, no alarm). */
function clientWentAway(cause: unknown): never {
  console.info("[http] client closed the connection before the body was complete");
  throw new AppError("CLIENT_CLOSED_REQUEST", { cause });
}

function tooLarge(limitBytes: number): AppError {
  return new AppError("PAYLOAD_TOO_LARGE", { details: { limitBytes } });
}

export type ValidationIssue = { path: string; message: string };

export function validationError(issues: ValidationIssue[]): AppError {
  return new AppError("VALIDATION_ERROR", { details: { issues } });
}

/** Deeper JSON than this is refused before validation (recursive validators would overflow the stack). */
export const MAX_JSON_DEPTH = 64;

/**
 * Walks parsed JSON without recursion and refuses what the database or JavaScript objects
 * cannot hold faithfully: nesting deeper than MAX_JSON_DEPTH, strings (values or keys) with
 * U+0000 or unpaired surrogates (Postgres text and jsonb reject them), and `__proto__` keys
 * (object assignment would drop them silently).
 */
export function checkJsonShape(root: unknown, prefix = "body"): void {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: prefix, depth: 0 }];
  while (stack.length) {
    const item = stack.pop();
    if (!item) break;
    const { value, path, depth } = item;
    if (typeof value === "string") {
      if (!isStorableText(value)) throw validationError([{ path, message: "Strings may not contain U+0000 or unpaired surrogates." }]);
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (depth >= MAX_JSON_DEPTH) throw validationError([{ path, message: `JSON may nest at most ${MAX_JSON_DEPTH} levels.` }]);
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    for (const [key, child] of entries) {
      if (!Array.isArray(value) && (key === "__proto__" || !isStorableText(key))) {
        throw validationError([{ path: `${path}.${key}`, message: "This object key is not allowed." }]);
      }
      stack.push({ value: child, path: `${path}.${key}`, depth: depth + 1 });
    }
  }
}

export function isStorableText(text: string): boolean {
  return text.isWellFormed() && !text.includes("\u0000");
}

export function parseWith<T extends z.ZodType>(schema: T, value: unknown, prefix?: string): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationError(
    result.error.issues.map((issue) => ({
      path: [prefix, ...issue.path.map(String)].filter(Boolean).join("."),
      message: issue.message,
    })),
  );
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
