-- The address a report was filed from, kept as a keyed hash (server/services/reports/index.ts):
-- HMAC-SHA256 under the server's JWT_SECRET of the project and the client address (IPv6 per /64,
-- as the rate limiter counts it), the first 16 bytes. It is never stored in clear; without the
-- secret it cannot be reversed by hashing every IPv4 address. Reports filed before this column:
-- NULL (the queue counts each such report as its own address group).
ALTER TABLE "player_reports" ADD COLUMN "reporter_address_hash" BYTEA;
ALTER TABLE "player_reports" ADD CONSTRAINT "player_reports_address_hash_length"
    CHECK ("reporter_address_hash" IS NULL OR octet_length("reporter_address_hash") = 16);

-- The per-address limit counts a project's reports of the last hour from one address.
CREATE INDEX "player_reports_address_created" ON "player_reports"("project_id", "reporter_address_hash", "created_at");
-- The per-reported-player limit counts the reports of the last hour against one player; the
-- index on target_id alone is this one's prefix (the cascade from players uses either).
CREATE INDEX "player_reports_target_created" ON "player_reports"("target_id", "created_at");
DROP INDEX "player_reports_target";
