-- One-time codes exist in clear only in the message on its way to the SMTP server.
--
-- 1. email_messages.code_sealed: the code a queued message needs for delivery, sealed
--    (AES-256-GCM, key derived from JWT_SECRET); the stored text and html hold it masked. The
--    delivery wipes it once the message is SENT, FAILED or OUTBOX.
-- 2. Codes in rows stored before: masked. The text has the code on its own line (4 spaces, 6
--    digits), the html in the <p> with letter-spacing.
-- 3. An index for the per-recipient cap (messages to one address per project per hour).
-- 4. code_guesses: wrong guesses per (project, address, purpose) across codes, with the lock and
--    the long recovery code (its HMAC) mailed to the owner when the lock trips.
ALTER TABLE "email_messages" ADD COLUMN "code_sealed" TEXT;

UPDATE "email_messages"
   SET "text" = regexp_replace("text", E'(^|\\n)    [0-9]{6}(\\s*\\n|$)', E'\\1    ••••••\\2', 'g'),
       "html" = regexp_replace("html", '(<p style="[^"]*letter-spacing[^"]*">)[0-9]{6}(</p>)', E'\\1••••••\\2', 'g')
 WHERE "text" ~ E'(^|\\n)    [0-9]{6}(\\s*\\n|$)' OR "html" ~ '<p style="[^"]*letter-spacing[^"]*">[0-9]{6}</p>';

CREATE INDEX "email_messages_project_id_to_address_created_at_idx" ON "email_messages"("project_id", "to_address", "created_at");

CREATE TABLE "code_guesses" (
    "project_id" UUID NOT NULL,
    "address" TEXT NOT NULL,
    "purpose" "CodePurpose" NOT NULL,
    "wrong" INTEGER NOT NULL DEFAULT 0,
    "trips" INTEGER NOT NULL DEFAULT 0,
    "locked_until" TIMESTAMPTZ(3),
    "recovery_hash" BYTEA,
    "recovery_expires_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "code_guesses_pkey" PRIMARY KEY ("project_id", "address", "purpose"),
    CONSTRAINT "code_guesses_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
