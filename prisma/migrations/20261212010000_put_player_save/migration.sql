-- One PUT of a cloud save in one round trip (was five for an update, six for a new slot: BEGIN,
-- player lock, slot read, [slot count,] write, COMMIT). The same steps in the same order as the
-- transaction it replaces: lock the player's row, then read the slot (a VOLATILE plpgsql
-- function takes a new snapshot for each statement, so this read sees whatever the lock's
-- previous holder committed), check the precondition and, for a new slot, the slot limit, then
-- write. Errors carry the SQLSTATEs GB404/GB412/GB422 and, for 412 and 422, their details as
-- JSON in DETAIL (a 412 with the server copy's metadata, so a game can offer "keep cloud / keep
-- local"); server/services/saves maps them to the API's errors. The limit is an argument: its
-- value lives in server/services/saves/schemas.ts.
CREATE OR REPLACE FUNCTION put_player_save(
  p_player UUID,
  p_project UUID,
  p_key TEXT,
  p_data JSON,
  p_meta JSONB,
  p_size INTEGER,
  p_sha256 TEXT,
  p_if_match INTEGER,
  p_if_none_match BOOLEAN,
  p_max_saves INTEGER
) RETURNS TABLE (
  key TEXT,
  version INTEGER,
  size_bytes INTEGER,
  sha256 TEXT,
  meta JSONB,
  created_at TIMESTAMPTZ,
  updated_at TIMESTAMPTZ,
  created BOOLEAN
) LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
  v_current player_saves%ROWTYPE;
  v_exists BOOLEAN;
  v_count INTEGER;
  v_expected INTEGER;
BEGIN
  PERFORM 1 FROM players p WHERE p.id = p_player AND p.project_id = p_project FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'player not found' USING ERRCODE = 'GB404';
  END IF;
  SELECT * INTO v_current FROM player_saves s WHERE s.project_id = p_project AND s.player_id = p_player AND s.key = p_key;
  v_exists := FOUND;
  IF (p_if_none_match AND v_exists) OR (p_if_match IS NOT NULL AND v_current.version IS DISTINCT FROM p_if_match) THEN
    v_expected := CASE WHEN p_if_none_match AND v_exists THEN NULL ELSE p_if_match END;
    RAISE EXCEPTION 'version conflict' USING ERRCODE = 'GB412',
      DETAIL = json_build_object(
        'conflict', json_build_object('key', p_key, 'expectedVersion', v_expected, 'currentVersion', v_current.version),
        'current', CASE WHEN v_exists THEN json_build_object(
          'key', v_current.key, 'version', v_current.version, 'size_bytes', v_current.size_bytes, 'sha256', v_current.sha256,
          'meta', v_current.meta, 'created_at', v_current.created_at, 'updated_at', v_current.updated_at) END
      )::TEXT;
  END IF;
  IF NOT v_exists THEN
    SELECT count(*)::int INTO v_count FROM player_saves s WHERE s.project_id = p_project AND s.player_id = p_player;
    IF v_count >= p_max_saves THEN
      RAISE EXCEPTION 'limit exceeded' USING ERRCODE = 'GB422',
        DETAIL = json_build_object('limit', 'savesPerPlayer', 'max', p_max_saves, 'current', v_count)::TEXT;
    END IF;
  END IF;
  RETURN QUERY
    INSERT INTO player_saves AS s (player_id, project_id, key, data, meta, size_bytes, sha256)
    VALUES (p_player, p_project, p_key, p_data, COALESCE(p_meta, v_current.meta, '{}'::jsonb), p_size, p_sha256)
    ON CONFLICT ON CONSTRAINT player_saves_pkey DO UPDATE
      SET data = EXCLUDED.data, meta = EXCLUDED.meta, size_bytes = EXCLUDED.size_bytes, sha256 = EXCLUDED.sha256,
          version = s.version + 1, updated_at = now()
    RETURNING s.key, s.version, s.size_bytes, s.sha256, s.meta, s.created_at, s.updated_at, NOT v_exists;
END;
$$;
