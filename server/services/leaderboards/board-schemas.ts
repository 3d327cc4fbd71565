import { z } from "zod";
import { MAX_AMOUNT, MAX_LINES, ZEconomyId } from "../economy/schemas";
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

/**
 * A board's rewards, paid when a period closes: tiers listed best first, each a rank range and
 * what it grants. A tier is `{rank: 1}`, `{fromRank: 2, toRank: 3}` or `{topPercent: 10}`; rank
 * tiers come first, in order and without overlapping; percent tiers follow with growing
 * percents, each covering the ranks after the previous tier up to ⌈percent × entries / 100⌉ (so
 * `1, 2–3, 4–10, top 10 %` pays ranks 11–1,000 of 10,000 entries from the last tier; with 50
 * entries its top 10 % is ranks 1–5, already paid above, and that tier pays no one).
 */
export const MAX_REWARD_TIERS = 20;
export const MAX_REWARD_RANK = 1_000_000;
const ZRank = z.number().int().min(1).max(MAX_REWARD_RANK);
export const ZRewardCurrency = z.strictObject({ id: ZEconomyId, amount: z.number().int().min(1).max(MAX_AMOUNT) });
export const ZRewardItem = z.strictObject({ id: ZEconomyId, quantity: z.number().int().min(1).max(MAX_AMOUNT) });

export const ZRewardTier = z
  .strictObject({
    rank: ZRank.optional().meta({ description: "Exactly this rank." }),
    fromRank: ZRank.optional().meta({ description: "With toRank: ranks fromRank–toRank." }),
    toRank: ZRank.optional(),
    topPercent: z
      .number()
      .gt(0, "topPercent must be above 0.")
      .max(100, "topPercent must be at most 100.")
      .optional()
      .meta({ description: "The ranks after the previous tier up to ⌈topPercent × entries / 100⌉." }),
    currencies: z.array(ZRewardCurrency).max(MAX_LINES).default([]),
    items: z.array(ZRewardItem).max(MAX_LINES).default([]),
  })
  .superRefine((t, ctx) => {
    const forms = [t.rank !== undefined, t.fromRank !== undefined || t.toRank !== undefined, t.topPercent !== undefined];
    if (forms.filter(Boolean).length !== 1) {
      ctx.addIssue({ code: "custom", message: "Give one of rank, fromRank with toRank, or topPercent." });
    } else if (forms[1] && (t.fromRank === undefined || t.toRank === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [t.fromRank === undefined ? "fromRank" : "toRank"],
        message: "fromRank and toRank go together.",
      });
    } else if (t.fromRank !== undefined && t.toRank !== undefined && t.toRank < t.fromRank) {
      ctx.addIssue({ code: "custom", path: ["toRank"], message: "toRank must not be below fromRank." });
    }
    if (t.currencies.length + t.items.length === 0) {
      ctx.addIssue({ code: "custom", path: ["currencies"], message: "A tier grants at least one currency or item." });
    }
    for (const [side, lines] of [
      ["currencies", t.currencies],
      ["items", t.items],
    ] as const) {
      const seen = new Set<string>();
      lines.forEach((line, i) => {
        if (seen.has(line.id)) ctx.addIssue({ code: "custom", path: [side, i, "id"], message: `"${line.id}" is listed twice.` });
        seen.add(line.id);
      });
    }
  })
  .meta({ id: "LeaderboardRewardTier" });
export type RewardTier = z.output<typeof ZRewardTier>;

/** The first and last rank of a rank tier (null: a percent tier). */
export function rankSpan(t: { rank?: number; fromRank?: number; toRank?: number }): [number, number] | null {
  if (t.rank !== undefined) return [t.rank, t.rank];
  if (t.fromRank !== undefined && t.toRank !== undefined) return [t.fromRank, t.toRank];
  return null;
}

