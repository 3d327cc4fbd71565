import "server-only";
import type { z } from "zod";
import { parseEnv, ZEnv } from "./env-schema.mjs";

/** The app's only reader of process.env, by the schema it shares with the launcher (env-schema.mjs). A bad environment fails at start, with every problem listed. */
export type Env = z.infer<typeof ZEnv> & { JWT_SECRET: string; TRANSACTION_CONCURRENCY_CHECK: "throw" | "warn" | "off" };

let cached: Env | undefined;

export function env(): Env {
  if (cached) return cached;
  const value = parseEnv(ZEnv, process.env);
  if (!value.JWT_SECRET) {
    if (value.NODE_ENV === "production") {
      throw new Error("Invalid environment:\n  JWT_SECRET: required in production (at least 32 characters)");
    }
    throw new Error("Invalid environment:\n  JWT_SECRET: required (npm start and npm run dev generate one into .data)");
  }
  const underTest = value.NODE_ENV === "test" || Boolean(process.env.VITEST);
  cached = {
    ...value,
    JWT_SECRET: value.JWT_SECRET,
    TRANSACTION_CONCURRENCY_CHECK: value.TRANSACTION_CONCURRENCY_CHECK ?? (underTest ? "throw" : "off"),
  };
  return cached;
}
