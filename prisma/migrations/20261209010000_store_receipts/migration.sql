-- Real-money store purchases (App Store, Google Play, Steam), granted through the ledger exactly once.
--
-- store_products: what a store product grants. One product of ours carries its id in each store
-- (Unity IAP's catalog shape: "gems-500" is com.studio.gems500 on Apple, gems_500 on Google, item
-- 1001 on Steam); a store id names one product per project.
CREATE TABLE "store_products" (
    "project_id" UUID NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "rewards" JSONB NOT NULL,
    "apple_product_id" TEXT,
    "google_product_id" TEXT,
    "steam_item_id" TEXT,
    -- consumable: bought again and again (Google: consumed after the grant); non_consumable: once
    -- per player (Google: acknowledged).
    "kind" TEXT NOT NULL DEFAULT 'consumable',
    -- For reporting, and the amount Steam charges (InitTxn needs one): millionths of price_currency.
    "price_micros" BIGINT,
    "price_currency" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "store_products_pkey" PRIMARY KEY ("project_id", "id"),
    CONSTRAINT "store_products_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "store_products_kind_check" CHECK ("kind" IN ('consumable', 'non_consumable')),
    CONSTRAINT "store_products_price_check" CHECK (("price_micros" IS NULL) = ("price_currency" IS NULL) AND ("price_micros" IS NULL OR "price_micros" >= 0))
);
CREATE UNIQUE INDEX "store_products_apple_key" ON "store_products"("project_id", "apple_product_id");
CREATE UNIQUE INDEX "store_products_google_key" ON "store_products"("project_id", "google_product_id");
CREATE UNIQUE INDEX "store_products_steam_key" ON "store_products"("project_id", "steam_item_id");

-- store_settings: a project's account with one store. `settings` holds what is not secret (bundle
-- id, environments, package name, app id); `secret` the credential (App Store Server API key,
-- Google service account, Steam publisher key) encrypted like webhook secrets (AES-256-GCM under a
-- key derived from JWT_SECRET), shown to operators only as `secret_hint`. notification_token_hash:
-- the SHA-256 of the secret in the store's notification URL (Google's Pub/Sub push).
CREATE TABLE "store_settings" (
    "project_id" UUID NOT NULL,
    "store" TEXT NOT NULL,
    "settings" JSONB NOT NULL,
    "secret" TEXT,
    "secret_hint" TEXT,
    "secret_updated_at" TIMESTAMPTZ(3),
    "notification_token_hash" BYTEA,
    -- Refund polling (Google voided purchases, Steam GetReport): the store's time we have read up to,
    -- and when we last asked (NULL: due now — a Google notification about a refund sets it so).
    "refunds_polled_until" TIMESTAMPTZ(3),
    "refunds_polled_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "store_settings_pkey" PRIMARY KEY ("project_id", "store"),
    CONSTRAINT "store_settings_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "store_settings_store_check" CHECK ("store" IN ('apple', 'google', 'steam'))
);