export const ZRewards = z
  .array(ZRewardTier)
  .max(MAX_REWARD_TIERS, `At most ${MAX_REWARD_TIERS} reward tiers.`)
  .superRefine((tiers, ctx) => {
    let lastRank = 0;
    let lastPercent = 0;
    tiers.forEach((t, i) => {
      const span = rankSpan(t);
      if (span) {
        if (lastPercent > 0) ctx.addIssue({ code: "custom", path: [i], message: "Rank tiers come before percent tiers." });
        else if (span[0] <= lastRank)
          ctx.addIssue({
            code: "custom",
            path: [i],
            message: `Ranks overlap or are out of order: this tier starts at ${span[0]}, after ${lastRank}.`,
          });
        lastRank = Math.max(lastRank, span[1]);
      } else if (t.topPercent !== undefined) {
        if (t.topPercent <= lastPercent)
          ctx.addIssue({
            code: "custom",
            path: [i, "topPercent"],
            message: "Percent tiers overlap: each needs a larger topPercent than the one before.",
          });
        lastPercent = Math.max(lastPercent, t.topPercent);
      }
    });
  })
  .meta({ description: "Paid when a period closes; tiers best first (rank tiers, then percent tiers), each once per player and period." });
export type Rewards = z.output<typeof ZRewards>;

/**
 * The ranks each tier pays in a period with `entries` entries: [tier index, first, last], empty
 * tiers left out. Percent tiers start after the previous tier's last rank.
 */
export function rewardRanges(tiers: Rewards, entries: number): Array<{ tier: number; from: number; to: number }> {
  const ranges: Array<{ tier: number; from: number; to: number }> = [];
  let last = 0;
  tiers.forEach((t, tier) => {
    const span = rankSpan(t) ?? [last + 1, Math.ceil(((t.topPercent ?? 0) * entries) / 100)];
    const to = Math.min(span[1], entries);
    if (to >= span[0]) ranges.push({ tier, from: span[0], to });
    last = Math.max(last, span[1]);
  });
  return ranges;
}

/**
 * A limited-time board's window: scores are accepted from `startsAt` (inclusive) until `endsAt`
 * (exclusive), both UTC instants; either may be absent (open on that side). Reads work at any time.
 */
export const ZWindowInstant = z.iso
  .datetime({ offset: true, message: "Give an ISO 8601 instant, e.g. 2026-12-01T00:00:00Z." })
  .meta({ description: "An ISO 8601 instant (UTC).", example: "2026-12-01T00:00:00Z" });

export function windowInOrder(d: { startsAt?: string | null; endsAt?: string | null }, ctx: z.RefinementCtx): void {
  if (d.startsAt && d.endsAt && Date.parse(d.endsAt) <= Date.parse(d.startsAt)) {
    ctx.addIssue({ code: "custom", path: ["endsAt"], message: "The end (endsAt) must be after the start (startsAt)." });
  }
}

/** The board's bounds and window in order (one refinement for the create and edit schemas). */
export function definitionInOrder(
  d: { minScore?: number | null; maxScore?: number | null; startsAt?: string | null; endsAt?: string | null },
  ctx: z.RefinementCtx,
): void {
  boundsInOrder(d, ctx);
  windowInOrder(d, ctx);
}

const browserFields = {
  name: ZBoardName,
  minScore: ZScore.nullable().optional(),
  maxScore: ZScore.nullable().optional(),
  resetSchedule: ZScheduleShape.nullable().optional(),
  clientWritable: z.boolean().optional(),
  scoreEvents: z.boolean().optional(),
  rewards: ZRewards.nullable().optional(),
  startsAt: ZWindowInstant.nullable().optional(),
  endsAt: ZWindowInstant.nullable().optional(),
};

/** `ZCreateLeaderboard` without the cron parse (the dashboard's create form). */
export const ZNewBoard = z
  .strictObject({ id: ZLeaderboardId, sortOrder: ZSortOrder, operator: ZOperator, ...browserFields })
  .superRefine(definitionInOrder);
/** `ZUpdateLeaderboard` without the cron parse (the dashboard's edit form). */
export const ZBoardPatch = z.strictObject({ ...browserFields, name: ZBoardName.optional() }).superRefine(definitionInOrder);

/** An operator's score correction: the new score and why (kept in the audit log). */
export const ZScoreCorrection = z.strictObject({
  score: ZScore,
  reason: z.string().trim().min(1, "Give a reason (kept in the audit log).").max(500, "Keep the reason under 500 characters."),
});
export type ScoreCorrection = z.input<typeof ZScoreCorrection>;

/** Entries removed in one command (checkboxes on the board page): at most this many players per call. */
export const MAX_REMOVE_ENTRIES = 100;
export const ZRemoveEntriesReason = z
  .string()
  .trim()
  .min(1, "Give a reason (kept in the audit log).")
  .max(500, "Keep the reason under 500 characters.");
