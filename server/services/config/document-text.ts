import { z } from "zod";

/**
 * The dashboard's import form: a configuration document as pasted or uploaded text. Only checks
 * that it is a JSON object (the dry run checks the document itself with the service's schema).
 * Client-safe: imports nothing but zod.
 */
export const ZConfigDocumentText = z.object({
  text: z
    .string()
    .trim()
    .min(1, "Paste or upload a configuration document.")
    .transform((text, ctx): Record<string, unknown> => {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: `Not JSON: ${(error as Error).message}` });
        return z.NEVER;
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        ctx.addIssue({ code: "custom", message: 'A configuration document is a JSON object ({"version": 1, …}).' });
        return z.NEVER;
      }
      return value as Record<string, unknown>;
    }),
});
