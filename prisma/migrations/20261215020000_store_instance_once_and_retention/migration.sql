-- One real purchase, one grant per instance: a store app (bundle id, package name) set up in two
-- projects granted the same production purchase in each. A production receipt is now refused
-- when another project of the instance holds that store transaction; this index finds it
-- without the project. Not unique: an instance upgraded with such duplicates keeps them, and
-- the rule applies from now on (server/services/store/receipts.ts).
CREATE INDEX "store_transactions_instance" ON "store_transactions" ("store", "store_transaction_id")
  WHERE "environment" = 'production' AND "status" <> 'rejected';

-- Retention (server/services/retention.ts): rejected receipts and resolved player reports are
-- deleted after their stated time by the hourly housekeeping; these find the old ones in order.
CREATE INDEX "store_transactions_rejected_updated" ON "store_transactions" ("updated_at") WHERE "status" = 'rejected';
CREATE INDEX "player_reports_resolved_at" ON "player_reports" ("resolved_at") WHERE "status" = 'resolved';
