import { z } from "zod";
import type { EventType } from "./events";

/**
 * The webhook events' payloads: the `data` of each delivery body
 * `{"id","type","timestamp","projectId","data"}`, documented in the OpenAPI document's `webhooks`
 * (server/openapi/document.ts). Ids are strings; amounts are numbers; times are ISO 8601 UTC.
 */
const playerId = z.string().uuid().meta({ description: "The player the event is about." });
const method = z.enum(["anonymous", "email", "idp"]).meta({ description: "How the player signed in." });
const ledger = {
  playerId,
  transactionId: z.string().uuid().meta({ description: "The ledger row (GET /economy/transactions shows it)." }),
  kind: z.enum(["add", "subtract", "purchase", "grant", "revoke", "reward", "store_purchase", "store_refund"]),
  reason: z
    .string()
    .nullable()
    .meta({ description: "The operator's reason (grant, revoke), a reward's board, period and rank, else null." }),
  source: z
    .object({ leaderboardId: z.string(), period: z.string() })
    .nullable()
    .optional()
    .meta({ description: "A reward's leaderboard and period (kind `reward`, a period close); absent otherwise." }),
};
const itemLines = z.array(
  z.object({
    itemId: z.string(),
    quantity: z.number().int().meta({ description: "How many were granted or revoked (positive)." }),
    total: z.number().int().nullable().meta({ description: "The player's quantity after the change." }),
  }),
);

/**
 * Payload fields that say who the player is beyond their id. When a player is deleted, their
 * events still waiting for a delivery keep the player id but these become null
 * (server/services/players/admin.ts), so every payload that has one declares it nullable.
 */
export const PERSONAL_EVENT_FIELDS = ["email", "displayName"] as const;

