-- Key rotation with an overlap, like webhook secrets: rotating a key makes a new one with the same
-- name and kind and lets the old one work until expires_at, so a game build carrying the old key
-- keeps working while the new build rolls out. An expired key is refused like a revoked one.
ALTER TABLE "api_keys" ADD COLUMN "expires_at" TIMESTAMPTZ(3);
