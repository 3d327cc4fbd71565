-- Leaderboard period closes and their rewards.
--
-- 1. leaderboards.rewards: the board's rewards table (JSONB, see server/services/leaderboards/
--    board-schemas.ts ZRewards); null: no rewards.
-- 2. leaderboard_period_closes: one row per closed period (the scheduled job's record, written in
--    the transaction that pays the rewards; its primary key makes a close happen once).
-- 3. The ledger's new kind REWARD, with the board and period it pays for. The unique index makes a
--    second reward of one player for one period impossible (NULLs never conflict: other kinds have
--    no board). A new enum value cannot be used in the transaction that adds it; nothing here does.
-- 4. The scheduled jobs' queues (pg-boss 10.4.2; "stately": at most one waiting and one running job
--    per queue, so a slow run never piles up more) and pg-boss's own cron relay queue, created here
--    because instances start pg-boss without migrating.
ALTER TABLE "leaderboards" ADD COLUMN "rewards" JSONB;

CREATE TYPE "LeaderboardPeriodCloseStatus" AS ENUM ('REWARDED', 'NO_REWARDS');

CREATE TABLE "leaderboard_period_closes" (
    "project_id" UUID NOT NULL,
    "leaderboard_id" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_by" TEXT NOT NULL,
    "closed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "entries" INTEGER NOT NULL,
    "rewards_granted" INTEGER NOT NULL DEFAULT 0,
    "rewards_skipped" INTEGER NOT NULL DEFAULT 0,
    "status" "LeaderboardPeriodCloseStatus" NOT NULL,
    CONSTRAINT "leaderboard_period_closes_pkey" PRIMARY KEY ("project_id", "leaderboard_id", "period"),
    CONSTRAINT "leaderboard_period_closes_period_fkey" FOREIGN KEY ("project_id", "leaderboard_id", "period") REFERENCES "leaderboard_periods"("project_id", "leaderboard_id", "period") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "leaderboard_period_closes_closed_at_idx" ON "leaderboard_period_closes"("closed_at");

ALTER TYPE "EconomyTransactionKind" ADD VALUE 'REWARD';
ALTER TABLE "economy_transactions" ADD COLUMN "leaderboard_id" TEXT, ADD COLUMN "period" TEXT;
CREATE UNIQUE INDEX "economy_transactions_reward_key" ON "economy_transactions"("project_id", "leaderboard_id", "period", "player_id");

SELECT pgboss.create_queue('housekeeping', '{"policy":"stately"}');
SELECT pgboss.create_queue('leaderboard-period-close', '{"policy":"stately"}');
SELECT pgboss.create_queue('__pgboss__send-it', '{"policy":"standard"}');
