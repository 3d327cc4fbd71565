-- Limited-time boards: scores are accepted from starts_at (inclusive) until ends_at (exclusive);
-- NULL leaves that side open. Reads are not limited: a finished board stays readable.
ALTER TABLE "leaderboards" ADD COLUMN "starts_at" TIMESTAMPTZ(3),
  ADD COLUMN "ends_at" TIMESTAMPTZ(3);
