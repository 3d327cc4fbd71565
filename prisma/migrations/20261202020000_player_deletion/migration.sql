-- Player account deletion (DELETE /api/v1/players/me, the dashboard's "Delete player").
--
-- 1. projects.keep_ledger_of_deleted_players: when on, a deleted player's ledger rows stay for
--    the studio's accounts, detached (player_id NULL, and the columns that could name the player
--    or their requests cleared); when off (the default) they go with the player.
-- 2. economy_transactions.player_id becomes nullable for those detached rows. The foreign key
--    stays ON DELETE CASCADE: a deletion that did not detach them removes them.
-- 3. apply_economy_change takes the player's key-share lock first. A deletion locks the
--    player's row first and then removes the wallets and inventory; a change that already held
--    a wallet row and then waited for the key-share lock of its ledger row's foreign key would
--    deadlock with it. Now every writer of a player's rows takes the player's row lock (data and
--    saves FOR UPDATE, the ledger FOR KEY SHARE) before any row of theirs, the same order as a
--    deletion. A deleted player is refused with GBE05 (PLAYER_NOT_FOUND).
--    Otherwise the function of 20261129010000_lowering_never_refused_for_max, unchanged.
ALTER TABLE "projects" ADD COLUMN "keep_ledger_of_deleted_players" BOOLEAN NOT NULL DEFAULT false;

ALTER TABLE "economy_transactions" ALTER COLUMN "player_id" DROP NOT NULL;

CREATE OR REPLACE FUNCTION apply_economy_change(
  p_project UUID,
  p_player UUID,
  p_currencies TEXT[],
  p_currency_deltas BIGINT[],
  p_currency_initial BIGINT[],
  p_currency_caps BIGINT[],
  p_items TEXT[],
  p_item_deltas BIGINT[],
  p_item_caps BIGINT[],
  p_id UUID,
  p_kind "EconomyTransactionKind",
  p_purchase TEXT,
  p_quantity INTEGER,
  p_reason TEXT,
  p_idempotency_key TEXT,
  p_request_id TEXT,
  p_actor_kind TEXT,
  p_actor_id TEXT
) RETURNS TABLE (currencies JSONB, items JSONB)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
  v_currencies JSONB := '[]';
  v_items JSONB := '[]';
  v_old BIGINT;
  v_next BIGINT;
  i INTEGER;
BEGIN
  PERFORM 1 FROM players pl WHERE pl.id = p_player AND pl.project_id = p_project FOR KEY SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'player not found' USING ERRCODE = 'GBE05', DETAIL = '{}';
  END IF;
  -- Each row: one UPDATE that applies the delta where the new value is within bounds (one new
  -- row version, the lock taken by the same statement); where it changes nothing, the row is
  -- missing (created at its starting value) or the value would leave its bounds: then the row
  -- is locked and read, and the change refused or applied.
  FOR i IN 1 .. coalesce(cardinality(p_currencies), 0) LOOP
    UPDATE wallets w SET balance = w.balance + p_currency_deltas[i], updated_at = now()
     WHERE w.project_id = p_project AND w.player_id = p_player AND w.currency_id = p_currencies[i]
       AND w.balance + p_currency_deltas[i] >= 0
       AND (p_currency_deltas[i] <= 0 OR w.balance + p_currency_deltas[i] <= p_currency_caps[i])
    RETURNING w.balance INTO v_next;
    IF NOT FOUND THEN
      INSERT INTO wallets (project_id, player_id, currency_id, balance, initial_balance)
      VALUES (p_project, p_player, p_currencies[i], p_currency_initial[i], p_currency_initial[i])
      ON CONFLICT (project_id, player_id, currency_id) DO NOTHING;
      SELECT w.balance INTO v_old FROM wallets w
       WHERE w.project_id = p_project AND w.player_id = p_player AND w.currency_id = p_currencies[i] FOR UPDATE;
      v_next := v_old + p_currency_deltas[i];
      IF v_next < 0 THEN
        RAISE EXCEPTION 'insufficient funds' USING ERRCODE = 'GBE01',
          DETAIL = json_build_object('currencyId', p_currencies[i], 'balance', v_old, 'requested', -p_currency_deltas[i])::TEXT;
      END IF;
      IF p_currency_deltas[i] > 0 AND v_next > p_currency_caps[i] THEN
        RAISE EXCEPTION 'currency max exceeded' USING ERRCODE = 'GBE02',
          DETAIL = json_build_object('currencyId', p_currencies[i], 'balance', v_old, 'max', p_currency_caps[i])::TEXT;
      END IF;
      UPDATE wallets w SET balance = v_next, updated_at = now()
       WHERE w.project_id = p_project AND w.player_id = p_player AND w.currency_id = p_currencies[i];
    END IF;
    v_currencies := v_currencies || jsonb_build_object('id', p_currencies[i], 'delta', p_currency_deltas[i], 'balance', v_next);
  END LOOP;
  FOR i IN 1 .. coalesce(cardinality(p_items), 0) LOOP
    UPDATE inventory inv SET quantity = inv.quantity + p_item_deltas[i], updated_at = now()
     WHERE inv.project_id = p_project AND inv.player_id = p_player AND inv.item_id = p_items[i]
       AND inv.quantity + p_item_deltas[i] >= 0
       AND (p_item_deltas[i] <= 0 OR inv.quantity + p_item_deltas[i] <= p_item_caps[i])
    RETURNING inv.quantity INTO v_next;
    IF NOT FOUND THEN
      INSERT INTO inventory (project_id, player_id, item_id, quantity)
      VALUES (p_project, p_player, p_items[i], 0)
      ON CONFLICT (project_id, player_id, item_id) DO NOTHING;
      SELECT inv.quantity INTO v_old FROM inventory inv
       WHERE inv.project_id = p_project AND inv.player_id = p_player AND inv.item_id = p_items[i] FOR UPDATE;
      v_next := v_old + p_item_deltas[i];
      IF v_next < 0 THEN
        RAISE EXCEPTION 'insufficient items' USING ERRCODE = 'GBE03',
          DETAIL = json_build_object('itemId', p_items[i], 'quantity', v_old, 'requested', -p_item_deltas[i])::TEXT;
      END IF;
      IF p_item_deltas[i] > 0 AND v_next > p_item_caps[i] THEN
        RAISE EXCEPTION 'item max exceeded' USING ERRCODE = 'GBE04',
          DETAIL = json_build_object('itemId', p_items[i], 'quantity', v_old, 'max', p_item_caps[i])::TEXT;
      END IF;
      UPDATE inventory inv SET quantity = v_next, updated_at = now()
       WHERE inv.project_id = p_project AND inv.player_id = p_player AND inv.item_id = p_items[i];
    END IF;
    v_items := v_items || jsonb_build_object('itemId', p_items[i], 'delta', p_item_deltas[i], 'quantity', v_next);
  END LOOP;
  INSERT INTO economy_transactions
    (id, project_id, player_id, kind, purchase_id, quantity, currencies, items, reason, idempotency_key, request_id, actor_kind, actor_id)
  VALUES (p_id, p_project, p_player, p_kind, p_purchase, p_quantity, v_currencies, v_items, p_reason, p_idempotency_key, p_request_id, p_actor_kind, p_actor_id);
  RETURN QUERY SELECT v_currencies, v_items;
END;
$$;
