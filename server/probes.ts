import packageJson from "../package.json";
import { pool } from "./db";
import { shared } from "./launcher-contract.mjs";
import { limiterKind, limiterStats, pingStore } from "./ratelimit";

/**
 * The instance's probes, for load balancers, orchestrators and monitors: /api/health (the
 * report: database, rate-limit store, version), /api/health/live and /api/health/ready. Not the
 * dashboard's health view of a project's traffic, which is services/health.
 */

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

// Set by the launcher (server/launcher-contract.mjs): draining on stop, and the observer key it sends on /api/health.
const holder = shared;

/** Set by the launcher (server/cli/edge.mjs) on /api/health for callers who may see the full report. */
export const OBSERVER_HEADER = "x-gb-observer";

/**
 * The full report (version, latencies, counters) is for local probes and METRICS_TOKEN holders,
 * as the launcher decided: its header carries this process's secret. Anyone else gets the status.
 */
export function mayObserve(headerValue: string | null): boolean {
  const key = holder.__gameBackendObserverKey;
  return typeof key === "string" && headerValue === key;
}

/** Liveness: the process answers. It checks nothing else: a restart would not bring a database back. */
export function checkLiveness(): { status: "ok"; uptimeSeconds: number } {
  return { status: "ok", uptimeSeconds: Math.round(process.uptime()) };
}

export type Readiness = { status: "ready" | "draining" | "unavailable"; database: { ok: boolean; latencyMs: number } };

/**
 * Readiness: send this process traffic? No while it drains (the launcher got SIGTERM and sets the
 * flag before it stops accepting) or while the database is unreachable. A limiter store outage
 * leaves it ready: gameplay fails open by design, and /api/health reports it as degraded.
 */
export async function checkReadiness(): Promise<Readiness> {
  if (holder.__gameBackendDraining) return { status: "draining", database: { ok: true, latencyMs: 0 } };
  const database = await pingDatabase();
  return { status: database.ok ? "ready" : "unavailable", database };
}
