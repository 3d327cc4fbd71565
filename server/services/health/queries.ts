import { pool } from "../../db";
import { LATENCY_BUCKETS } from "./quantile";
import type { HealthRange } from "./schemas";

/**
 * The reads behind the health view, over `request_stats` (filled by server/usage.ts) and the
 * players tables. A scope is one project or the whole instance (every existing project: rows of
 * a deleted project are left to age out and never shown). Sums are float8 so an instance's week
 * of requests cannot overflow an int.
 */
export type Scope = { projectId: string } | "instance";

export type Window = { range: HealthRange; resolution: "MINUTE" | "HOUR"; stepMs: number; from: number; points: number };

const RANGES: Record<HealthRange, { resolution: "MINUTE" | "HOUR"; stepMs: number; points: number }> = {
  "1h": { resolution: "MINUTE", stepMs: 60_000, points: 60 },
  "24h": { resolution: "HOUR", stepMs: 3_600_000, points: 24 },
  "7d": { resolution: "HOUR", stepMs: 3_600_000, points: 168 },
};

/** The range's buckets: the current (still counting) one and the ones before it. */
export function windowOf(range: HealthRange, now = Date.now()): Window {
  const r = RANGES[range];
  const current = Math.floor(now / r.stepMs) * r.stepMs;
  return { range, ...r, from: current - (r.points - 1) * r.stepMs };
}

/** `WHERE` of the stats rows in the window and scope: $1 resolution, $2 from, $3 the project. */
function statsWhere(scope: Scope, w: Window): { sql: string; params: unknown[] } {
  const base = 'resolution = $1::"StatResolution" AND bucket >= $2';
  const params: unknown[] = [w.resolution, new Date(w.from)];
  if (scope === "instance") return { sql: `${base} AND project_id IN (SELECT id FROM projects)`, params };
  return { sql: `${base} AND project_id = $3`, params: [...params, scope.projectId] };
}

/** An error answer: 4xx and 5xx, except rate-limited ones (counted apart). */
const ERROR = "status >= 400 AND code <> 'RATE_LIMITED'";

export async function seriesRows(scope: Scope, w: Window) {
  const where = statsWhere(scope, w);
  const { rows } = await pool().query<{ bucket: Date; class: string; n: number }>(
    `SELECT bucket, CASE WHEN code = 'RATE_LIMITED' THEN 'limited' ELSE (status / 100)::text || 'xx' END AS class, sum(count)::float8 AS n
       FROM request_stats WHERE ${where.sql} GROUP BY 1, 2`,
    where.params,
  );
  return rows;
}

/** Per route and method: the latency histogram, and per bucket how many of its answers were errors. */
export async function routeRows(scope: Scope, w: Window) {
  const where = statsWhere(scope, w);
  const { rows } = await pool().query<{ route: string; method: string; i: number; n: number; errors: number }>(
    `SELECT route, method, u.i::int AS i, sum(u.n)::float8 AS n, coalesce(sum(u.n) FILTER (WHERE ${ERROR}), 0)::float8 AS errors
       FROM request_stats, unnest(latency_buckets) WITH ORDINALITY AS u(n, i)
      WHERE ${where.sql} AND u.i <= ${LATENCY_BUCKETS} GROUP BY 1, 2, 3`,
    where.params,
  );
  return rows;
}

export async function codeRows(scope: Scope, w: Window, limit: number) {
  const where = statsWhere(scope, w);
  const { rows } = await pool().query<{ code: string; status: number; n: number }>(
    `SELECT code, max(status) AS status, sum(count)::float8 AS n
       FROM request_stats WHERE ${where.sql} AND code <> '' GROUP BY code ORDER BY n DESC, code LIMIT ${limit}`,
    where.params,
  );
  return rows;
}

/** The instance view's per-project histograms and error counts, with the project's name. */
export async function projectRows(w: Window) {
  const where = statsWhere("instance", w);
  const { rows } = await pool().query<{ project_id: string; name: string; i: number; n: number; errors: number }>(
    `SELECT s.project_id, p.name, s.i, s.n, s.errors FROM (
       SELECT project_id, u.i::int AS i, sum(u.n)::float8 AS n, coalesce(sum(u.n) FILTER (WHERE ${ERROR}), 0)::float8 AS errors
         FROM request_stats, unnest(latency_buckets) WITH ORDINALITY AS u(n, i)
        WHERE ${where.sql} AND u.i <= ${LATENCY_BUCKETS} GROUP BY 1, 2) s
     JOIN projects p ON p.id = s.project_id`,
    where.params,
  );
  return rows;
}

