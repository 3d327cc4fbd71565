-- A refund or revocation the store reports before the game has sent that transaction's receipt
-- (an App Store REFUND/REVOKE notification, a Google voided purchase) was answered
-- `unknown_transaction` and kept nowhere, so the receipt sent later was granted and stayed
-- granted. Such a reversal is held here, one row per store transaction, and a receipt for it is
-- refused (RECEIPT_CANCELLED) for as long as the row exists; Apple's REFUND_REVERSED deletes it.
-- The receipt's grant and the reversal serialize on a transaction-scoped advisory lock of the
-- store transaction id, so neither can miss the other when both arrive at once.
CREATE TABLE "store_held_reversals" (
  "project_id" UUID NOT NULL,
  "store" TEXT NOT NULL,
  "store_transaction_id" TEXT NOT NULL,
  "reason" TEXT NOT NULL,
  "reversed_at" TIMESTAMPTZ(3) NOT NULL,
  "evidence" JSONB NOT NULL DEFAULT '{}',
  "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "store_held_reversals_pkey" PRIMARY KEY ("project_id", "store", "store_transaction_id"),
  CONSTRAINT "store_held_reversals_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
