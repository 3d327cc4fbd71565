-- The operator dashboard: instance admins (who run the installation and sell plans) and the
-- audit log of every operator mutation, written in the mutation's own transaction.
ALTER TABLE "operators" ADD COLUMN "is_instance_admin" BOOLEAN NOT NULL DEFAULT false;
UPDATE "operators" SET "is_instance_admin" = true WHERE "email" = 'admin@demo.local';

CREATE TABLE "audit_log" (
    "id" UUID NOT NULL,
    "project_id" UUID,
    "operator_id" UUID,
    "action" TEXT NOT NULL,
    "target" TEXT,
    "before" JSONB,
    "after" JSONB,
    "request_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "audit_log_operator_id_fkey" FOREIGN KEY ("operator_id") REFERENCES "operators"("id") ON DELETE SET NULL ON UPDATE CASCADE
);
CREATE INDEX "audit_log_project_id_id_idx" ON "audit_log"("project_id", "id");
