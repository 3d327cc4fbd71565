-- One balance/inventory change in one round trip (was five: BEGIN, wallet locks, inventory
-- locks, write with the ledger row, COMMIT). The same steps in the same order as the transaction
-- it replaces (server/services/economy/wallet.ts): take the player's wallet rows of the
-- currencies it touches, then the inventory rows of its items, each in id order (an upsert that
-- creates a missing row at its starting value and locks an existing one); check every new value
-- against 0 and its cap (currencies first, then items, in id order; the first failure refuses
-- the whole change); write the new values and the ledger row. Errors carry the SQLSTATEs
-- GBE01 (INSUFFICIENT_FUNDS), GBE02 (CURRENCY_MAX_EXCEEDED), GBE03 (INSUFFICIENT_ITEMS),
-- GBE04 (ITEM_MAX_EXCEEDED) with their details as JSON in DETAIL. Caps are arguments: the
-- service knows the definitions (a currency's max balance, an item's max stack, else 2^53 - 1).
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
  v_balances BIGINT[] := '{}';
  v_quantities BIGINT[] := '{}';
  v_next_balances BIGINT[] := '{}';
  v_next_quantities BIGINT[] := '{}';
  v_currencies JSONB := '[]';
  v_items JSONB := '[]';
  v_next BIGINT;
  i INTEGER;
BEGIN
  IF cardinality(p_currencies) > 0 THEN
    WITH locked AS (
      INSERT INTO wallets AS w (project_id, player_id, currency_id, balance, initial_balance)
      SELECT p_project, p_player, v.id, v.initial, v.initial
        FROM unnest(p_currencies, p_currency_initial) AS v(id, initial) ORDER BY v.id
      ON CONFLICT (project_id, player_id, currency_id) DO UPDATE SET balance = w.balance
      RETURNING w.currency_id, w.balance
    )
    SELECT array_agg(l.balance ORDER BY array_position(p_currencies, l.currency_id)) INTO v_balances FROM locked l;
  END IF;
  IF cardinality(p_items) > 0 THEN
    WITH locked AS (
      INSERT INTO inventory AS inv (project_id, player_id, item_id, quantity)
      SELECT p_project, p_player, v.id, 0 FROM unnest(p_items) AS v(id) ORDER BY v.id
      ON CONFLICT (project_id, player_id, item_id) DO UPDATE SET quantity = inv.quantity
      RETURNING inv.item_id, inv.quantity
    )
    SELECT array_agg(l.quantity ORDER BY array_position(p_items, l.item_id)) INTO v_quantities FROM locked l;
  END IF;
  FOR i IN 1 .. coalesce(cardinality(p_currencies), 0) LOOP
    v_next := v_balances[i] + p_currency_deltas[i];
    IF v_next < 0 THEN
      RAISE EXCEPTION 'insufficient funds' USING ERRCODE = 'GBE01',
        DETAIL = json_build_object('currencyId', p_currencies[i], 'balance', v_balances[i], 'requested', -p_currency_deltas[i])::TEXT;
    END IF;
    IF v_next > p_currency_caps[i] THEN
      RAISE EXCEPTION 'currency max exceeded' USING ERRCODE = 'GBE02',
        DETAIL = json_build_object('currencyId', p_currencies[i], 'balance', v_balances[i], 'max', p_currency_caps[i])::TEXT;
    END IF;
    v_next_balances := v_next_balances || v_next;
    v_currencies := v_currencies || jsonb_build_object('id', p_currencies[i], 'delta', p_currency_deltas[i], 'balance', v_next);
  END LOOP;
  FOR i IN 1 .. coalesce(cardinality(p_items), 0) LOOP
    v_next := v_quantities[i] + p_item_deltas[i];
    IF v_next < 0 THEN
      RAISE EXCEPTION 'insufficient items' USING ERRCODE = 'GBE03',
        DETAIL = json_build_object('itemId', p_items[i], 'quantity', v_quantities[i], 'requested', -p_item_deltas[i])::TEXT;
    END IF;
    IF v_next > p_item_caps[i] THEN
      RAISE EXCEPTION 'item max exceeded' USING ERRCODE = 'GBE04',
        DETAIL = json_build_object('itemId', p_items[i], 'quantity', v_quantities[i], 'max', p_item_caps[i])::TEXT;
    END IF;
    v_next_quantities := v_next_quantities || v_next;
    v_items := v_items || jsonb_build_object('itemId', p_items[i], 'delta', p_item_deltas[i], 'quantity', v_next);
  END LOOP;
  IF cardinality(p_currencies) > 0 THEN
    UPDATE wallets w SET balance = v.balance, updated_at = now()
      FROM unnest(p_currencies, v_next_balances) AS v(id, balance)
     WHERE w.project_id = p_project AND w.player_id = p_player AND w.currency_id = v.id;
  END IF;
  IF cardinality(p_items) > 0 THEN
    UPDATE inventory inv SET quantity = v.quantity, updated_at = now()
      FROM unnest(p_items, v_next_quantities) AS v(id, quantity)
     WHERE inv.project_id = p_project AND inv.player_id = p_player AND inv.item_id = v.id;
  END IF;
  INSERT INTO economy_transactions
    (id, project_id, player_id, kind, purchase_id, quantity, currencies, items, reason, idempotency_key, request_id, actor_kind, actor_id)
  VALUES (p_id, p_project, p_player, p_kind, p_purchase, p_quantity, v_currencies, v_items, p_reason, p_idempotency_key, p_request_id, p_actor_kind, p_actor_id);
  RETURN QUERY SELECT v_currencies, v_items;
END;
$$;
