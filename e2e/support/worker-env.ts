import { inject } from "vitest";

// Test files call services directly (to create projects, keys, players) against the same
// database the app under test uses. server/env.ts reads these lazily.
process.env.DATABASE_URL = inject("databaseUrl");
process.env.DATA_DIR = inject("dataDir");
process.env.JWT_SECRET = inject("jwtSecret");
process.env.DATABASE_POOL_SIZE = "4";
if (inject("redisUrl")) process.env.REDIS_URL = inject("redisUrl");
process.env.RATE_LIMIT_WINDOW_SECONDS = String(inject("rateLimitWindowSeconds"));