export const EVENT_PAYLOADS = {
  "player.created": z.object({ playerId, method }).meta({
    id: "WebhookPlayerCreated",
    description: "A new player: anonymous sign-in, e-mail registration or an identity provider's first sign-in.",
  }),
  "player.signed_in": z
    .object({ playerId, method })
    .meta({ id: "WebhookPlayerSignedIn", description: "The player's first sign-in of the UTC day (refreshes do not count)." }),
  "player.deleted": z
    .object({ playerId })
    .meta({ id: "WebhookPlayerDeleted", description: "The player's account was deleted (by the player or an operator)." }),
  "player.banned": z
    .object({ playerId, reason: z.string(), until: z.string().datetime().nullable().meta({ description: "null: until unbanned." }) })
    .meta({ id: "WebhookPlayerBanned", description: "An operator banned the player; their sessions ended." }),
  "player.unbanned": z
    .object({
      playerId,
      expired: z.boolean().meta({
        description: "true: a timed ban ran out (sent within about a minute of its end); false: an operator lifted the ban.",
      }),
    })
    .meta({ id: "WebhookPlayerUnbanned", description: "The player's ban ended: an operator lifted it, or a timed ban ran out." }),
  "player.email_linked": z
    .object({
      playerId,
      email: z
        .string()
        .email()
        .nullable()
        .meta({ description: "The address; null when the player was deleted before this event was delivered." }),
    })
    .meta({
      id: "WebhookPlayerEmailLinked",
      description: "An anonymous player registered an e-mail address (the only event carrying one).",
    }),
  "player.reported": z
    .object({
      reportId: z.string().uuid().meta({ description: "The report (the dashboard's moderation queue shows it)." }),
      playerId: playerId.meta({ description: "The reported player." }),
      reporterId: z.string().uuid().meta({ description: "The player who reported them." }),
      reason: z.string().meta({ description: "One of the project's report reasons." }),
      note: z.string().optional().meta({ description: "The reporter's note, when they wrote one." }),
      createdAt: z.string().datetime(),
    })
    .meta({
      id: "WebhookPlayerReported",
      description:
        "A player reported another (a new report). Reporting the same player again while the report is open updates it and sends no event.",
    }),
  "purchase.completed": z
    .object({
      ...ledger,
      purchaseId: z.string(),
      quantity: z.number().int(),
      balances: z
        .array(z.object({ currencyId: z.string(), balance: z.number() }))
        .meta({ description: "Balances after, of the currencies it touched." }),
      inventory: z
        .array(z.object({ itemId: z.string(), quantity: z.number().int() }))
        .meta({ description: "Quantities after, of the items it touched." }),
    })
    .meta({ id: "WebhookPurchaseCompleted", description: "A player's purchase went through (one ledger row)." }),
  "store.purchase_granted": z
    .object({
      playerId,
      receiptId: z.string().uuid().meta({ description: "Our id of the store transaction (the dashboard's Purchases page)." }),
      store: z.enum(["apple", "google", "steam"]),
      storeTransactionId: z.string(),
      productId: z.string().meta({ description: "The store product (ours)." }),
      quantity: z.number().int(),
      environment: z.enum(["production", "sandbox"]),
      priceMicros: z.number().int().nullable().meta({ description: "Millionths of `currency`, when known." }),
      currency: z.string().nullable(),
      transactionId: z.string().uuid().meta({ description: "The ledger row of the grant." }),
    })
    .meta({
      id: "WebhookStorePurchaseGranted",
      description: "A real-money store purchase was verified and granted (once per store transaction).",
    }),
  "store.purchase_refunded": z
    .object({
      playerId: playerId.nullable().meta({ description: "Null when the player was deleted before the refund." }),
      receiptId: z.string().uuid(),
      store: z.enum(["apple", "google", "steam"]),
      storeTransactionId: z.string(),
      productId: z.string().nullable(),
      reason: z.string().meta({ description: "The store's reason, or the operator's for a refund by hand." }),
      transactionId: z
        .string()
        .uuid()
        .nullable()
        .meta({ description: "The ledger row that took back what was left; null if nothing was." }),
      shortfall: z
        .array(z.object({ id: z.string(), kind: z.enum(["currency", "item"]), amount: z.number().int() }))
        .meta({ description: "Currencies and items (by id) the player had already spent: not taken back." }),
    })
    .meta({
      id: "WebhookStorePurchaseRefunded",
      description: "A store refunded or revoked a purchase (or an operator did by hand); what was left of the grant was taken back.",
    }),
  "currency.changed": z
    .object({
      ...ledger,
      purchaseId: z.string().nullable(),
      currencies: z.array(
        z.object({
          currencyId: z.string(),
          delta: z.number().meta({ description: "Signed change." }),
          balance: z.number().nullable().meta({ description: "The balance after the change." }),
        }),
      ),
    })
    .meta({
      id: "WebhookCurrencyChanged",
      description: "Every ledger row that changes a currency: add, subtract, purchase, grant, revoke, and a period close's reward.",
    }),
  "item.granted": z
    .object({ ...ledger, purchaseId: z.string().nullable(), items: itemLines })
    .meta({ id: "WebhookItemGranted", description: "Items gained (a purchase's rewards, an operator's grant, a period close's reward)." }),
  "item.revoked": z
    .object({ ...ledger, purchaseId: z.string().nullable(), items: itemLines })
    .meta({ id: "WebhookItemRevoked", description: "Items lost (an operator's revoke, items spent by a purchase)." }),
  "leaderboard.score_submitted": z
    .object({
      leaderboardId: z.string(),
      period: z.string().meta({ description: "The period key the score landed in." }),
      playerId,
      score: z.number().meta({ description: "The submitted value." }),
      entryScore: z.number().meta({ description: "The entry's score after the board's operator (best, latest, increment, decrement)." }),
    })
    .meta({
      id: "WebhookScoreSubmitted",
      description:
        "A score that changed the player's entry (a `best` board keeping a better score sends none), on boards whose `scoreEvents` is on (off by default: frequent).",
    }),
  "leaderboard.period_closed": z
    .object({
      leaderboardId: z.string(),
      period: z.string(),
      startedAt: z.string().datetime().meta({ description: "When the closed period began." }),
      closedAt: z.string().datetime().meta({ description: "When the close ran (at or after the period's end)." }),
      entries: z.number().int().meta({ description: "Entries in the closed period." }),
      rewardsGranted: z.number().int().meta({ description: "Players granted the board's period rewards." }),
    })
    .meta({ id: "WebhookPeriodClosed", description: "A leaderboard period closed (its reset schedule), after its rewards were granted." }),
  "config.imported": z
    .object({
      changes: z.number().int(),
      diffHash: z.string(),
      operatorId: z.string().uuid().nullable(),
      diff: z.record(z.string(), z.object({ created: z.number().int(), changed: z.number().int(), deleted: z.number().int() })),
    })
    .meta({ id: "WebhookConfigImported", description: "An operator applied a config document that changed something (counts per kind)." }),
  "experiment.assigned": z
    .object({
      experimentId: z.string(),
      experimentName: z.string(),
      variant: z.string().meta({ description: "The variant's id." }),
      playerId,
      assignedAt: z.string().datetime().meta({ description: "The first exposure: when GET /config first answered with it." }),
    })
    .meta({
      id: "WebhookExperimentAssigned",
      description: "A player was assigned a variant of a running experiment (once per player and experiment, at first exposure).",
    }),
  "webhook.test": z
    .record(z.string(), z.unknown())
    .meta({ id: "WebhookTest", description: "Sent from the dashboard or the CLI to one endpoint, whatever it subscribes to." }),
} satisfies Record<EventType, z.ZodType>;
