import { z } from "zod";
import { MAX_LINES, ZEconomyId, ZLine } from "../economy/schemas";
import { zLabel } from "../labels";

/**
 * Client-safe (zod only): store products, store settings and the game API's receipt bodies,
 * shared by the dashboard's forms, the tRPC inputs, the REST edge and the configuration document.
 */
export const STORE_NAMES = ["apple", "google", "steam"] as const;
export const ZStore = z.enum(STORE_NAMES);
export type Store = z.infer<typeof ZStore>;
export const STORE_LABELS: Record<Store, string> = { apple: "App Store", google: "Google Play", steam: "Steam" };

/** A store's own product id: Apple's and Google's are reverse-DNS-ish strings, Steam's item ids are integers. */
const ZAppleProductId = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9._-]{1,200}$/, "Letters, digits, '.', '_' and '-', up to 200.");
const ZGoogleProductId = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9._]{0,139}$/, "Lower-case letters, digits, '.' and '_', starting with a letter or digit (Google's rule).");
const ZSteamItemId = z
  .string()
  .trim()
  .regex(/^[1-9][0-9]{0,9}$/, "Steam item ids are positive 32-bit integers.");
/** ISO 4217 code; micros: millionths of one unit (USD 4.99 = 4990000), as Google reports prices. */
const ZCurrencyCode = z.string().regex(/^[A-Z]{3}$/, "An ISO 4217 code such as USD.");
const ZPriceMicros = z.number().int().min(0).max(1_000_000_000_000);

const storeProductFields = {
  name: zLabel(100),
  rewards: z.array(ZLine).min(1).max(MAX_LINES),
  appleProductId: ZAppleProductId.nullable().optional(),
  googleProductId: ZGoogleProductId.nullable().optional(),
  steamItemId: ZSteamItemId.nullable().optional(),
  kind: z.enum(["consumable", "non_consumable"]).default("consumable"),
  priceMicros: ZPriceMicros.nullable().optional(),
  priceCurrency: ZCurrencyCode.nullable().optional(),
};

function priceTogether(p: { priceMicros?: number | null; priceCurrency?: string | null }, ctx: z.RefinementCtx) {
  if ((p.priceMicros == null) !== (p.priceCurrency == null))
    ctx.addIssue({ code: "custom", path: ["priceCurrency"], message: "Give the price and its currency together, or neither." });
}

export const ZStoreProductInput = z.strictObject({ id: ZEconomyId, ...storeProductFields }).superRefine((p, ctx) => {
  priceTogether(p, ctx);
  if (!p.appleProductId && !p.googleProductId && !p.steamItemId)
    ctx.addIssue({ code: "custom", path: ["appleProductId"], message: "Give the product's id in at least one store." });
  if (p.steamItemId && p.priceMicros == null)
    ctx.addIssue({ code: "custom", path: ["priceMicros"], message: "Steam charges the price we send: a Steam product needs one." });
});
export type StoreProductInput = z.input<typeof ZStoreProductInput>;
export const ZStoreProductUpdate = z
  .strictObject({
    name: storeProductFields.name.optional(),
    rewards: storeProductFields.rewards.optional(),
    appleProductId: storeProductFields.appleProductId,
    googleProductId: storeProductFields.googleProductId,
    steamItemId: storeProductFields.steamItemId,
    kind: z.enum(["consumable", "non_consumable"]).optional(),
    priceMicros: storeProductFields.priceMicros,
    priceCurrency: storeProductFields.priceCurrency,
  })
  .superRefine(priceTogether);
export type StoreProductUpdate = z.input<typeof ZStoreProductUpdate>;

export type StoreProductDto = {
  id: string;
  name: string;
  rewards: z.infer<typeof ZLine>[];
  appleProductId: string | null;
  googleProductId: string | null;
  steamItemId: string | null;
  kind: "consumable" | "non_consumable";
  priceMicros: number | null;
  priceCurrency: string | null;
};

// ---- Store settings (operators) ----

/** Which store environments a project's receipts may come from; sandbox purchases are granted and kept out of revenue. */
export const ZEnvironments = z.enum(["production", "sandbox", "both"]);

export const ZAppleSettings = z.strictObject({
  bundleId: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9.-]{1,155}$/, "A bundle id such as com.studio.game."),
  appAppleId: z.number().int().positive().nullable().optional().meta({ description: "Required by Apple for production receipts." }),
  environments: ZEnvironments.default("production"),
});
export const ZGoogleSettings = z.strictObject({
  packageName: z
    .string()
    .trim()
    .regex(/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/, "A package name such as com.studio.game."),
  environments: ZEnvironments.default("both"),
});
export const ZSteamSettings = z.strictObject({
  appId: z
    .string()
    .trim()
    .regex(/^[1-9][0-9]{0,9}$/, "Steam app ids are positive integers."),
  sandbox: z.boolean().default(false).meta({ description: "Use ISteamMicroTxnSandbox (no money moves)." }),
});

