-- A timed ban that runs out is announced as player.unbanned (expired: true) by the
-- player-ban-expiry job (every minute, server/services/players/ban-expiry.ts).
--
-- 1. players.ban_expiry_sent: the job set it in the transaction that wrote the event, so each
--    ban's end is announced once; a new ban clears it. Bans that ended before this migration are
--    marked as announced (they ended without an event, as documented then).
-- 2. A partial index over the timed bans not announced yet: the job's scan reads only those.
-- 3. The job's queue (pg-boss, "stately" like the other scheduled queues: at most one waiting and
--    one running job), created here because instances start pg-boss without migrating.
ALTER TABLE "players" ADD COLUMN "ban_expiry_sent" BOOLEAN NOT NULL DEFAULT false;
UPDATE "players" SET "ban_expiry_sent" = true WHERE "banned_until" <= now();
CREATE INDEX "players_ban_expiry_idx" ON "players"("banned_until") WHERE "banned_until" IS NOT NULL AND NOT "ban_expiry_sent";

SELECT pgboss.create_queue('player-ban-expiry', '{"policy":"stately"}');
