-- Support's notes and tags on a player (operators only; never shown to the player).
--
-- Notes: free text an operator writes about a player, with its author (kept as null when the
-- operator account is removed) and time. Both tables go with the player (ON DELETE CASCADE).
CREATE TABLE "player_notes" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "player_id" UUID NOT NULL,
    "author_id" UUID,
    "body" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "player_notes_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "player_notes_player_id_fkey" FOREIGN KEY ("player_id") REFERENCES "players"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "player_notes_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "operators"("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "player_notes_body_check" CHECK (char_length("body") BETWEEN 1 AND 2000)
);
CREATE INDEX "player_notes_player_id_created_at_idx" ON "player_notes"("player_id", "created_at");

-- Tags: one row per (player, tag), so the players list's tag filter is an index lookup on
-- (project, tag) and the tag list with counts one GROUP BY over it.
CREATE TABLE "player_tags" (
    "project_id" UUID NOT NULL,
    "player_id" UUID NOT NULL,
    "tag" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "player_tags_pkey" PRIMARY KEY ("player_id", "tag"),
    CONSTRAINT "player_tags_player_id_fkey" FOREIGN KEY ("player_id") REFERENCES "players"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "player_tags_tag_check" CHECK ("tag" ~ '^[a-z0-9-]{1,32}$')
);
CREATE INDEX "player_tags_project_id_tag_idx" ON "player_tags"("project_id", "tag");
