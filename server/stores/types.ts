/**
 * What the store adapters (apple.ts, google.ts, steam.ts) give the receipts service
 * (server/services/store): a purchase the store has confirmed, in one shape for every store, or
 * an AppError with one of RECEIPT_REFUSALS. The adapters talk to the stores and check what the
 * store says against the project's credentials; they never touch the database, the ledger or
 * the metrics (the service counts every outcome in one place).
 */
export const STORES = ["apple", "google", "steam"] as const;
export type StoreName = (typeof STORES)[number];

/** Where a purchase was made: sandbox purchases are granted (testers need them) and kept out of revenue. */
export type StoreEnvironment = "production" | "sandbox";

export type VerifiedPurchase = {
  store: StoreName;
  /**
   * The store's own id of this one purchase, unique per store and app: Apple's `transactionId`,
   * Google's `orderId` (or `token:<sha-256 of the purchase token>` for a purchase without one),
   * Steam's `orderid`. The receipts table's unique key: one grant per id, ever.
   */
  transactionId: string;
  /** Apple's originalTransactionId; null elsewhere. */
  originalTransactionId: string | null;
  /** The store's product id (the part after `apple:` / `google:` / `steam:` in our product key). */
  productId: string;
  /** How many units the store sold (Google's multi-quantity purchases, Steam's qty); 1 otherwise. */
  quantity: number;
  environment: StoreEnvironment;
  purchasedAt: Date;
  /** The price the store charged, in millionths of `currency`, when the store says it (Apple, Steam). */
  priceMicros: number | null;
  /** ISO 4217, when the store says it. */
  currency: string | null;
  /**
   * The decoded store answer for support and disputes: ids, dates, states, storefront. Never a
   * purchase token, signature, certificate or key.
   */
  evidence: Record<string, unknown>;
};

/**
 * A store telling us a purchase was taken back (refund, chargeback, revocation) or given back
 * (Apple's REFUND_REVERSED). `transactionId` matches VerifiedPurchase.transactionId.
 */
export type StoreReversal = {
  store: StoreName;
  transactionId: string;
  kind: "refund" | "refund_reversed";
  /** The store's reason, in its words (Apple's revocationReason, Google's voidedReason, Steam's status). */
  reason: string;
  at: Date;
  evidence: Record<string, unknown>;
};

/**
 * The refusals a receipt can get, each a code in server/errors.ts. Nothing is granted for any of
 * them. STORE_UNAVAILABLE is the store not answering (timeouts, 5xx after retries): the client
 * retries later with the same receipt.
 */
export const RECEIPT_REFUSALS = [
  "RECEIPT_INVALID",
  "RECEIPT_EXPIRED",
  "RECEIPT_WRONG_APP",
  "RECEIPT_WRONG_ENVIRONMENT",
  "RECEIPT_WRONG_PRODUCT",
  "RECEIPT_PENDING",
  "RECEIPT_CANCELLED",
  "STORE_NOT_CONFIGURED",
  "STORE_UNAVAILABLE",
] as const;
export type ReceiptRefusal = (typeof RECEIPT_REFUSALS)[number];
