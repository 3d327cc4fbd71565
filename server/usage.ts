import { pool } from "./db";

/**
 * Requests per project and minute for the dashboard. The request path only bumps a counter in
 * memory; every FLUSH_MS this process adds its counts to `usage_minutes` in one statement, so the
 * numbers are shared by every instance (with or without Redis) at the cost of one write per
 * instance per flush, never per request. At most FLUSH_MS of counts are lost when a process dies.
 */
const FLUSH_MS = 5_000;
export const USAGE_RETENTION_HOURS = 48;

type Bucket = { requests: number; limited: number };
const holder = globalThis as typeof globalThis & { __usage?: { buckets: Map<string, Bucket>; timer: NodeJS.Timeout | null } };

function state() {
  holder.__usage ??= { buckets: new Map(), timer: null };
  return holder.__usage;
}

/** Counts one keyed request of the project: answered (`limited` false) or refused by a rate limit. */
export function countRequest(projectId: string, limited: boolean): void {
  const s = state();
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  const key = `${projectId}|${minute}`;
  const bucket = s.buckets.get(key) ?? { requests: 0, limited: 0 };
  if (limited) bucket.limited += 1;
  else bucket.requests += 1;
  s.buckets.set(key, bucket);
  if (!s.timer) {
    s.timer = setTimeout(() => {
      s.timer = null;
      flushUsage().catch((error: unknown) => console.error("[usage] flush failed:", (error as Error).message));
    }, FLUSH_MS);
    s.timer.unref();
  }
}

/** Writes this process's counts (and forgets them); on failure they are kept for the next flush. */
export async function flushUsage(): Promise<void> {
  const s = state();
  if (s.buckets.size === 0) return;
  const entries = [...s.buckets];
  s.buckets.clear();
  try {
    await pool().query(
      `INSERT INTO usage_minutes (project_id, minute, requests, limited)
       SELECT v.project_id, to_timestamp(v.minute / 1000.0), v.requests, v.limited
         FROM unnest($1::uuid[], $2::bigint[], $3::int[], $4::int[]) AS v(project_id, minute, requests, limited)
       ON CONFLICT (project_id, minute) DO UPDATE
         SET requests = usage_minutes.requests + EXCLUDED.requests, limited = usage_minutes.limited + EXCLUDED.limited`,
      [
        entries.map(([key]) => key.split("|")[0]),
        entries.map(([key]) => key.split("|")[1]),
        entries.map(([, b]) => b.requests),
        entries.map(([, b]) => b.limited),
      ],
    );
  } catch (error) {
    for (const [key, b] of entries) {
      const kept = s.buckets.get(key) ?? { requests: 0, limited: 0 };
      s.buckets.set(key, { requests: kept.requests + b.requests, limited: kept.limited + b.limited });
    }
    throw error;
  }
}

export async function pruneUsage(): Promise<number> {
  const { rowCount } = await pool().query("DELETE FROM usage_minutes WHERE minute < now() - make_interval(hours => $1)", [
    USAGE_RETENTION_HOURS,
  ]);
  return rowCount ?? 0;
}

export type UsagePoint = { minute: string; requests: number; limited: number };

/**
 * The last hour per minute and the last 24 hours per 15 minutes (average per minute), zeros
 * where nothing was counted; the current, still counting minute is included.
 */
export async function projectUsage(o: { projectId: string; now?: Date }): Promise<{ lastHour: UsagePoint[]; lastDay: UsagePoint[] }> {
  const now = o.now ?? new Date();
  const thisMinute = Math.floor(now.getTime() / 60_000) * 60_000;
  const { rows } = await pool().query<{ minute: Date; requests: number; limited: number }>(
    "SELECT minute, requests, limited FROM usage_minutes WHERE project_id = $1 AND minute > $2 ORDER BY minute",
    [o.projectId, new Date(thisMinute - 24 * 3_600_000)],
  );
  const byMinute = new Map(rows.map((r) => [r.minute.getTime(), r]));
  const lastHour: UsagePoint[] = [];
  for (let t = thisMinute - 59 * 60_000; t <= thisMinute; t += 60_000) {
    const r = byMinute.get(t);
    lastHour.push({ minute: new Date(t).toISOString(), requests: r?.requests ?? 0, limited: r?.limited ?? 0 });
  }
  const lastDay: UsagePoint[] = [];
  const step = 15 * 60_000;
  for (let start = thisMinute - 24 * 3_600_000 + 60_000; start <= thisMinute; start += step) {
    let requests = 0;
    let limited = 0;
    for (let t = start; t < start + step && t <= thisMinute; t += 60_000) {
      requests += byMinute.get(t)?.requests ?? 0;
      limited += byMinute.get(t)?.limited ?? 0;
    }
    lastDay.push({ minute: new Date(start).toISOString(), requests: Math.round(requests / 15), limited: Math.round(limited / 15) });
  }
  return { lastHour, lastDay };
}

/** Players total, new today and active today (a refresh token issued today: signed in or refreshed, UTC day). */
export async function playerCounts(o: { projectId: string }): Promise<{ total: number; newToday: number; activeToday: number }> {
  const { rows } = await pool().query<{ total: number; new_today: number; active_today: number }>(
    `SELECT (SELECT count(*)::int FROM players WHERE project_id = $1) AS total,
            (SELECT count(*)::int FROM players WHERE project_id = $1 AND created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') AS new_today,
            (SELECT count(DISTINCT s.player_id)::int FROM sessions s JOIN refresh_tokens r ON r.session_id = s.id
              WHERE s.project_id = $1 AND r.created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') AS active_today`,
    [o.projectId],
  );
  const r = rows[0];
  return { total: r?.total ?? 0, newToday: r?.new_today ?? 0, activeToday: r?.active_today ?? 0 };
}
