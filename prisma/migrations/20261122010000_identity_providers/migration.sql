-- Per-project OpenID Connect identity providers for POST /auth/idp.
CREATE TABLE "identity_providers" (
    "project_id" UUID NOT NULL,
    "id" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "jwks_url" TEXT NOT NULL,
    "audience" TEXT NOT NULL,
    "algorithms" TEXT[] DEFAULT ARRAY['RS256', 'ES256']::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "identity_providers_pkey" PRIMARY KEY ("project_id", "id"),
    CONSTRAINT "identity_providers_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
