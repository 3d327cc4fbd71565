-- Release health: the game API's answers per project, bucket (minute or hour), client version and
-- platform (X-Client-Version and X-Platform as server/identity/client-info.ts parses them; absent
-- or malformed: ''), with ok / error / rate-limited counts and a latency histogram. A table of its
-- own so request_stats keeps its cardinality: the same usage flush (server/usage.ts) writes one
-- more upsert per resolution here. Cardinality is bounded by the parser (≤ 32 characters of a
-- small alphabet) and by the flush (at most 50 version × platform pairs per project per flush;
-- more count as ''). Minute rows are kept 2 hours, hour rows 15 days (the last 7 days and the 7
-- before them). No foreign key, as for request_stats: rows of a deleted project age out.
CREATE TABLE "release_stats" (
    "project_id" UUID NOT NULL,
    "resolution" "StatResolution" NOT NULL,
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "client_version" TEXT NOT NULL DEFAULT '',
    "platform" TEXT NOT NULL DEFAULT '',
    "count" INTEGER NOT NULL DEFAULT 0,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "limited" INTEGER NOT NULL DEFAULT 0,
    "latency_buckets" INTEGER[],
    CONSTRAINT "release_stats_pkey" PRIMARY KEY ("project_id", "resolution", "bucket", "client_version", "platform")
);

-- The pruning reads by resolution and time.
CREATE INDEX "release_stats_resolution_bucket_idx" ON "release_stats"("resolution", "bucket");
