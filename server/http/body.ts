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
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > limitBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limitBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, received).toString("utf8");
}

function tooLarge(limitBytes: number): AppError {
  return new AppError("PAYLOAD_TOO_LARGE", { details: { limitBytes } });
}

export type ValidationIssue = { path: string; message: string };

export function validationError(issues: ValidationIssue[]): AppError {
  return new AppError("VALIDATION_ERROR", { details: { issues } });
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
  return parseWith(schema, parsed, "body");
}
