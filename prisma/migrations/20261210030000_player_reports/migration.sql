-- Player reports and the moderation queue.
--
-- player_reports: one row per report a player filed against another of the same project. A
-- reporter has at most one open report per reported player (the partial unique index): reporting
-- again updates it. Operators resolve reports from the queue; the resolution says which action
-- answered them. Both players' rows cascade: a deleted account takes its reports with it.
CREATE TABLE "player_reports" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "reporter_id" UUID NOT NULL,
    "target_id" UUID NOT NULL,
    "reason" TEXT NOT NULL,
    "note" TEXT,
    "status" TEXT NOT NULL DEFAULT 'open',
    "resolution" TEXT,
    "resolution_note" TEXT,
    "resolved_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "player_reports_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "player_reports_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "player_reports_reporter_id_fkey" FOREIGN KEY ("reporter_id") REFERENCES "players"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "player_reports_target_id_fkey" FOREIGN KEY ("target_id") REFERENCES "players"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "player_reports_status_check" CHECK ("status" IN ('open', 'resolved')),
    CONSTRAINT "player_reports_resolution_check" CHECK (
        ("status" = 'open' AND "resolution" IS NULL AND "resolved_at" IS NULL) OR
        ("status" = 'resolved' AND "resolution" IN ('dismissed', 'warned', 'banned', 'entries_removed') AND "resolved_at" IS NOT NULL)
    ),
    CONSTRAINT "player_reports_not_self" CHECK ("reporter_id" <> "target_id"),
    CONSTRAINT "player_reports_note_length" CHECK (char_length("note") <= 500)
);
CREATE UNIQUE INDEX "player_reports_open" ON "player_reports"("project_id", "reporter_id", "target_id") WHERE "status" = 'open';
-- The queue: open reports of a project, grouped by reported player.
CREATE INDEX "player_reports_queue" ON "player_reports"("project_id", "status", "target_id");
-- The per-reporter limit counts a reporter's reports of the last hour.
CREATE INDEX "player_reports_reporter_created" ON "player_reports"("reporter_id", "created_at");
CREATE INDEX "player_reports_target" ON "player_reports"("target_id");

-- moderation_settings: the reasons a report may give (absent row: the defaults in
-- server/services/reports/schemas.ts).
CREATE TABLE "moderation_settings" (
    "project_id" UUID NOT NULL,
    "report_reasons" TEXT[],
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "moderation_settings_pkey" PRIMARY KEY ("project_id"),
    CONSTRAINT "moderation_settings_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
