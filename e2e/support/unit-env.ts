// Unit tests import server modules that read server/env.ts; they never connect to the app's
// database (tests that need Postgres create a scratch database of their own).
process.env.DATABASE_URL ??= "postgresql://unit-tests-do-not-connect@127.0.0.1:1/none";
process.env.JWT_SECRET ??= "unit-tests-only-secret-unit-tests-only-secret";
