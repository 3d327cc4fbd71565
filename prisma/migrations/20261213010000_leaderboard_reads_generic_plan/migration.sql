-- Two leaderboard reads from Postgres (boards without the Redis rank index: the embedded default,
-- or while the index is rebuilt or unreachable), moved out of server/services/leaderboards/entries.ts
-- into functions only for their plans. Postgres planned each statement anew on every call (their
-- generic plans' estimates are higher than a custom plan's, so it never switched), and the
-- planning cost as much as the execution or more. Here each plan is generic, made once per
-- connection and kept. Measured on 1,000,000 entries (Postgres CPU per call): own rank with 5
-- neighbours ~2.0 -> ~0.9 ms; the top 25 ~1.0 -> ~0.25 ms, a page at offset 1,000 ~2.7 -> ~1.6 ms
-- (a page far down is O(offset) either way).

-- A player's entry, its rank and up to p_range neighbours on each side. The rank is the entries
-- ahead + 1: the counts of the rank buckets ahead of the player's bucket plus a count inside it
-- (migration *_leaderboard_rank_buckets; `aheadOf` in entries.ts writes the same). The rows: side
-- 0 is the player with `ahead`, side -1 the entries above (best first from the nearest), side 1
-- those below. No row when the player has no entry in the period.
CREATE FUNCTION leaderboard_window(p_project UUID, p_board TEXT, p_period TEXT, p_player UUID, p_range INTEGER)
RETURNS TABLE (
  side INTEGER,
  player_id UUID,
  display_name TEXT,
  score DOUBLE PRECISION,
  metadata JSONB,
  updated_at TIMESTAMPTZ,
  sort_key DOUBLE PRECISION,
  seq BIGINT,
  ahead INTEGER
) LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH me AS (
      SELECT e.player_id, pl.display_name, e.score, e.metadata, e.updated_at, e.sort_key, e.seq FROM leaderboard_entries e JOIN players pl ON pl.id = e.player_id
       WHERE e.project_id = p_project AND e.leaderboard_id = p_board AND e.period = p_period AND e.player_id = p_player
    )
    SELECT 0 AS side, me.*, ((SELECT coalesce(sum(b.entries), 0) FROM leaderboard_rank_buckets b
               WHERE b.project_id = p_project AND b.leaderboard_id = p_board AND b.period = p_period AND b.bucket < leaderboard_rank_bucket(me.sort_key))::int
           + (SELECT count(*) FROM leaderboard_entries o
               WHERE o.project_id = p_project AND o.leaderboard_id = p_board AND o.period = p_period
                 AND o.sort_key >= (SELECT b.low FROM leaderboard_rank_buckets b WHERE b.project_id = p_project AND b.leaderboard_id = p_board AND b.period = p_period AND b.bucket = leaderboard_rank_bucket(me.sort_key))
                 AND (o.sort_key, o.seq) < (me.sort_key, me.seq))::int) AS ahead FROM me
    UNION ALL
    SELECT -1, n.*, NULL FROM me, LATERAL (
      SELECT e.player_id, pl.display_name, e.score, e.metadata, e.updated_at, e.sort_key, e.seq FROM leaderboard_entries e JOIN players pl ON pl.id = e.player_id
       WHERE e.project_id = p_project AND e.leaderboard_id = p_board AND e.period = p_period AND (e.sort_key, e.seq) < (me.sort_key, me.seq)
       ORDER BY e.sort_key DESC, e.seq DESC LIMIT p_range
    ) n
    UNION ALL
    SELECT 1, n.*, NULL FROM me, LATERAL (
      SELECT e.player_id, pl.display_name, e.score, e.metadata, e.updated_at, e.sort_key, e.seq FROM leaderboard_entries e JOIN players pl ON pl.id = e.player_id
       WHERE e.project_id = p_project AND e.leaderboard_id = p_board AND e.period = p_period AND (e.sort_key, e.seq) > (me.sort_key, me.seq)
       ORDER BY e.sort_key ASC, e.seq ASC LIMIT p_range
    ) n;
END
$$;

-- A page of a board's period, best first, with the period's entry count (`total` on every row; an
-- empty page is one row with the total and NULL columns): the first row's position is found by an
-- index-only scan over the rank index (no heap fetch per skipped row), then the page's rows are
-- read from there with their display names.
CREATE FUNCTION leaderboard_page(p_project UUID, p_board TEXT, p_period TEXT, p_offset BIGINT, p_limit INTEGER)
RETURNS TABLE (
  total INTEGER,
  player_id UUID,
  display_name TEXT,
  score DOUBLE PRECISION,
  metadata JSONB,
  updated_at TIMESTAMPTZ,
  sort_key DOUBLE PRECISION,
  seq BIGINT
) LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH first AS (
      SELECT sort_key, seq FROM leaderboard_entries
       WHERE project_id = p_project AND leaderboard_id = p_board AND period = p_period
       ORDER BY sort_key, seq OFFSET p_offset LIMIT 1
    ), page AS (
      SELECT e.player_id, pl.display_name, e.score, e.metadata, e.updated_at, e.sort_key, e.seq FROM first, leaderboard_entries e JOIN players pl ON pl.id = e.player_id
       WHERE e.project_id = p_project AND e.leaderboard_id = p_board AND e.period = p_period AND (e.sort_key, e.seq) >= (first.sort_key, first.seq)
       ORDER BY e.sort_key, e.seq LIMIT p_limit
    )
    SELECT t.total, page.* FROM (
      SELECT coalesce((SELECT entries FROM leaderboard_periods WHERE project_id = p_project AND leaderboard_id = p_board AND period = p_period), 0) AS total
    ) t LEFT JOIN page ON true
    ORDER BY page.sort_key, page.seq;
END
$$;
