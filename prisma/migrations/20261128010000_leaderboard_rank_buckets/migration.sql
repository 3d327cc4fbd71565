-- Ranks without the Redis index in O(buckets + bucket size) instead of O(rank): every board's
-- period keeps, per bucket of sort keys, how many entries it holds. A rank is then the sum of
-- the counts of the buckets ahead plus a count inside the player's own bucket (an index range
-- from the bucket's `low`). Buckets are ranges of the sort key's IEEE-754 order: the float's
-- bits as a signed integer (negative values' magnitude bits flipped, so the integer order is the
-- float order; -0 as 0) shifted right by 44 — sign, exponent and the top 8 bits of the
-- mantissa: 256 buckets per power of two, e.g. ~5,000 buckets for scores of 0 to 1,000,000.
-- `low` is the lowest sort key ever counted in the bucket: never above any entry in it, and
-- above every entry of the buckets before it, so the range sort_key >= low holds the bucket's
-- entries ahead of a player and none of an earlier bucket's.
-- A row trigger keeps the counts on every insert, delete (cascades included) and change of a
-- sort key, in the statement that makes the change; a change that moves an entry between two
-- buckets updates them in bucket order (no deadlock between two such changes).

CREATE FUNCTION leaderboard_rank_bucket(k DOUBLE PRECISION) RETURNS BIGINT
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT (CASE WHEN b >= 0 THEN b ELSE b # 9223372036854775807 END) >> 44
    FROM (SELECT ('x' || encode(float8send(k + 0.0::float8), 'hex'))::bit(64)::bigint AS b) AS bits
$$;

CREATE TABLE "leaderboard_rank_buckets" (
    "project_id" UUID NOT NULL,
    "leaderboard_id" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "bucket" BIGINT NOT NULL,
    "entries" INTEGER NOT NULL,
    "low" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "leaderboard_rank_buckets_pkey" PRIMARY KEY ("project_id", "leaderboard_id", "period", "bucket"),
    CONSTRAINT "leaderboard_rank_buckets_project_id_leaderboard_id_period_fkey" FOREIGN KEY ("project_id", "leaderboard_id", "period") REFERENCES "leaderboard_periods"("project_id", "leaderboard_id", "period") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE FUNCTION leaderboard_rank_buckets_count(p_project UUID, p_board TEXT, p_period TEXT, p_bucket BIGINT, p_delta INTEGER, p_key DOUBLE PRECISION)
RETURNS VOID LANGUAGE plpgsql AS $$
BEGIN
  IF p_delta > 0 THEN
    INSERT INTO leaderboard_rank_buckets AS b (project_id, leaderboard_id, period, bucket, entries, low)
    VALUES (p_project, p_board, p_period, p_bucket, p_delta, p_key)
    ON CONFLICT (project_id, leaderboard_id, period, bucket) DO UPDATE
      SET entries = b.entries + p_delta, low = least(b.low, p_key);
  ELSE
    UPDATE leaderboard_rank_buckets SET entries = entries + p_delta
     WHERE project_id = p_project AND leaderboard_id = p_board AND period = p_period AND bucket = p_bucket;
  END IF;
END;
$$;

CREATE FUNCTION leaderboard_entries_rank_buckets() RETURNS TRIGGER LANGUAGE plpgsql AS $$
DECLARE
  v_old BIGINT;
  v_new BIGINT;
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM leaderboard_rank_buckets_count(NEW.project_id, NEW.leaderboard_id, NEW.period, leaderboard_rank_bucket(NEW.sort_key), 1, NEW.sort_key);
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    PERFORM leaderboard_rank_buckets_count(OLD.project_id, OLD.leaderboard_id, OLD.period, leaderboard_rank_bucket(OLD.sort_key), -1, OLD.sort_key);
    RETURN NULL;
  END IF;
  v_old := leaderboard_rank_bucket(OLD.sort_key);
  v_new := leaderboard_rank_bucket(NEW.sort_key);
  IF v_old = v_new THEN
    -- Same bucket: only a new lowest key moves `low`.
    UPDATE leaderboard_rank_buckets SET low = NEW.sort_key
     WHERE project_id = NEW.project_id AND leaderboard_id = NEW.leaderboard_id AND period = NEW.period AND bucket = v_new AND low > NEW.sort_key;
  ELSIF v_old < v_new THEN
    PERFORM leaderboard_rank_buckets_count(OLD.project_id, OLD.leaderboard_id, OLD.period, v_old, -1, OLD.sort_key);
    PERFORM leaderboard_rank_buckets_count(NEW.project_id, NEW.leaderboard_id, NEW.period, v_new, 1, NEW.sort_key);
  ELSE
    PERFORM leaderboard_rank_buckets_count(NEW.project_id, NEW.leaderboard_id, NEW.period, v_new, 1, NEW.sort_key);
    PERFORM leaderboard_rank_buckets_count(OLD.project_id, OLD.leaderboard_id, OLD.period, v_old, -1, OLD.sort_key);
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER leaderboard_entries_rank_buckets
  AFTER INSERT OR DELETE OR UPDATE OF sort_key ON leaderboard_entries
  FOR EACH ROW EXECUTE FUNCTION leaderboard_entries_rank_buckets();

-- The boards that exist already.
INSERT INTO leaderboard_rank_buckets (project_id, leaderboard_id, period, bucket, entries, low)
SELECT project_id, leaderboard_id, period, leaderboard_rank_bucket(sort_key), count(*)::int, min(sort_key)
  FROM leaderboard_entries
 GROUP BY 1, 2, 3, 4;
