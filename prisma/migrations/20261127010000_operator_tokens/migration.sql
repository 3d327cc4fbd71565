-- Operator access tokens for scripts and the CLI (`gbo_…`, sent as `Authorization: Bearer` to
-- /api/trpc): only the SHA-256 is kept. Scoped to every project of the operator (all_projects)
-- or to project_ids, with a maximum role; instance-admin powers only when instance_admin is set
-- (and the operator is one). Audit entries made with a token name it in token_id (no foreign key:
-- the log outlives the token).
CREATE TABLE "operator_tokens" (
    "id" UUID NOT NULL,
    "operator_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "token_hash" BYTEA NOT NULL,
    "role" "MemberRole" NOT NULL,
    "all_projects" BOOLEAN NOT NULL,
    "project_ids" UUID[],
    "instance_admin" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    CONSTRAINT "operator_tokens_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "operator_tokens_operator_id_fkey" FOREIGN KEY ("operator_id") REFERENCES "operators"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "operator_tokens_token_hash_key" ON "operator_tokens"("token_hash");
CREATE INDEX "operator_tokens_operator_id_idx" ON "operator_tokens"("operator_id");

ALTER TABLE "audit_log" ADD COLUMN "token_id" UUID;
