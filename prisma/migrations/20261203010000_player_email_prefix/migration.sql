-- Operator search by the start of an e-mail: LIKE 'prefix%' uses a btree index only under the
-- C collation or with text_pattern_ops.
CREATE INDEX "players_email_prefix_idx" ON "players"("project_id", "email" text_pattern_ops);
