import { z } from "zod";
import { zLabel } from "../labels";

/**
 * A leaderboard's definition as far as the browser can check it: this module imports nothing but
 * zod (and the zod-only labels module), so the dashboard's forms use it. The service's schemas (`schemas.ts`) are built from the
 * same pieces and add the one check that needs a library: parsing a cron expression.
 */
export const MAX_SAFE_SCORE = Number.MAX_SAFE_INTEGER;

export const ZLeaderboardId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "Leaderboard ids are 1–64 of a-z, 0-9, _ and -, starting with a letter or digit.")
  .meta({ description: "A slug: 1–64 of `a-z 0-9 _ -`.", example: "high-scores" });

export const ZSortOrder = z.enum(["desc", "asc"]).meta({ description: "desc: higher is better. asc: lower is better (times)." });
export const ZOperator = z.enum(["best", "latest", "increment", "decrement"]).meta({
  description:
    "best: keep the better of the stored and submitted score. latest: keep the submitted score. " +
    "increment / decrement: add / subtract the submitted value.",
});

export const ZScore = z
  .number()
  .refine((n) => Number.isFinite(n) && Math.abs(n) <= MAX_SAFE_SCORE, `Scores are finite numbers within ±${MAX_SAFE_SCORE}.`);

export const ZBoardName = zLabel(100);

export const NAMED_SCHEDULES = ["daily", "weekly", "monthly"] as const;

/** A schedule is a named one or has 5 fields; returns why not, or null (the service then parses the cron expression). */
export function scheduleShapeProblem(text: string): string | null {
  if ((NAMED_SCHEDULES as ReadonlyArray<string>).includes(text)) return null;
  if (text.trim().split(/\s+/).length !== 5) return "Use daily, weekly, monthly or a 5-field cron expression (UTC).";
  return null;
}

export function boundsInOrder(d: { minScore?: number | null; maxScore?: number | null }, ctx: z.RefinementCtx): void {
  if (d.minScore != null && d.maxScore != null && d.minScore > d.maxScore) {
    ctx.addIssue({ code: "custom", path: ["maxScore"], message: "maxScore must not be below minScore." });
  }
}

const ZScheduleShape = z.string().superRefine((text, ctx) => {
  const problem = scheduleShapeProblem(text);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

const browserFields = {
  name: ZBoardName,
  minScore: ZScore.nullable().optional(),
  maxScore: ZScore.nullable().optional(),
  resetSchedule: ZScheduleShape.nullable().optional(),
  clientWritable: z.boolean().optional(),
};

/** `ZCreateLeaderboard` without the cron parse (the dashboard's create form). */
export const ZNewBoard = z
  .strictObject({ id: ZLeaderboardId, sortOrder: ZSortOrder, operator: ZOperator, ...browserFields })
  .superRefine(boundsInOrder);
/** `ZUpdateLeaderboard` without the cron parse (the dashboard's edit form). */
export const ZBoardPatch = z.strictObject({ ...browserFields, name: ZBoardName.optional() }).superRefine(boundsInOrder);

/** An operator's score correction: the new score and why (kept in the audit log). */
export const ZScoreCorrection = z.strictObject({
  score: ZScore,
  reason: z.string().trim().min(1, "Give a reason (kept in the audit log).").max(500, "Keep the reason under 500 characters."),
});
export type ScoreCorrection = z.input<typeof ZScoreCorrection>;
