-- The economy: definitions per project, per-player wallets and inventories, and an append-only
-- ledger. Amounts are 64-bit integers; the API keeps them within 2^53 - 1 (exact in JSON).
CREATE TYPE "EconomyTransactionKind" AS ENUM ('ADD', 'SUBTRACT', 'PURCHASE', 'GRANT', 'REVOKE');

CREATE TABLE "currencies" (
    "project_id" UUID NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "initial_balance" BIGINT NOT NULL DEFAULT 0,
    "max_balance" BIGINT,
    "client_writable" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "currencies_pkey" PRIMARY KEY ("project_id", "id"),
    CONSTRAINT "currencies_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "currencies_initial_balance_check" CHECK ("initial_balance" >= 0),
    CONSTRAINT "currencies_max_balance_check" CHECK ("max_balance" IS NULL OR "max_balance" >= "initial_balance")
);

CREATE TABLE "items" (
    "project_id" UUID NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "max_stack" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "items_pkey" PRIMARY KEY ("project_id", "id"),
    CONSTRAINT "items_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "items_max_stack_check" CHECK ("max_stack" IS NULL OR "max_stack" >= 1)
);

-- costs / rewards: [{"currencyId", "amount"} | {"itemId", "quantity"}], at most 20 each; the
-- services check that every referenced currency and item exists.
CREATE TABLE "purchases" (
    "project_id" UUID NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "costs" JSONB NOT NULL,
    "rewards" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "purchases_pkey" PRIMARY KEY ("project_id", "id"),
    CONSTRAINT "purchases_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- A wallet row appears the first time a player's balance is read or changed, starting at the
-- currency's initial balance of that moment (kept in initial_balance: balance = initial_balance
-- + the sum of the ledger's deltas, always).
CREATE TABLE "wallets" (
    "project_id" UUID NOT NULL,
    "player_id" UUID NOT NULL,
    "currency_id" TEXT NOT NULL,
    "balance" BIGINT NOT NULL,
    "initial_balance" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "wallets_pkey" PRIMARY KEY ("project_id", "player_id", "currency_id"),
    CONSTRAINT "wallets_player_id_fkey" FOREIGN KEY ("player_id") REFERENCES "players"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "wallets_project_id_currency_id_fkey" FOREIGN KEY ("project_id", "currency_id") REFERENCES "currencies"("project_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "wallets_balance_check" CHECK ("balance" >= 0)
);

CREATE TABLE "inventory" (
    "project_id" UUID NOT NULL,
    "player_id" UUID NOT NULL,
    "item_id" TEXT NOT NULL,
    "quantity" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "inventory_pkey" PRIMARY KEY ("project_id", "player_id", "item_id"),
    CONSTRAINT "inventory_player_id_fkey" FOREIGN KEY ("player_id") REFERENCES "players"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "inventory_project_id_item_id_fkey" FOREIGN KEY ("project_id", "item_id") REFERENCES "items"("project_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "inventory_quantity_check" CHECK ("quantity" >= 0)
);

-- Append-only: nothing updates or deletes a row (deleting the player deletes their ledger).
CREATE TABLE "economy_transactions" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "player_id" UUID NOT NULL,
    "kind" "EconomyTransactionKind" NOT NULL,
    "purchase_id" TEXT,
    "quantity" INTEGER,
    "currencies" JSONB NOT NULL,
    "items" JSONB NOT NULL,
    "reason" TEXT,
    "idempotency_key" TEXT,
    "request_id" TEXT,
    "actor_kind" TEXT NOT NULL,
    "actor_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "economy_transactions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "economy_transactions_player_id_fkey" FOREIGN KEY ("player_id") REFERENCES "players"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "economy_transactions_project_id_player_id_id_idx" ON "economy_transactions"("project_id", "player_id", "id");
