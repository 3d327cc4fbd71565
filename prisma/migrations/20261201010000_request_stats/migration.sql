-- The dashboard's health view. Each instance counts its game API answers in memory per
-- (project, bucket, route, method, status, error code) with a latency histogram, and adds them
-- here every few seconds: one upsert for the minute rows and one for the hour rows (the
-- histograms added element-wise). Minute rows feed the last hour, hour rows the last 24 hours
-- and 7 days; the hourly maintenance deletes minute rows after 2 hours and hour rows after 8
-- days. No foreign key: a flush must not fail because a project was deleted meanwhile (reads
-- keep to existing projects and the rows age out).
CREATE TYPE "StatResolution" AS ENUM ('MINUTE', 'HOUR');

CREATE TABLE "request_stats" (
    "project_id" UUID NOT NULL,
    "resolution" "StatResolution" NOT NULL,
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "route" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "code" TEXT NOT NULL DEFAULT '',
    "count" INTEGER NOT NULL DEFAULT 0,
    "latency_buckets" INTEGER[],
    CONSTRAINT "request_stats_pkey" PRIMARY KEY ("project_id", "resolution", "bucket", "route", "method", "status", "code")
);

-- The instance view (every project) and the pruning read by resolution and time.
CREATE INDEX "request_stats_resolution_bucket_idx" ON "request_stats"("resolution", "bucket");

-- Players who made at least one request as themselves (token, or server key + X-Player-Id)
-- per UTC day, kept 32 days.
CREATE TABLE "player_active_days" (
    "project_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "player_id" UUID NOT NULL,
    CONSTRAINT "player_active_days_pkey" PRIMARY KEY ("project_id", "day", "player_id")
);

CREATE INDEX "player_active_days_day_idx" ON "player_active_days"("day");

-- Replaced by request_stats: the same counts (rate-limited answers are status 429 with the code
-- RATE_LIMITED there), per route and status.
DROP TABLE "usage_minutes";
