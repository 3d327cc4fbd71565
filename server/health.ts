import packageJson from "../package.json";
import { pool } from "./db";
import { limiterKind, limiterStats, pingStore } from "./ratelimit";

export type Health = {
  status: "ok" | "degraded" | "down";
  version: string;
  uptimeSeconds: number;
  database: { ok: boolean; latencyMs: number };
  limiter: { store: string; ok: boolean; latencyMs: number; failOpen: number; failClosed: number };
};

const VERSION = packageJson.version;

async function pingDatabase(): Promise<{ ok: boolean; latencyMs: number }> {
  const started = performance.now();
  try {
    await Promise.race([
      pool().query("SELECT 1"),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timeout")), 2_000)),
    ]);
    return { ok: true, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
  } catch {
    return { ok: false, latencyMs: Math.round(performance.now() - started) };
  }
}

/** Liveness and readiness: 503 (down) only when the database is unreachable. */
export async function checkHealth(): Promise<Health> {
  const [database, store] = await Promise.all([pingDatabase(), pingStore()]);
  const status = !database.ok ? "down" : store.ok ? "ok" : "degraded";
  return {
    status,
    version: VERSION,
    uptimeSeconds: Math.round(process.uptime()),
    database,
    limiter: {
      store: limiterKind(),
      ok: store.ok,
      latencyMs: store.latencyMs,
      failOpen: limiterStats.failOpen,
      failClosed: limiterStats.failClosed,
    },
  };
}
