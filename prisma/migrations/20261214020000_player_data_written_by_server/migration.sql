-- Who wrote each player data value: the server (a server key, the dashboard, the server's own
-- services) or the player's client. A `data` audience rule matched any row, so a player could put
-- itself into an audience by writing the key with the public client key (and marking a key
-- protected protected only rows that already existed). Audience rules now match only values the
-- server wrote (server/services/remote-config/audience-sql.ts). Existing rows: a PROTECTED row
-- could be written last only by the server (clients cannot write or create protected rows), so it
-- counts as server-written; every other existing row counts as the client's, since who wrote it
-- was not recorded. put_player_data is the same function with the writer recorded.
ALTER TABLE "player_data" ADD COLUMN "written_by_server" BOOLEAN NOT NULL DEFAULT false;
UPDATE "player_data" SET "written_by_server" = true WHERE "visibility" = 'PROTECTED';

CREATE OR REPLACE FUNCTION put_player_data(
  p_player UUID,
  p_project UUID,
  p_key TEXT,
  p_value JSONB,
  p_size INTEGER,
  p_visibility "DataVisibility",
  p_trusted BOOLEAN,
  p_if_match INTEGER,
  p_if_none_match BOOLEAN,
  p_max_keys INTEGER,
  p_max_bytes BIGINT
) RETURNS TABLE (
  key TEXT,
  value JSONB,
  version INTEGER,
  visibility "DataVisibility",
  size_bytes INTEGER,
  created_at TIMESTAMPTZ,
  updated_at TIMESTAMPTZ,
  created BOOLEAN
) LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
  v_keys INTEGER;
  v_bytes BIGINT;
  v_exists BOOLEAN;
  v_version INTEGER;
  v_visibility "DataVisibility";
  v_size INTEGER;
  v_delta_keys INTEGER;
  v_delta_bytes BIGINT;
BEGIN
  SELECT p.data_keys, p.data_bytes INTO v_keys, v_bytes
    FROM players p WHERE p.id = p_player AND p.project_id = p_project FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'player not found' USING ERRCODE = 'GB404';
  END IF;
  SELECT d.version, d.visibility, d.size_bytes INTO v_version, v_visibility, v_size
    FROM player_data d WHERE d.player_id = p_player AND d.key = p_key AND d.project_id = p_project;
  v_exists := FOUND;
  IF v_exists AND NOT p_trusted AND v_visibility = 'PROTECTED' THEN
    RAISE EXCEPTION 'protected key' USING ERRCODE = 'GB403';
  END IF;
  IF p_if_none_match AND v_exists THEN
    RAISE EXCEPTION 'version conflict' USING ERRCODE = 'GB412',
      DETAIL = json_build_object('key', p_key, 'expectedVersion', NULL, 'currentVersion', v_version)::TEXT;
  END IF;
  IF p_if_match IS NOT NULL AND v_version IS DISTINCT FROM p_if_match THEN
    RAISE EXCEPTION 'version conflict' USING ERRCODE = 'GB412',
      DETAIL = json_build_object('key', p_key, 'expectedVersion', p_if_match, 'currentVersion', v_version)::TEXT;
  END IF;
  v_delta_keys := CASE WHEN v_exists THEN 0 ELSE 1 END;
  v_delta_bytes := p_size - COALESCE(v_size, 0);
  IF v_delta_keys > 0 AND v_keys + v_delta_keys > p_max_keys THEN
    RAISE EXCEPTION 'limit exceeded' USING ERRCODE = 'GB422',
      DETAIL = json_build_object('limit', 'keysPerPlayer', 'max', p_max_keys, 'current', v_keys)::TEXT;
  END IF;
  IF v_delta_bytes > 0 AND v_bytes + v_delta_bytes > p_max_bytes THEN
    RAISE EXCEPTION 'limit exceeded' USING ERRCODE = 'GB422',
      DETAIL = json_build_object('limit', 'bytesPerPlayer', 'max', p_max_bytes, 'current', v_bytes)::TEXT;
  END IF;
  IF v_delta_keys <> 0 OR v_delta_bytes <> 0 THEN
    UPDATE players p SET data_keys = p.data_keys + v_delta_keys, data_bytes = p.data_bytes + v_delta_bytes
     WHERE p.id = p_player AND p.project_id = p_project;
  END IF;
  RETURN QUERY
    INSERT INTO player_data AS d (player_id, project_id, key, value, visibility, size_bytes, written_by_server)
    VALUES (p_player, p_project, p_key, p_value, COALESCE(p_visibility, v_visibility, 'PRIVATE'), p_size, p_trusted)
    ON CONFLICT ON CONSTRAINT player_data_pkey DO UPDATE
      SET value = EXCLUDED.value, visibility = EXCLUDED.visibility, size_bytes = EXCLUDED.size_bytes,
          written_by_server = EXCLUDED.written_by_server, version = d.version + 1, updated_at = now()
    RETURNING d.key, d.value, d.version, d.visibility, d.size_bytes, d.created_at::TIMESTAMPTZ, d.updated_at::TIMESTAMPTZ, NOT v_exists;
END;
$$;
