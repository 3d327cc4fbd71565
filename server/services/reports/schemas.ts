import { z } from "zod";

/** A report reason's id: what a game sends and what the queue shows. */
export const REASON_PATTERN = /^[a-z0-9_-]{1,32}$/;
/** The reasons of a project that never set its own list. */
export const DEFAULT_REPORT_REASONS = ["cheating", "abuse", "offensive_name", "spam", "other"] as const;
export const MAX_REPORT_REASONS = 20;
export const MAX_NOTE_CHARS = 500;

/** How many new reports one player may file per window (a repeat of an open report does not count). */
export const REPORT_LIMIT = { limit: 10, windowSeconds: 3600 } as const;
/**
 * How many new reports one address (IPv6: one /64) may file in a project per window, whoever the
 * reporters are: fresh accounts are free to make, an address is not. 30 is three players at their
 * own limit behind one household or LAN-party router; a flood from one address stops there.
 */
export const REPORT_ADDRESS_LIMIT = { limit: 30, windowSeconds: 3600 } as const;
/**
 * How many new reports from new accounts (NEW_ACCOUNT_SECONDS) one player may receive per window.
 * The queue counts all new-account reporters of a player as one, so a 21st such report adds
 * nothing to its ranking: refusing it costs no signal and bounds a flood from many addresses.
 * Reporters with established accounts are never refused by this limit.
 */
export const REPORT_TARGET_LIMIT = { limit: 20, windowSeconds: 3600 } as const;
/** An account younger than this when it files a report is a new account (the limit above, the queue's weight). */
export const NEW_ACCOUNT_SECONDS = 24 * 3600;

export const ZReportReason = z.string().regex(REASON_PATTERN, "Reasons match ^[a-z0-9_-]{1,32}$.").meta({
  description: "One of the project's report reasons (default: cheating, abuse, offensive_name, spam, other).",
  example: "cheating",
});

export const ZReportReasons = z
  .array(ZReportReason)
  .min(1, "Keep at least one reason.")
  .max(MAX_REPORT_REASONS, `At most ${MAX_REPORT_REASONS} reasons.`)
  .refine((list) => new Set(list).size === list.length, "Each reason once.");

/** The configuration document's section (server/services/reports/config-as-code.ts). */
export const ZConfigReportReasons = ZReportReasons.optional().meta({
  description:
    "The reasons a player may give when reporting another (added after version 1), in the order the game lists them. Absent: left as they are; present: the whole list.",
});

export const ZReportBody = z
  .strictObject({
    reason: ZReportReason,
    note: z
      .string()
      .max(MAX_NOTE_CHARS, `At most ${MAX_NOTE_CHARS} characters.`)
      .optional()
      .meta({ description: "What happened, in the reporter's words (at most 500 characters); operators read it." }),
  })
  .meta({ id: "ReportPlayerBody" });

export const ZReportAccepted = z
  .object({
    id: z.string().uuid().meta({ description: "The report's id; reporting the same player again while it is open updates this one." }),
    status: z.literal("open"),
  })
  .meta({ id: "ReportAccepted" });

export const REPORT_RESOLUTIONS = ["dismissed", "warned", "banned", "entries_removed"] as const;
export type ReportResolution = (typeof REPORT_RESOLUTIONS)[number];

/** The queue's filters, kept in the page's URL. */
export const ZQueueFilter = z.object({
  projectId: z.string(),
  reason: ZReportReason.optional(),
  sort: z.enum(["newest", "most"]).default("newest"),
  limit: z.number().int().min(1).max(100).default(50),
});
export type QueueFilter = z.infer<typeof ZQueueFilter>;

const ZTargetRef = z.object({ projectId: z.string(), playerId: z.string().uuid() });
const ZResolutionNote = z.string().trim().max(500, "At most 500 characters.").optional();

export const ZDismissInput = ZTargetRef.extend({ note: ZResolutionNote });
export const ZWarnInput = ZTargetRef.extend({
  reason: z.string().trim().min(1, "Give a reason (the player's game may show it).").max(500, "At most 500 characters."),
});
export const ZBanFromQueueInput = ZTargetRef.extend({
  reason: z.string().trim().min(1, "Give a reason (the player sees it).").max(500, "At most 500 characters."),
  until: z.iso.datetime().nullable().optional(),
});
export const ZRemoveEntriesInput = ZTargetRef.extend({ note: ZResolutionNote });
export const ZReportReasonsInput = z.object({ projectId: z.string(), reasons: ZReportReasons });

/** The private player data key a warning is written to: the game reads it with the player's own token. */
export const WARNING_KEY = "moderation.warning";