/** Players: the total, and per UTC day since `fromDay` the new ones (created) and the active ones (made a request as themselves). */
export async function playerRows(scope: Scope, fromDay: string) {
  const one = scope !== "instance";
  const byProject = (column: string) => (one ? `${column} = $2` : `${column} IN (SELECT id FROM projects)`);
  const params: unknown[] = one ? [fromDay, scope.projectId] : [fromDay];
  const [total, created, active] = await Promise.all([
    pool().query<{ n: number }>(
      one ? "SELECT count(*)::float8 AS n FROM players WHERE project_id = $1" : "SELECT count(*)::float8 AS n FROM players",
      one ? [scope.projectId] : [],
    ),
    pool().query<{ day: string; n: number }>(
      `SELECT to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, count(*)::float8 AS n
         FROM players WHERE ${one ? "project_id = $2 AND " : ""}created_at >= ($1::date::timestamp AT TIME ZONE 'UTC') GROUP BY 1`,
      params,
    ),
    pool().query<{ day: string; n: number }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, count(*)::float8 AS n
         FROM player_active_days WHERE ${byProject("project_id")} AND day >= $1::date GROUP BY 1`,
      params,
    ),
  ]);
  return { total: total.rows[0]?.n ?? 0, created: created.rows, active: active.rows };
}

/** The range of equal length just before the window (the release view compares the two). */
export const previousFrom = (w: Window) => w.from - w.points * w.stepMs;

/**
 * One project's answers per client version and platform, over the window and the range before
 * it (`current` says which): counts, and the latency histogram as (i, n) rows.
 */
export async function releaseRows(projectId: string, w: Window) {
  const params = [w.resolution, new Date(previousFrom(w)), projectId, new Date(w.from)];
  const where = 'resolution = $1::"StatResolution" AND bucket >= $2 AND project_id = $3';
  const [counts, latency] = await Promise.all([
    pool().query<{ current: boolean; client_version: string; platform: string; n: number; errors: number; limited: number }>(
      `SELECT bucket >= $4 AS current, client_version, platform,
              sum(count)::float8 AS n, sum(errors)::float8 AS errors, sum(limited)::float8 AS limited
         FROM release_stats WHERE ${where} GROUP BY 1, 2, 3`,
      params,
    ),
    pool().query<{ current: boolean; client_version: string; platform: string; i: number; n: number }>(
      `SELECT bucket >= $4 AS current, client_version, platform, u.i::int AS i, sum(u.n)::float8 AS n
         FROM release_stats, unnest(latency_buckets) WITH ORDINALITY AS u(n, i)
        WHERE ${where} AND u.i <= ${LATENCY_BUCKETS} GROUP BY 1, 2, 3, 4`,
      params,
    ),
  ]);
  return { counts: counts.rows, latency: latency.rows };
}

/**
 * The audit rows that change what the game sees, newest first: remote config edits, config
 * imports (their summary row, not one per definition) and scheduled changes starting or ending.
 */
export async function markerRows(projectId: string, from: number, limit: number) {
  const { rows } = await pool().query<{
    id: string;
    action: string;
    target: string | null;
    key: string | null;
    schedule: string | null;
    changes: number | null;
    created_at: Date;
  }>(
    `SELECT id, action, target, coalesce(after->>'key', before->>'key') AS key, after->'scheduledChange'->>'name' AS schedule,
            CASE WHEN jsonb_typeof(after->'changes') = 'number' THEN (after->>'changes')::float8 END AS changes, created_at
       FROM audit_log
      WHERE project_id = $1 AND created_at >= $2
        AND (action LIKE 'remote\\_config.%' OR action IN ('config.import', 'schedule.apply', 'schedule.revert'))
      ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
    [projectId, new Date(from)],
  );
  return rows;
}
