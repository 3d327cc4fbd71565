-- Operator dashboard sessions kept on the server, so they can end: the next-auth cookie (a JWT)
-- names its row (`sid`), and every request checks that the row is neither revoked nor expired.
-- Sign-out revokes the row (a copied cookie stops working at once), "sign out everywhere" and a
-- password change revoke the others; expires_at rolls forward while the session is used.
-- disabled_at: an instance admin disabled the operator; their sessions and tokens stop working.
-- can_create_projects: an instance admin allowed this operator to create projects (instance
-- admins always may); at most MAX_PROJECTS_PER_OPERATOR projects owned each.
CREATE TABLE "operator_sessions" (
    "id" UUID NOT NULL,
    "operator_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "user_agent" TEXT,
    "ip" TEXT,
    CONSTRAINT "operator_sessions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "operator_sessions_operator_id_fkey" FOREIGN KEY ("operator_id") REFERENCES "operators"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "operator_sessions_operator_id_idx" ON "operator_sessions"("operator_id");

ALTER TABLE "operators" ADD COLUMN "disabled_at" TIMESTAMPTZ(3);
ALTER TABLE "operators" ADD COLUMN "can_create_projects" BOOLEAN NOT NULL DEFAULT false;
