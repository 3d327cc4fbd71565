-- A ban hides the player's leaderboard entries; an unban (or the end of a timed ban) restores them.
--
-- 1. leaderboard_hidden_entries: the banned player's rows of every board and period (archived
--    ones too), moved out of leaderboard_entries in the ban's transaction (server/services/
--    leaderboards/moderation.ts) and moved back on unban, with the same score, sort key and seq
--    (a restored entry ranks among equal scores where it did). Moving the rows, rather than a
--    "hidden" flag on leaderboard_entries, keeps every public read exactly as it is: pages, own
--    rank, around-me, period pages, the rank buckets (their triggers see a delete and an insert),
--    the period's entry counter (kept by the move like a removal), the rewards at a period's
--    close and the Redis rank index (told after the commit) never meet a banned player, and no
--    hot-path query pays a "NOT hidden" condition or a wider index. Deleting a player, a board or a
--    period deletes its hidden rows too (ON DELETE CASCADE).
-- 2. A banned player's new entry is refused: an AFTER INSERT row trigger on leaderboard_entries
--    raises GB403 (PLAYER_BANNED for the service) when the player's ban is in force. The sign-in
--    paths and X-Player-Id already refuse a banned player; this closes the window where a submit
--    authorized before the ban commits, or on another instance within the session cache's TTL,
--    would insert a visible entry after the ban moved the others. It fires only for inserted rows
--    (an update of an existing entry cannot reach a banned player: the ban moved them all), and
--    it takes the player's row FOR KEY SHARE, which waits for a ban in progress (the ban locks the
--    row FOR UPDATE first), so either the submit commits first and the ban then moves its entry,
--    or the submit sees the ban. A ban is in force while banned_at is set, its end has not been
--    announced (ban_expiry_sent: the expiry job restores the entries in that transaction) and
--    banned_until has not passed.
CREATE TABLE "leaderboard_hidden_entries" (
    "project_id" UUID NOT NULL,
    "leaderboard_id" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "player_id" UUID NOT NULL,
    "score" DOUBLE PRECISION NOT NULL,
    "sort_key" DOUBLE PRECISION NOT NULL,
    "seq" BIGINT NOT NULL,
    "metadata" JSONB,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "hidden_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "hidden_reason" TEXT NOT NULL,
    CONSTRAINT "leaderboard_hidden_entries_pkey" PRIMARY KEY ("project_id", "leaderboard_id", "period", "player_id"),
    CONSTRAINT "leaderboard_hidden_entries_project_id_leaderboard_id_period_fkey" FOREIGN KEY ("project_id", "leaderboard_id", "period") REFERENCES "leaderboard_periods"("project_id", "leaderboard_id", "period") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "leaderboard_hidden_entries_player_id_fkey" FOREIGN KEY ("player_id") REFERENCES "players"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "leaderboard_hidden_entries_player_id_idx" ON "leaderboard_hidden_entries"("player_id");

CREATE FUNCTION leaderboard_entries_refuse_banned() RETURNS TRIGGER LANGUAGE plpgsql AS $$
DECLARE
  p RECORD;
BEGIN
  -- Locked by id alone, then checked: a condition in the WHERE would be judged on the snapshot
  -- (not banned yet) and skip the lock, and with it the wait for a ban in progress.
  SELECT banned_at, banned_until, ban_expiry_sent INTO p FROM players WHERE id = NEW.player_id FOR KEY SHARE;
  IF p.banned_at IS NOT NULL AND NOT p.ban_expiry_sent AND (p.banned_until IS NULL OR p.banned_until > now()) THEN
    RAISE EXCEPTION 'player % is banned', NEW.player_id USING ERRCODE = 'GB403';
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER leaderboard_entries_refuse_banned
  AFTER INSERT ON leaderboard_entries
  FOR EACH ROW EXECUTE FUNCTION leaderboard_entries_refuse_banned();
