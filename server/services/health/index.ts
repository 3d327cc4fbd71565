import { AppError } from "../../errors";
import { projectLimit } from "../../ratelimit";
import { authorize, type OperatorContext } from "../command";
import { getProject } from "../projects";
import { addBuckets, quantileOf } from "./quantile";
import { codeRows, playerRows, projectRows, routeRows, type Scope, seriesRows, type Window, windowOf } from "./queries";
import { type HealthMarker, healthMarkers, type ReleaseHealth, releaseHealth } from "./releases";
import type { HealthRange } from "./schemas";

export type { HealthMarker, MarkerKind, ReleaseFigures, ReleaseHealth, ReleaseRow } from "./releases";

/**
 * The dashboard's health view: what the game API answered over a range (last hour per minute,
 * last 24 hours and 7 days per hour) for one project or the whole instance, and players per
 * day. Counts come from server/usage.ts (every answer of a request whose API key resolved);
 * requests without a valid key are only in Prometheus.
 */
export type StatusClass = "2xx" | "3xx" | "4xx" | "5xx" | "limited";
export const STATUS_CLASSES: StatusClass[] = ["2xx", "3xx", "4xx", "5xx", "limited"];
export type HealthPoint = { start: string } & Record<StatusClass, number>;
export type Latency = { p50: number | null; p95: number | null; p99: number | null };
export type HealthTotals = Latency & {
  requests: number;
  byClass: Record<StatusClass, number>;
  /** 4xx and 5xx answers, rate-limited ones not included. */
  errors: number;
  errorRate: number;
  serverErrorRate: number;
};
export type RouteHealth = { route: string; method: string; requests: number; errors: number; p95: number | null };
export type CodeHealth = { code: string; status: number; count: number };
export type PlayerDay = { day: string; new: number; active: number };
export type PlayersHealth = { total: number; days: PlayerDay[] };
export type RequestHealth = {
  range: HealthRange;
  from: string;
  stepSeconds: number;
  totals: HealthTotals;
  series: HealthPoint[];
  topCodes: CodeHealth[];
  topRoutes: RouteHealth[];
  players: PlayersHealth;
};
export type ProjectHealth = RequestHealth & {
  limitPerMinute: number;
  /** Per client version and platform, against the range before. */
  releases: ReleaseHealth;
  /** Config changes and scheduled events in the range, for the chart. */
  markers: HealthMarker[];
};
export type ProjectRow = { projectId: string; name: string; requests: number; errors: number; errorRate: number; p95: number | null };
export type InstanceHealth = RequestHealth & { projects: ProjectRow[] };

const TOP = 10;
const PLAYER_DAYS = 30;

/** Any member of the project (a viewer too); not a member: NOT_FOUND. */
export async function projectHealthAs(ctx: OperatorContext, o: { projectId: string; range: HealthRange }): Promise<ProjectHealth> {
  await authorize(ctx, o.projectId, "VIEWER");
  const w = windowOf(o.range);
  const [project, health, releases, markers] = await Promise.all([
    getProject(o),
    requestHealth({ projectId: o.projectId }, w),
    releaseHealth(o.projectId, w),
    healthMarkers(o.projectId, w),
  ]);
  return { ...health, limitPerMinute: projectLimit(project.plan, project.customRateLimit), releases, markers };
}

/** Instance admins only, and not through a token limited to some projects. */
export async function instanceHealthAs(ctx: OperatorContext, o: { range: HealthRange }): Promise<InstanceHealth> {
  const operator = ctx.operator;
  if (!operator) throw new AppError("MISSING_TOKEN", { message: "Sign in first." });
  if (!operator.isInstanceAdmin || operator.token?.projectIds)
    throw new AppError("FORBIDDEN", { message: "Only instance admins (with access to every project) may do this." });
  const w = windowOf(o.range);
  const [health, rows] = await Promise.all([requestHealth("instance", w), projectRows(w)]);
  const projects = new Map<string, { name: string; latency: number[]; requests: number; errors: number }>();
  for (const r of rows) {
    const p = projects.get(r.project_id) ?? { name: r.name, latency: [], requests: 0, errors: 0 };
    p.latency[r.i - 1] = r.n;
    p.requests += r.n;
    p.errors += r.errors;
    projects.set(r.project_id, p);
  }
  const table = [...projects]
    .map(([projectId, p]) => ({
      projectId,
      name: p.name,
      requests: p.requests,
      errors: p.errors,
      errorRate: p.requests ? p.errors / p.requests : 0,
      p95: quantileOf(0.95, dense(p.latency)),
    }))
    .sort((a, b) => b.requests - a.requests || b.errors - a.errors || a.name.localeCompare(b.name));
  return { ...health, projects: table };
}

