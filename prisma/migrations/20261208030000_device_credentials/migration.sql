-- Recoverable anonymous players: POST /auth/anonymous with a `deviceSecret` (32+ random bytes the
-- device keeps) signs in the player that secret created, also after its sessions were revoked.
-- Only the secret's SHA-256 is stored; the primary key makes it unique per project (two devices
-- presenting one new secret at once create one player: the loser's insert does nothing), the
-- unique player_id keeps one per player, and the player's deletion removes it (cascade).
CREATE TABLE "device_credentials" (
    "project_id" UUID NOT NULL,
    "secret_hash" BYTEA NOT NULL,
    "player_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "device_credentials_pkey" PRIMARY KEY ("project_id", "secret_hash"),
    CONSTRAINT "device_credentials_player_id_fkey" FOREIGN KEY ("player_id") REFERENCES "players"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "device_credentials_player_id_key" ON "device_credentials"("player_id");
