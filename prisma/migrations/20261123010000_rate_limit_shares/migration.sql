-- Shares of the project budget, per player and per client IP; NULL means the default derived
-- from the plan (server/ratelimit/shares.ts).
ALTER TABLE "projects" ADD COLUMN "player_rate_limit" INTEGER;
ALTER TABLE "projects" ADD COLUMN "ip_rate_limit" INTEGER;

-- Addresses a player signed in from with the right password: while their account is under a
-- distributed guessing attack, e-mail login stays open from these (SHA-256 of the address).
CREATE TABLE "login_known_ips" (
    "player_id" UUID NOT NULL,
    "ip_hash" BYTEA NOT NULL,
    "last_success_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "login_known_ips_pkey" PRIMARY KEY ("player_id", "ip_hash"),
    CONSTRAINT "login_known_ips_player_id_fkey" FOREIGN KEY ("player_id") REFERENCES "players"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
