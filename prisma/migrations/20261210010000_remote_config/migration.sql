-- Remote config: typed values with a default, overridden for audiences (rules over what the
-- backend knows about a player), in time windows and for a stable rollout percentage; experiments
-- split an audience into weighted variants, each with its own values.
--
-- What the SDKs tell us (X-Client-Version, X-Platform) is kept per session and, as the latest
-- known, on the player, with the last time the player was seen (sign-in or refresh), so that an
-- audience is one query over players.
ALTER TABLE "sessions" ADD COLUMN "client_version" TEXT, ADD COLUMN "platform" TEXT;
ALTER TABLE "players" ADD COLUMN "last_seen_at" TIMESTAMPTZ(3),
    ADD COLUMN "client_version" TEXT,
    ADD COLUMN "platform" TEXT,
    ADD COLUMN "country" TEXT;

-- Bumped by every change to keys, overrides, audiences or experiments: part of GET /config's ETag.
ALTER TABLE "projects" ADD COLUMN "remote_config_version" INTEGER NOT NULL DEFAULT 0;

CREATE TABLE "remote_config_keys" (
    "project_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "default_value" JSONB NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "remote_config_keys_pkey" PRIMARY KEY ("project_id", "key"),
    CONSTRAINT "remote_config_keys_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "remote_config_keys_type_check" CHECK ("type" IN ('string', 'number', 'boolean', 'json'))
);

CREATE TABLE "audiences" (
    "project_id" UUID NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    -- {all: [rule, ...]} (server/services/remote-config/schemas.ts)
    "rules" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "audiences_pkey" PRIMARY KEY ("project_id", "id"),
    CONSTRAINT "audiences_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- A value for an audience (null: every player), inside [starts_at, ends_at) when set, for
-- rollout_percent of it (stable buckets: the same player stays in as the percentage grows).
-- Among the overrides that apply, the highest priority wins.
CREATE TABLE "remote_config_overrides" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "audience_id" TEXT,
    "value" JSONB NOT NULL,
    "priority" INTEGER NOT NULL DEFAULT 0,
    "rollout_percent" INTEGER NOT NULL DEFAULT 100,
    "starts_at" TIMESTAMPTZ(3),
    "ends_at" TIMESTAMPTZ(3),
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "remote_config_overrides_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "remote_config_overrides_key_fkey" FOREIGN KEY ("project_id", "key") REFERENCES "remote_config_keys"("project_id", "key") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "remote_config_overrides_audience_fkey" FOREIGN KEY ("project_id", "audience_id") REFERENCES "audiences"("project_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "remote_config_overrides_rollout_check" CHECK ("rollout_percent" BETWEEN 0 AND 100),
    CONSTRAINT "remote_config_overrides_window_check" CHECK ("starts_at" IS NULL OR "ends_at" IS NULL OR "starts_at" < "ends_at")
);
CREATE INDEX "remote_config_overrides_project_key" ON "remote_config_overrides"("project_id", "key");

-- variants: [{id, name, weight, values: {key: value}}]; metric: what the results page measures.
CREATE TABLE "experiments" (
    "project_id" UUID NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "audience_id" TEXT,
    "status" TEXT NOT NULL DEFAULT 'draft',
    "variants" JSONB NOT NULL,
    "metric" JSONB,
    "started_at" TIMESTAMPTZ(3),
    "stopped_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "experiments_pkey" PRIMARY KEY ("project_id", "id"),
    CONSTRAINT "experiments_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "experiments_audience_fkey" FOREIGN KEY ("project_id", "audience_id") REFERENCES "audiences"("project_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "experiments_status_check" CHECK ("status" IN ('draft', 'running', 'stopped'))
);

-- A player's variant, written the first time GET /config shows it (exposure): results count from here.
CREATE TABLE "experiment_assignments" (
    "project_id" UUID NOT NULL,
    "experiment_id" TEXT NOT NULL,
    "player_id" UUID NOT NULL,
    "variant" TEXT NOT NULL,
    "assigned_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "experiment_assignments_pkey" PRIMARY KEY ("project_id", "experiment_id", "player_id"),
    CONSTRAINT "experiment_assignments_experiment_fkey" FOREIGN KEY ("project_id", "experiment_id") REFERENCES "experiments"("project_id", "id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "experiment_assignments_player_id_fkey" FOREIGN KEY ("player_id") REFERENCES "players"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "experiment_assignments_player" ON "experiment_assignments"("player_id");
