-- A player links at most one account per identity provider; the unique index also serves
-- lookups by player, so the plain index goes.
DROP INDEX "identities_player_id_idx";
CREATE UNIQUE INDEX "identities_player_id_provider_key" ON "identities"("player_id", "provider");
