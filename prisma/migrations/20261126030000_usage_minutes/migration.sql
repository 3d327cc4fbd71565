-- Requests per project and minute, for the dashboard's usage chart. The request path counts in
-- memory and each instance adds its counts here every few seconds (one statement per flush,
-- never a write per request); rows older than two days are deleted by the hourly maintenance.
CREATE TABLE "usage_minutes" (
    "project_id" UUID NOT NULL,
    "minute" TIMESTAMPTZ(3) NOT NULL,
    "requests" INTEGER NOT NULL DEFAULT 0,
    "limited" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "usage_minutes_pkey" PRIMARY KEY ("project_id", "minute")
);
