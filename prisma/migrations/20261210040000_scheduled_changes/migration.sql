-- Scheduled changes (a weekend sale): a patch of one definition of the config-as-code document,
-- applied at starts_at and, with ends_at, reverted then to "before" (the patched fields as they
-- were when it was applied). Each process's scheduler claims due rows with FOR UPDATE SKIP
-- LOCKED, so each step runs once per cluster.
CREATE TABLE "scheduled_changes" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "patch" JSONB NOT NULL,
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "ends_at" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL DEFAULT 'scheduled',
    "before" JSONB,
    "applied_at" TIMESTAMPTZ(3),
    "reverted_at" TIMESTAMPTZ(3),
    "error" TEXT,
    "created_by" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "scheduled_changes_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "scheduled_changes_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "scheduled_changes_created_by_fkey" FOREIGN KEY ("created_by") REFERENCES "operators"("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "scheduled_changes_status_check" CHECK ("status" IN ('scheduled', 'running', 'done', 'cancelled', 'failed')),
    CONSTRAINT "scheduled_changes_window_check" CHECK ("ends_at" IS NULL OR "ends_at" > "starts_at")
);

CREATE INDEX "scheduled_changes_project_starts" ON "scheduled_changes"("project_id", "starts_at");

-- The scheduler's claim: rows whose next step (apply at starts_at, revert at ends_at) is due.
CREATE INDEX "scheduled_changes_status_starts" ON "scheduled_changes"("status", "starts_at");
CREATE INDEX "scheduled_changes_status_ends" ON "scheduled_changes"("status", "ends_at");
