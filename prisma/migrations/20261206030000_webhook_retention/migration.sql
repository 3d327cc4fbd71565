-- Housekeeping deletes finished webhook deliveries and unneeded events older than
-- WEBHOOK_RETENTION_DAYS, oldest first, in batches (server/services/webhooks/retention.ts):
-- these indexes find the oldest rows without scanning the outbox.
CREATE INDEX "webhook_events_created_at_idx" ON "webhook_events"("created_at");
CREATE INDEX "webhook_deliveries_created_at_idx" ON "webhook_deliveries"("created_at");
