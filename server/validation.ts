import type { z } from "zod";
import { AppError } from "./errors";

/**
 * Input validation shared by every transport (the REST edge, tRPC procedures): the same
 * refusals — unknown fields (strict schemas), U+0000, unpaired surrogates, `__proto__` keys,
 * deep nesting — with the same error (400 VALIDATION_ERROR, `details.issues`).
 */
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
