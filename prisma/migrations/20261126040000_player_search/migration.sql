-- Operator search over players: display names by trigram (any part of the name, case-insensitive,
-- served by the index instead of a scan), identities by subject across providers.
-- pg_trgm ships with PostgreSQL (contrib) and is a trusted extension: a database owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX "players_display_name_trgm_idx" ON "players" USING GIN ("display_name" gin_trgm_ops);
CREATE INDEX "identities_project_id_subject_idx" ON "identities"("project_id", "subject");
