import type { z } from "zod";
import { AppError } from "../errors";
import { checkJsonShape, parseWith } from "../validation";

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