-- store_transactions: every receipt a game sent and every Steam order it started, with what came of
-- it. The partial unique index is the exactly-once rule: one live row per store transaction id, so
-- the same receipt from two devices, two players or twenty parallel requests grants once (the
-- others wait on the index and find the first). Rejected receipts are kept for support, not as
-- the id's owner: a pending purchase refused now is granted when it is paid.
-- player_id is kept NULL when the player is deleted: finance keeps the sale.
CREATE TABLE "store_transactions" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "store" TEXT NOT NULL,
    "store_transaction_id" TEXT,
    "original_transaction_id" TEXT,
    "store_product_id" TEXT,
    "product_id" TEXT,
    "player_id" UUID,
    "status" TEXT NOT NULL,
    "refusal" TEXT,
    "environment" TEXT,
    "quantity" INTEGER NOT NULL DEFAULT 1,
    "price_micros" BIGINT,
    "currency" TEXT,
    "purchased_at" TIMESTAMPTZ(3),
    "evidence" JSONB NOT NULL DEFAULT '{}',
    -- Google: the purchase token's SHA-256 (voided purchases name the token); the token itself is not kept.
    "purchase_token_sha256" TEXT,
    -- Google: acknowledged or consumed at the store after the grant (a grant whose acknowledgement
    -- failed is acknowledged on the receipt's retry or by the sweep).
    "store_finished" BOOLEAN NOT NULL DEFAULT false,
    -- Google: the purchase token, sealed, kept only while the consume/acknowledge after a grant has
    -- not succeeded (the refund poll's sweep retries it, then clears it).
    "purchase_token_sealed" TEXT,
    "ledger_transaction_id" UUID,
    "refund_ledger_transaction_id" UUID,
    "refund_reason" TEXT,
    "refunded_at" TIMESTAMPTZ(3),
    -- What a refund could not take back (already spent): [{id, kind: currency | item, amount}].
    "shortfall" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "store_transactions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "store_transactions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "store_transactions_player_id_fkey" FOREIGN KEY ("player_id") REFERENCES "players"("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "store_transactions_store_check" CHECK ("store" IN ('apple', 'google', 'steam')),
    CONSTRAINT "store_transactions_status_check" CHECK ("status" IN ('pending', 'granted', 'refunded', 'rejected')),
    CONSTRAINT "store_transactions_id_check" CHECK ("status" = 'rejected' OR "store_transaction_id" IS NOT NULL)
);
CREATE UNIQUE INDEX "store_transactions_once" ON "store_transactions"("project_id", "store", "store_transaction_id") WHERE "status" <> 'rejected';
CREATE INDEX "store_transactions_project_created" ON "store_transactions"("project_id", "created_at" DESC);
CREATE INDEX "store_transactions_player" ON "store_transactions"("player_id");
CREATE INDEX "store_transactions_lookup" ON "store_transactions"("project_id", "store_transaction_id");
CREATE INDEX "store_transactions_original" ON "store_transactions"("project_id", "original_transaction_id");
CREATE INDEX "store_transactions_token" ON "store_transactions"("project_id", "purchase_token_sha256");

-- store_notifications: every notification a store sent (App Store Server Notifications V2,
-- Google's real-time developer notifications), once per notification id: a redelivery is stored
-- once and acted on once.
CREATE TABLE "store_notifications" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "store" TEXT NOT NULL,
    "notification_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "subtype" TEXT,
    "store_transaction_id" TEXT,
    "outcome" TEXT NOT NULL,
    "evidence" JSONB NOT NULL DEFAULT '{}',
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "store_notifications_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "store_notifications_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "store_notifications_once" ON "store_notifications"("project_id", "store", "notification_id");
CREATE INDEX "store_notifications_project_received" ON "store_notifications"("project_id", "received_at" DESC);
CREATE INDEX "store_notifications_transaction" ON "store_notifications"("project_id", "store", "store_transaction_id");

-- What a refund does when the player already spent what it takes back (balances never go below
-- zero: every purchase and subtraction relies on it): 'clamp' takes back what is left and records
-- the shortfall on the store transaction; 'ban' does the same and bans the player when there is one.
ALTER TABLE "projects" ADD COLUMN "refund_policy" TEXT NOT NULL DEFAULT 'clamp';
ALTER TABLE "projects" ADD CONSTRAINT "projects_refund_policy_check" CHECK ("refund_policy" IN ('clamp', 'ban'));

-- Every minute (once per cluster): fetch refunds of the projects whose poll is due (STORE_REFUND_POLL_MINUTES).
SELECT pgboss.create_queue('store-refund-poll', '{"policy":"stately"}');

ALTER TYPE "EconomyTransactionKind" ADD VALUE 'STORE_PURCHASE';
ALTER TYPE "EconomyTransactionKind" ADD VALUE 'STORE_REFUND';