/** The credential each store needs, write-only: never read back, shown as a hint. */
export const ZAppleSecret = z.strictObject({
  keyId: z.string().trim().min(1).max(64),
  issuerId: z.string().trim().min(1).max(64),
  privateKey: z.string().trim().min(1).max(10_000),
});
export const ZGoogleSecret = z.strictObject({
  client_email: z.string().trim().email(),
  private_key: z.string().trim().min(1).max(10_000),
});
export const ZSteamSecret = z.strictObject({
  publisherKey: z
    .string()
    .trim()
    .regex(/^[A-Fa-f0-9]{32}$/, "32 hexadecimal characters."),
});

export const ZStoreSettingsInput = z.discriminatedUnion("store", [
  z.strictObject({ store: z.literal("apple"), settings: ZAppleSettings, secret: ZAppleSecret.optional() }),
  z.strictObject({ store: z.literal("google"), settings: ZGoogleSettings, secret: ZGoogleSecret.optional() }),
  z.strictObject({ store: z.literal("steam"), settings: ZSteamSettings, secret: ZSteamSecret.optional() }),
]);
export type StoreSettingsInput = z.input<typeof ZStoreSettingsInput>;

export const ZRefundPolicy = z.enum(["clamp", "ban"]);
export type RefundPolicy = z.infer<typeof ZRefundPolicy>;

// ---- The game API ----

export const ZReceiptBody = z
  .discriminatedUnion("store", [
    z.strictObject({
      store: z.literal("apple"),
      signedTransaction: z
        .string()
        .min(1)
        .max(16_384)
        .meta({ description: "StoreKit 2's `Transaction.jwsRepresentation` (a JWS signed by the App Store)." }),
    }),
    z.strictObject({
      store: z.literal("google"),
      productId: ZGoogleProductId.meta({ description: "Play Billing's `Purchase.getProducts()[0]`." }),
      purchaseToken: z.string().min(1).max(4_096).meta({ description: "Play Billing's `Purchase.getPurchaseToken()`." }),
    }),
    z.strictObject({
      store: z.literal("steam"),
      orderId: z
        .string()
        .regex(/^[1-9][0-9]{0,19}$/)
        .meta({ description: "The `orderId` of `POST /economy/receipts/steam`, once `MicroTxnAuthorizationResponse_t` said authorized." }),
    }),
  ])
  .meta({ id: "ReceiptBody" });
export type ReceiptBody = z.infer<typeof ZReceiptBody>;

export const ZSteamOrderBody = z
  .strictObject({
    productId: ZEconomyId.meta({ description: "The store product's id (ours, e.g. `gems-500`), which has a Steam item id." }),
    steamId: z
      .string()
      .regex(/^[0-9]{17}$/)
      .meta({ description: "The player's 64-bit Steam id (`SteamUser()->GetSteamID()`)." }),
    language: z
      .string()
      .regex(/^[a-z]{2}(-[A-Za-z]{2})?$/)
      .default("en")
      .meta({ description: "ISO 639-1 language of the item description Steam shows." }),
  })
  .meta({ id: "SteamOrderBody" });

const ZGrant = z.object({
  transactionId: z.string().uuid().meta({ description: "The ledger entry of the grant." }),
  balances: z.array(z.object({ id: z.string(), balance: z.number().int() })),
  inventory: z.array(z.object({ itemId: z.string(), quantity: z.number().int() })),
});

export const ZReceiptResult = z
  .object({
    receiptId: z.string().uuid().meta({ description: "Our id of this store transaction (shown to operators)." }),
    store: ZStore,
    storeTransactionId: z.string().meta({ description: "The store's id: Apple's transactionId, Google's orderId, Steam's orderid." }),
    productId: z.string().meta({ description: "The store product's id (ours)." }),
    quantity: z.number().int(),
    environment: z.enum(["production", "sandbox"]),
    status: z.enum(["granted", "refunded"]).meta({ description: "refunded: the store took it back since (a replay)." }),
    replayed: z.boolean().meta({ description: "true: this receipt was redeemed before, by this player; nothing new was granted." }),
    grant: ZGrant.meta({ description: "What the grant gave and the balances right after it (for a replay: after the first grant)." }),
  })
  .meta({ id: "ReceiptResult" });
export type ReceiptResult = z.infer<typeof ZReceiptResult>;

export const ZSteamOrder = z
  .object({
    orderId: z.string().meta({ description: "Ours: send it back with `POST /economy/receipts` once the player approved." }),
    transId: z.string().meta({ description: "Steam's transaction id." }),
    steamUrl: z.string().nullable().meta({ description: "For web sessions: where the player approves; null in the overlay." }),
  })
  .meta({ id: "SteamOrder" });

/** A store_transactions row as the operator reads and the finance export select it (snake_case, as pg returns it). */
export type StoreTransactionRow = {
  id: string;
  store: Store;
  store_transaction_id: string | null;
  original_transaction_id: string | null;
  store_product_id: string | null;
  product_id: string | null;
  player_id: string | null;
  status: "pending" | "granted" | "refunded" | "rejected";
  refusal: string | null;
  environment: string | null;
  quantity: number;
  price_micros: string | null;
  currency: string | null;
  purchased_at: Date | null;
  created_at: Date;
  refunded_at: Date | null;
  refund_reason: string | null;
  shortfall: Array<{ id: string; kind?: "currency" | "item"; amount: number }> | null;
};