async function requestHealth(scope: Scope, w: Window): Promise<RequestHealth> {
  const today = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000);
  const firstDay = new Date(today.getTime() - (PLAYER_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  const [series, routes, codes, players] = await Promise.all([
    seriesRows(scope, w),
    routeRows(scope, w),
    codeRows(scope, w, TOP),
    playerRows(scope, firstDay),
  ]);
  const points = new Map<number, HealthPoint>();
  for (let i = 0; i < w.points; i++) {
    const start = w.from + i * w.stepMs;
    points.set(start, { start: new Date(start).toISOString(), "2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0, limited: 0 });
  }
  const byClass: Record<StatusClass, number> = { "2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0, limited: 0 };
  for (const r of series) {
    const c = r.class as StatusClass;
    if (!(c in byClass)) continue;
    byClass[c] += r.n;
    const point = points.get(r.bucket.getTime());
    if (point) point[c] += r.n;
  }
  const perRoute = new Map<string, RouteHealth & { latency: number[] }>();
  const latency: number[] = [];
  for (const r of routes) {
    const key = `${r.method} ${r.route}`;
    const route = perRoute.get(key) ?? { route: r.route, method: r.method, requests: 0, errors: 0, p95: null, latency: [] };
    route.latency[r.i - 1] = r.n;
    route.requests += r.n;
    route.errors += r.errors;
    perRoute.set(key, route);
    latency[r.i - 1] = (latency[r.i - 1] ?? 0) + r.n;
  }
  const requests = STATUS_CLASSES.reduce((n, c) => n + byClass[c], 0);
  const errors = byClass["4xx"] + byClass["5xx"];
  const merged = dense(latency);
  return {
    range: w.range,
    from: new Date(w.from).toISOString(),
    stepSeconds: w.stepMs / 1000,
    totals: {
      requests,
      byClass,
      errors,
      errorRate: requests ? errors / requests : 0,
      serverErrorRate: requests ? byClass["5xx"] / requests : 0,
      p50: quantileOf(0.5, merged),
      p95: quantileOf(0.95, merged),
      p99: quantileOf(0.99, merged),
    },
    series: [...points.values()],
    topCodes: codes.map((c) => ({ code: c.code, status: c.status, count: c.n })),
    topRoutes: [...perRoute.values()]
      .sort((a, b) => b.requests - a.requests || a.route.localeCompare(b.route))
      .slice(0, TOP)
      .map(({ latency: l, ...route }) => ({ ...route, p95: quantileOf(0.95, dense(l)) })),
    players: playerDays(players, today, PLAYER_DAYS),
  };
}

/** A histogram read sparsely (only buckets that had rows) as a dense array. */
const dense = (sparse: number[]): number[] =>
  addBuckets(
    [],
    Array.from(sparse, (n) => n ?? 0),
  );

function playerDays(
  rows: { total: number; created: { day: string; n: number }[]; active: { day: string; n: number }[] },
  today: Date,
  count: number,
): PlayersHealth {
  const created = new Map(rows.created.map((r) => [r.day, r.n]));
  const active = new Map(rows.active.map((r) => [r.day, r.n]));
  const days: PlayerDay[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const day = new Date(today.getTime() - i * 86_400_000).toISOString().slice(0, 10);
    days.push({ day, new: created.get(day) ?? 0, active: active.get(day) ?? 0 });
  }
  return { total: rows.total, days };
}
