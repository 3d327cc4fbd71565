-- A player's deletion deletes or strips that player's webhook events in its transaction
-- (server/services/players/admin.ts): this finds them without scanning the project's outbox.
CREATE INDEX "webhook_events_project_id_player_id_idx" ON "webhook_events"("project_id", "player_id");
