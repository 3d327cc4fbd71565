import { z } from "zod";
import { plainly, plainParsed } from "./plain-issues";

type Problem = { path: PropertyKey[]; message: string };

/**
 * A form checked with a service's schema in one pass: `fields` only shapes what the inputs hold
 * (text, never failing), `toInput` turns it into what the service takes, and `schema` — the
 * service's own, from a client-safe module — checks that. Each issue lands on the form field of
 * the same name (`rename` for the few the form calls otherwise), so every error shows at once.
 * `check` adds the form's own problems (an amount that is not a number); the service's issues
 * under the same top-level field are then left out, so a line is not reported twice.
 */
export function checkedWith<F extends z.ZodType, S extends z.ZodType>(
  fields: F,
  toInput: (value: z.output<F>) => z.input<S>,
  schema: S,
  options: { rename?: Record<string, string>; check?: (value: z.output<F>) => Problem[] } = {},
) {
  return fields.transform((value, ctx): z.output<S> => {
    const own = options.check?.(value) ?? [];
    const flagged = new Set(own.map((p) => p.path[0]));
    for (const p of own) ctx.addIssue({ code: "custom", path: p.path, message: p.message });
    const parsed = schema.safeParse(toInput(value), plainly);
    if (parsed.success && own.length === 0) return parsed.data;
    for (const issue of parsed.error?.issues ?? []) {
      if (flagged.has(issue.path[0])) continue;
      const path = issue.path.map((segment) => (typeof segment === "string" ? (options.rename?.[segment] ?? segment) : segment));
      ctx.addIssue({ code: "custom", path, message: plainParsed(issue) });
    }
    return z.NEVER;
  });
}
