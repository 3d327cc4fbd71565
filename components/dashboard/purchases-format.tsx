import { Badge } from "@/components/ui/primitives";

/**
 * How store purchases read on every page (Purchases, a player's page, the overview): the status
 * as a badge with a refusal in words, and prices from the store's micros.
 */
export const REFUSALS: Record<string, string> = {
  RECEIPT_INVALID: "malformed or forged receipt",
  RECEIPT_EXPIRED: "signed with an expired certificate",
  RECEIPT_WRONG_APP: "receipt of another app",
  RECEIPT_WRONG_ENVIRONMENT: "environment not accepted",
  RECEIPT_WRONG_PRODUCT: "unknown product",
  RECEIPT_CANCELLED: "cancelled, refunded or revoked at the store",
  RECEIPT_PENDING: "not paid yet",
  RECEIPT_ALREADY_USED: "already redeemed by another player",
  STORE_NOT_CONFIGURED: "store not configured",
  STORE_UNAVAILABLE: "the store did not answer",
};

export const refusalInWords = (code: string | null) => (code ? (REFUSALS[code] ?? code.toLowerCase().replace(/_/g, " ")) : "");

export function PurchaseStatus({ status, refusal }: { status: string; refusal: string | null }) {
  if (status === "granted") return <Badge tone="green">granted</Badge>;
  if (status === "refunded") return <Badge tone="red">refunded</Badge>;
  if (status === "rejected") return <Badge tone="red">rejected: {refusalInWords(refusal)}</Badge>;
  return <Badge>{status}</Badge>;
}

/** 4990000 USD → "USD 4.99"; null → "—". */
export function money(micros: number | null, currency: string | null): string {
  if (micros === null || currency === null) return "—";
  return `${currency} ${(micros / 1_000_000).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** What a refund could not take back: "300 gems". */
export const shortfallInWords = (shortfall: Array<{ id: string; kind?: "currency" | "item"; amount: number }> | null) =>
  shortfall && shortfall.length > 0 ? shortfall.map((s) => `${s.amount.toLocaleString("en-US")} ${s.id}`).join(", ") : "";
