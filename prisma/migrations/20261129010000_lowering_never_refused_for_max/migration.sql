-- A change that lowers a balance or a stack is never refused for the maximum (was: a subtract
-- from a balance above a max the operator has since lowered failed CURRENCY_MAX_EXCEEDED, so
-- the player's coins were frozen until something else brought them under it). The cap is
-- checked only where the value goes up; the floor of 0 everywhere. Otherwise the function of
-- 20261128020000_apply_economy_change, unchanged.
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
