-- Usage counters of a player's key/value data, kept by every write in the transaction that
-- holds the player's row lock, so a write checks its limits without aggregating the rows.
ALTER TABLE "players" ADD COLUMN "data_keys" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "players" ADD COLUMN "data_bytes" BIGINT NOT NULL DEFAULT 0;

UPDATE "players" p
   SET "data_keys" = u.keys, "data_bytes" = u.bytes
  FROM (SELECT "player_id", count(*) AS keys, sum("size_bytes") AS bytes FROM "player_data" GROUP BY "player_id") u
 WHERE u."player_id" = p."id";
