import { z } from "zod";
import { HIDDEN_CHARACTERS_MESSAGE, hasHiddenCharacters } from "../labels";

/**
 * Client-safe (zod only): the dashboard's forms, the tRPC inputs, the configuration document and
 * the CLI validate webhook endpoints with these schemas. WEBHOOK_EVENT_TYPES is the one list of
 * event types (events.ts, which writes them to the outbox, re-exports it as EVENT_TYPES).
 */
export const WEBHOOK_EVENT_TYPES = [
  "player.created",
  "player.signed_in",
  "player.deleted",
  "player.banned",
  "player.unbanned",
  "player.email_linked",
  "player.reported",
  "purchase.completed",
  "currency.changed",
  "item.granted",
  "item.revoked",
  "store.purchase_granted",
  "store.purchase_refunded",
  "leaderboard.score_submitted",
  "leaderboard.period_closed",
  "config.imported",
  "experiment.assigned",
  "webhook.test",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What an endpoint may subscribe to: every type but the test event, which goes only to the endpoint it is sent to. */
export const SUBSCRIBABLE_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter(
  (t): t is Exclude<WebhookEventType, "webhook.test"> => t !== "webhook.test",
);

/** The dashboard's checkbox groups, in this order. */
export const EVENT_TYPE_GROUPS: ReadonlyArray<{ label: string; types: ReadonlyArray<(typeof SUBSCRIBABLE_EVENT_TYPES)[number]> }> = [
  {
    label: "Players",
    types: [
      "player.created",
      "player.signed_in",
      "player.deleted",
      "player.banned",
      "player.unbanned",
      "player.email_linked",
      "player.reported",
    ],
  },
  { label: "Economy", types: ["purchase.completed", "currency.changed", "item.granted", "item.revoked"] },
  { label: "Store purchases", types: ["store.purchase_granted", "store.purchase_refunded"] },
  { label: "Leaderboards", types: ["leaderboard.score_submitted", "leaderboard.period_closed"] },
  { label: "Experiments", types: ["experiment.assigned"] },
  { label: "Project", types: ["config.imported"] },
];

export const MAX_ENDPOINTS_PER_PROJECT = 20;
export const MAX_DESCRIPTION = 200;
/** Request and response bodies are cut to this many characters for display. */
export const BODY_DISPLAY_LIMIT = 4096;
/** The most deliveries one replay writes; a wider range is refused (narrow it). */
export const MAX_REPLAY = 10_000;
/** Replays one project may start per hour (with MAX_REPLAY, at most 100,000 queued deliveries an hour). */
export const REPLAYS_PER_HOUR = 10;
export const DEFAULT_OVERLAP_HOURS = 24;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "" && !url.username && !url.password;
  } catch {
    return false;
  }
}

export const ZWebhookUrl = z
  .string()
  .trim()
  .min(1, "Enter the endpoint's URL.")
  .max(2048, "At most 2048 characters.")
  .refine(isHttpUrl, "Must be an https:// URL without a user name or password.")
  .meta({ description: "An https URL (http only where the instance allows private networks); unique within the project." });

export const ZWebhookDescription = z
  .string()
  .trim()
  .max(MAX_DESCRIPTION, `At most ${MAX_DESCRIPTION} characters.`)
  .refine((s) => !hasHiddenCharacters(s), HIDDEN_CHARACTERS_MESSAGE)
  .meta({ description: `0–${MAX_DESCRIPTION} characters, no control or invisible formatting characters.` });

export const ZWebhookEventTypes = z
  .array(z.enum(SUBSCRIBABLE_EVENT_TYPES))
  .min(1, "Choose at least one event type.")
  .max(SUBSCRIBABLE_EVENT_TYPES.length)
  .refine((types) => new Set(types).size === types.length, "An event type is listed twice.");

export const ZWebhookEndpointInput = z.strictObject({
  url: ZWebhookUrl,
  description: ZWebhookDescription.default(""),
  eventTypes: ZWebhookEventTypes,
  enabled: z.boolean().default(true),
});
export type WebhookEndpointInput = z.input<typeof ZWebhookEndpointInput>;

export const ZWebhookEndpointPatch = z.strictObject({
  url: ZWebhookUrl.optional(),
  description: ZWebhookDescription.optional(),
  eventTypes: ZWebhookEventTypes.optional(),
  enabled: z.boolean().optional(),
});
export type WebhookEndpointPatch = z.input<typeof ZWebhookEndpointPatch>;

export const ZRotateSecret = z.strictObject({
  /** How long the old secret keeps signing beside the new one (0: it stops at once). */
  overlapHours: z.number().int().min(0, "At least 0 hours.").max(168, "At most 168 hours (a week).").default(DEFAULT_OVERLAP_HOURS),
});

export const ZDeliveryStatus = z.enum(["PENDING", "SUCCEEDED", "FAILED"]);
export type DeliveryStatus = z.infer<typeof ZDeliveryStatus>;

export const ZDeliveryFilter = z.strictObject({
  status: ZDeliveryStatus.optional(),
  eventType: z.enum(WEBHOOK_EVENT_TYPES).optional(),
  cursor: z.string().uuid().nullish(),
  limit: z.number().int().min(1).max(100).default(25),
});

/** A time range [from, to) for a replay: ISO 8601 instants, from before to. */
export const ZReplayRange = z
  .strictObject({
    from: z.iso.datetime({ offset: true, message: "Enter a date and time." }),
    to: z.iso.datetime({ offset: true, message: "Enter a date and time." }),
  })
  .refine((r) => Date.parse(r.from) < Date.parse(r.to), { path: ["to"], message: "The end must be after the start." });

/** An instance's delivery rules (its settings), as the dashboard explains them: see webhookPolicy(). */
export type WebhookPolicy = { attempts: number; retrySpanMs: number; disableAfterMs: number; retentionDays: number };
