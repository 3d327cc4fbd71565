import { z } from "zod";
import { ZConfigCurrency, ZConfigItem, ZConfigLeaderboard, ZConfigPurchase } from "../config/schemas";
import { ZEconomyId } from "../economy/schemas";

/**
 * A scheduled change: a patch of one definition of the config-as-code document (server/services/config),
 * applied at `startsAt` and, with `endsAt`, reverted then. The patch takes the document's own field
 * schemas, so a value the import would refuse is refused when scheduling.
 */
export const SCHEDULE_KINDS = ["purchases", "currencies", "items", "leaderboards"] as const;
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];
export const SCHEDULE_STATUSES = ["scheduled", "running", "done", "cancelled", "failed"] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/** Per kind: the fields a patch may set (never the id; a board's sort order and operator are fixed). */
export const ZPatchOf = {
  purchases: ZConfigPurchase.omit({ id: true }).partial(),
  currencies: ZConfigCurrency.omit({ id: true }).partial(),
  items: ZConfigItem.omit({ id: true }).partial(),
  leaderboards: ZConfigLeaderboard.omit({ id: true, sortOrder: true, operator: true }).partial(),
} as const;

export const KIND_LABEL: Record<ScheduleKind, string> = {
  purchases: "purchase",
  currencies: "currency",
  items: "item",
  leaderboards: "leaderboard",
};

const ZInstant = z.iso.datetime({ offset: true }).meta({ description: "An instant, ISO 8601 (UTC or with an offset)." });

export const ZScheduleInput = z.strictObject({
  name: z.string().trim().min(1).max(100),
  kind: z.enum(SCHEDULE_KINDS),
  target: ZEconomyId.meta({ description: "The definition's id (purchase, currency, item or leaderboard)." }),
  /** Checked against the kind's fields by the service (ZPatchOf). */
  patch: z.record(z.string(), z.unknown()),
  startsAt: ZInstant,
  endsAt: ZInstant.nullable().optional(),
});
export type ScheduleInput = z.infer<typeof ZScheduleInput>;

export type ScheduledChangeDto = {
  id: string;
  name: string;
  kind: ScheduleKind;
  target: string;
  patch: Record<string, unknown>;
  startsAt: string;
  endsAt: string | null;
  status: ScheduleStatus;
  /** The patched fields as they were when the change was applied (null before). */
  before: Record<string, unknown> | null;
  appliedAt: string | null;
  revertedAt: string | null;
  /** Why it failed, or which fields were not reverted because someone changed them meanwhile. */
  error: string | null;
  createdBy: string | null;
  createdAt: string;
};
