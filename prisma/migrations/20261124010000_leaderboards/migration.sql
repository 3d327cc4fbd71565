-- Leaderboards. Entries carry their period (computed from the board's schedule and the clock,
-- plus a reset epoch), so a reset needs no background job and archived periods stay as rows.
CREATE TYPE "LeaderboardSortOrder" AS ENUM ('DESC', 'ASC');
CREATE TYPE "LeaderboardOperator" AS ENUM ('BEST', 'LATEST', 'INCREMENT', 'DECREMENT');

CREATE TABLE "leaderboards" (
    "project_id" UUID NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "sort_order" "LeaderboardSortOrder" NOT NULL,
    "operator" "LeaderboardOperator" NOT NULL,
    "min_score" DOUBLE PRECISION,
    "max_score" DOUBLE PRECISION,
    "reset_schedule" TEXT,
    "client_writable" BOOLEAN NOT NULL DEFAULT true,
    "epoch" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "leaderboards_pkey" PRIMARY KEY ("project_id", "id"),
    CONSTRAINT "leaderboards_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- One row per period that has had an entry: the archive's table of contents, and the entry
-- count (kept by every insert and removal) so `total` is not a count over the board.
CREATE TABLE "leaderboard_periods" (
    "project_id" UUID NOT NULL,
    "leaderboard_id" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "entries" INTEGER NOT NULL DEFAULT 0,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "leaderboard_periods_pkey" PRIMARY KEY ("project_id", "leaderboard_id", "period"),
    CONSTRAINT "leaderboard_periods_project_id_leaderboard_id_fkey" FOREIGN KEY ("project_id", "leaderboard_id") REFERENCES "leaderboards"("project_id", "id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- sort_key is the score for ascending boards and its negation for descending ones, so one
-- index orders every board best first; seq (a global sequence value taken whenever the score
-- changes) breaks ties by who reached the score first.
CREATE TABLE "leaderboard_entries" (
    "project_id" UUID NOT NULL,
    "leaderboard_id" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "player_id" UUID NOT NULL,
    "score" DOUBLE PRECISION NOT NULL,
    "sort_key" DOUBLE PRECISION NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "metadata" JSONB,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "leaderboard_entries_pkey" PRIMARY KEY ("project_id", "leaderboard_id", "period", "player_id"),
    CONSTRAINT "leaderboard_entries_project_id_leaderboard_id_period_fkey" FOREIGN KEY ("project_id", "leaderboard_id", "period") REFERENCES "leaderboard_periods"("project_id", "leaderboard_id", "period") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "leaderboard_entries_player_id_fkey" FOREIGN KEY ("player_id") REFERENCES "players"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "leaderboard_entries_rank_idx" ON "leaderboard_entries"("project_id", "leaderboard_id", "period", "sort_key", "seq");
CREATE INDEX "leaderboard_entries_player_id_idx" ON "leaderboard_entries"("player_id");

-- Idempotency-Key records, per player: claimed before the change runs (so a parallel repeat
-- sees it in flight), completed with the response in the change's own transaction.
CREATE TABLE "idempotency_keys" (
    "project_id" UUID NOT NULL,
    "player_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "status" INTEGER,
    "response" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),
    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("project_id", "player_id", "key"),
    CONSTRAINT "idempotency_keys_player_id_fkey" FOREIGN KEY ("player_id") REFERENCES "players"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");
