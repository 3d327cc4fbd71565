import { z } from "zod";
import { ZJsonValue } from "../json-value";
import {
  definitionInOrder,
  MAX_SAFE_SCORE,
  ZBoardName,
  ZLeaderboardId,
  ZOperator,
  ZRewards,
  ZRewardTier,
  ZScore,
  ZSortOrder,
  ZWindowInstant,
} from "./board-schemas";
import { scheduleProblem } from "./periods";

export { MAX_SAFE_SCORE, ZLeaderboardId, ZOperator, ZRewards, ZSortOrder };
export const METADATA_MAX_BYTES = 1024;

export const ZSchedule = z
  .string()
  .superRefine((text, ctx) => {
    const problem = scheduleProblem(text);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .meta({ description: "`daily`, `weekly` (Mondays), `monthly` or a 5-field cron expression; all in UTC.", example: "daily" });

const definitionFields = {
  name: ZBoardName,
  minScore: ZScore.nullable().optional(),
  maxScore: ZScore.nullable().optional(),
  resetSchedule: ZSchedule.nullable().optional(),
  clientWritable: z.boolean().optional(),
  /** Deliver leaderboard.score_submitted for every accepted score. */
  scoreEvents: z.boolean().optional(),
  /** null or []: no rewards. Currencies and items must exist in the project (checked at save). */
  rewards: ZRewards.nullable().optional(),
  /** A limited-time board: scores are accepted from startsAt until endsAt (UTC; null: open on that side). */
  startsAt: ZWindowInstant.nullable().optional(),
  endsAt: ZWindowInstant.nullable().optional(),
};

export const ZCreateLeaderboard = z
  .strictObject({ id: ZLeaderboardId, sortOrder: ZSortOrder, operator: ZOperator, ...definitionFields })
  .superRefine(definitionInOrder);
export type CreateLeaderboard = z.input<typeof ZCreateLeaderboard>;

/** Sort order and operator are fixed after creation. */
export const ZUpdateLeaderboard = z
  .strictObject({ ...definitionFields, name: definitionFields.name.optional() })
  .superRefine(definitionInOrder);
export type UpdateLeaderboard = z.input<typeof ZUpdateLeaderboard>;

export const ZLeaderboard = z.object({
  id: z.string(),
  name: z.string(),
  sortOrder: ZSortOrder,
  operator: ZOperator,
  minScore: z.number().nullable(),
  maxScore: z.number().nullable(),
  resetSchedule: z.string().nullable(),
  clientWritable: z.boolean(),
  scoreEvents: z.boolean(),
  rewards: z.array(ZRewardTier),
  startsAt: z.iso.datetime().nullable(),
  endsAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type LeaderboardDto = z.infer<typeof ZLeaderboard>;

export const ZEntry = z
  .object({
    rank: z.number().int().min(1),
    playerId: z.string().uuid(),
    displayName: z.string().nullable(),
    score: z.number(),
    metadata: z.record(z.string(), ZJsonValue).nullable(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "LeaderboardEntry" });
export type Entry = z.infer<typeof ZEntry>;

export const ZLeaderboardPage = z
  .object({
    id: z.string(),
    name: z.string(),
    sortOrder: ZSortOrder,
    total: z.number().int(),
    offset: z.number().int(),
    limit: z.number().int(),
    resetsAt: z.iso.datetime().nullable().meta({ description: "When the current period ends (UTC); null: never by itself." }),
    period: z.string().meta({
      description: "The current period's key; a reward for it names the same period in `GET /economy/transactions` (`source`).",
    }),
    rewards: z.array(ZRewardTier).meta({
      description:
        "What the period's close pays, best first (empty: nothing). Rank tiers (`rank`, `fromRank`–`toRank`) then percent tiers " +
        "(`topPercent`: the ranks after the previous tier up to ⌈topPercent × entries / 100⌉).",
    }),
    // Not required: a client built against this document keeps reading servers from before
    // limited-time boards, which do not send them (absent reads as null).
    startsAt: z.iso.datetime().nullable().optional().meta({
      description:
        "A limited-time board's first instant accepting scores (UTC); null: open from the start. This server always sends it; servers before limited-time boards did not (read absent as null).",
    }),
    endsAt: z.iso.datetime().nullable().optional().meta({
      description:
        "A limited-time board's end (UTC): from then on scores are refused (409 LEADERBOARD_NOT_OPEN) and the board stays readable; null: no end. This server always sends it; servers before limited-time boards did not (read absent as null).",
    }),
    entries: z.array(ZEntry),
  })
  .meta({ id: "LeaderboardPage" });

export const ZSubmitResult = ZEntry.extend({
  updated: z.boolean().meta({ description: "false when the operator kept the stored score (best: not better)." }),
}).meta({ id: "SubmitScoreResult" });

export const ZPlayerEntry = ZEntry.extend({
  above: z.array(ZEntry).optional().meta({ description: "With `range`: up to N better entries, best first." }),
  below: z.array(ZEntry).optional().meta({ description: "With `range`: up to N worse entries, best first." }),
}).meta({ id: "LeaderboardPlayerEntry" });

export const ZLeaderboardParams = z.strictObject({ id: ZLeaderboardId });

export const ZPageQuery = z.strictObject({
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
  limit: z.coerce.number().int().min(1).max(100).default(25),
});

export const ZRangeQuery = z.strictObject({
  range: z.coerce.number().int().min(1).max(50).optional().meta({ description: "1–50 neighbours above and below." }),
});

export const ZSubmitScoreBody = z
  .strictObject({
    score: ZScore.meta({ description: "Finite; exact up to 2^53. For increment / decrement boards: the amount." }),
    metadata: z
      .record(z.string(), ZJsonValue)
      .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= METADATA_MAX_BYTES, "metadata must be at most 1 KiB as JSON.")
      .optional(),
  })
  .meta({ id: "SubmitScoreBody" });
