/**
 * A private, real redis-server (the machine's binary) on its own port, for tests that stop and
 * restart the store without touching the Redis other test files use (e2e/support/private-services.mjs,
 * shared with `npm run chaos`).
 */
export { type PrivateRedis, privateRedis } from "./private-services.mjs";
