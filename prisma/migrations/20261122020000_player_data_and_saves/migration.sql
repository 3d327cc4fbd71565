-- Per-player key/value data and cloud saves.
CREATE TYPE "DataVisibility" AS ENUM ('PRIVATE', 'PUBLIC', 'PROTECTED');

CREATE TABLE "player_data" (
    "player_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "project_id" UUID NOT NULL,
    "value" JSONB NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "visibility" "DataVisibility" NOT NULL DEFAULT 'PRIVATE',
    "size_bytes" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "player_data_pkey" PRIMARY KEY ("player_id", "key"),
    CONSTRAINT "player_data_player_id_fkey" FOREIGN KEY ("player_id") REFERENCES "players"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE TABLE "player_saves" (
    "player_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "project_id" UUID NOT NULL,
    "data" JSON NOT NULL,
    "meta" JSONB NOT NULL DEFAULT '{}',
    "version" INTEGER NOT NULL DEFAULT 1,
    "size_bytes" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "player_saves_pkey" PRIMARY KEY ("player_id", "key"),
    CONSTRAINT "player_saves_player_id_fkey" FOREIGN KEY ("player_id") REFERENCES "players"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "player_saves_player_id_updated_at_idx" ON "player_saves"("player_id", "updated_at" DESC);
