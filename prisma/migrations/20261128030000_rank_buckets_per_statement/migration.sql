-- The rank-bucket counts (migration 20261128010000) kept by statement-level triggers instead of a
-- row trigger. The row trigger did one upsert per changed entry: a statement that inserts,
-- moves or deletes many entries (a board or a project deleted with its entries, a bulk load)
-- rewrote the same few thousand bucket rows once per entry, each time adding a row version the
-- next lookup had to step over — a 1,000,000-entry INSERT ... SELECT ran for over 6 minutes.
-- Now each statement's transition tables are summed per bucket once (count and lowest new key)
-- and applied in bucket order (no deadlock between two statements that both touch two buckets),
-- with the same result for a one-row statement. An UPDATE that leaves sort keys alone nets to
-- zero per bucket and writes nothing.

DROP TRIGGER leaderboard_entries_rank_buckets ON leaderboard_entries;
DROP FUNCTION leaderboard_entries_rank_buckets();

-- One bucket's net change: `p_delta` entries (any sign), `p_low` the lowest sort key entering it
-- (NULL when none enters). An entering key below the bucket's `low` becomes its `low`.
CREATE FUNCTION leaderboard_rank_buckets_apply(p_project UUID, p_board TEXT, p_period TEXT, p_bucket BIGINT, p_delta INTEGER, p_low DOUBLE PRECISION)
RETURNS VOID LANGUAGE plpgsql AS $$
BEGIN
  IF p_delta > 0 THEN
    INSERT INTO leaderboard_rank_buckets AS b (project_id, leaderboard_id, period, bucket, entries, low)
    VALUES (p_project, p_board, p_period, p_bucket, p_delta, p_low)
    ON CONFLICT (project_id, leaderboard_id, period, bucket) DO UPDATE
      SET entries = b.entries + p_delta, low = least(b.low, p_low);
  ELSIF p_delta < 0 THEN
    UPDATE leaderboard_rank_buckets
       SET entries = entries + p_delta, low = least(low, coalesce(p_low, low))
     WHERE project_id = p_project AND leaderboard_id = p_board AND period = p_period AND bucket = p_bucket;
  ELSIF p_low IS NOT NULL THEN
    UPDATE leaderboard_rank_buckets SET low = p_low
     WHERE project_id = p_project AND leaderboard_id = p_board AND period = p_period AND bucket = p_bucket AND low > p_low;
  END IF;
END;
$$;

CREATE FUNCTION leaderboard_entries_rank_buckets_insert() RETURNS TRIGGER LANGUAGE plpgsql AS $$
DECLARE
  r RECORD;
BEGIN
  FOR r IN
    SELECT project_id, leaderboard_id, period, leaderboard_rank_bucket(sort_key) AS bucket, count(*)::int AS n, min(sort_key) AS low
      FROM new_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  LOOP
    PERFORM leaderboard_rank_buckets_apply(r.project_id, r.leaderboard_id, r.period, r.bucket, r.n, r.low);
  END LOOP;
  RETURN NULL;
END;
$$;

CREATE FUNCTION leaderboard_entries_rank_buckets_delete() RETURNS TRIGGER LANGUAGE plpgsql AS $$
DECLARE
  r RECORD;
BEGIN
  FOR r IN
    SELECT project_id, leaderboard_id, period, leaderboard_rank_bucket(sort_key) AS bucket, count(*)::int AS n
      FROM old_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  LOOP
    PERFORM leaderboard_rank_buckets_apply(r.project_id, r.leaderboard_id, r.period, r.bucket, -r.n, NULL);
  END LOOP;
  RETURN NULL;
END;
$$;

CREATE FUNCTION leaderboard_entries_rank_buckets_update() RETURNS TRIGGER LANGUAGE plpgsql AS $$
DECLARE
  r RECORD;
BEGIN
  FOR r IN
    SELECT project_id, leaderboard_id, period, bucket, sum(n)::int AS n, min(low) AS low
      FROM (SELECT project_id, leaderboard_id, period, leaderboard_rank_bucket(sort_key) AS bucket, -1 AS n, NULL::float8 AS low
              FROM old_rows
            UNION ALL
            SELECT project_id, leaderboard_id, period, leaderboard_rank_bucket(sort_key), 1, sort_key
              FROM new_rows) AS moves
     GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  LOOP
    PERFORM leaderboard_rank_buckets_apply(r.project_id, r.leaderboard_id, r.period, r.bucket, r.n, r.low);
  END LOOP;
  RETURN NULL;
END;
$$;

CREATE TRIGGER leaderboard_entries_rank_buckets_insert
  AFTER INSERT ON leaderboard_entries REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION leaderboard_entries_rank_buckets_insert();
CREATE TRIGGER leaderboard_entries_rank_buckets_delete
  AFTER DELETE ON leaderboard_entries REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION leaderboard_entries_rank_buckets_delete();
CREATE TRIGGER leaderboard_entries_rank_buckets_update
  AFTER UPDATE ON leaderboard_entries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION leaderboard_entries_rank_buckets_update();

DROP FUNCTION leaderboard_rank_buckets_count(UUID, TEXT, TEXT, BIGINT, INTEGER, DOUBLE PRECISION);
