import { pool, transaction } from "./db";
import { env } from "./env";
import type { FinishedRequest } from "./finished-request";
import { logger } from "./log";
import { addBuckets, LATENCY_BUCKETS, latencyBucketOf } from "./services/health/quantile";

/**
 * The counts behind the dashboard's health view, kept by the request path cheaply: each answer of
 * a known project (its API key resolved) bumps a counter in memory per (project, minute, route,
 * method, status, error code) with a latency histogram, and notes (project, UTC day, player) for
 * requests made as a player. Every USAGE_FLUSH_MS the process writes what it holds in one
 * transaction — one upsert for the minute rows, one for the hour rows (histograms added
 * element-wise), one insert for the active players — so the numbers are shared by every
 * instance at the cost of a few writes per instance per flush, never one per request. At most
 * USAGE_FLUSH_MS of counts are lost when a process dies.
 *
 * The same answers are also counted per (project, minute, client version, platform) for the
 * release health view, into `release_stats` by one more upsert per resolution in the same
 * transaction. Its cardinality is bounded: versions and platforms are what the SDK headers'
 * parser accepts (≤ 32 characters of a small alphabet, else ''), and a flush holds at most
 * RELEASES_PER_FLUSH version × platform pairs per project (answers of further pairs count as '').
 */
export const MINUTE_RETENTION_HOURS = 2;
export const HOUR_RETENTION_DAYS = 8;
export const ACTIVE_DAYS_RETENTION_DAYS = 32;
/** Release hour rows: the last 7 days and the 7 days before them (the health view compares ranges). */
export const RELEASE_HOUR_RETENTION_DAYS = 15;
export const RELEASES_PER_FLUSH = 50;
/** Player-days already written by this process today: not sent again. Bounded; forgotten at a new day. */
const SEEN_LIMIT = 200_000;

type Cell = {
  projectId: string;
  minute: number;
  route: string;
  method: string;
  status: number;
  code: string;
  count: number;
  latency: number[];
};
type ReleaseCell = {
  projectId: string;
  minute: number;
  clientVersion: string;
  platform: string;
  count: number;
  errors: number;
  limited: number;
  latency: number[];
};
type ActiveDay = { projectId: string; day: string; playerId: string };
type State = {
  cells: Map<string, Cell>;
  releases: Map<string, ReleaseCell>;
  /** Per project, the version × platform pairs held since the last flush (the bound). */
  pairs: Map<string, Set<string>>;
  active: Map<string, ActiveDay>;
  seen: Set<string>;
  seenDay: string;
  timer: NodeJS.Timeout | null;
};

const holder = globalThis as typeof globalThis & { __requestStats?: State };

function state(): State {
  holder.__requestStats ??= {
    cells: new Map(),
    releases: new Map(),
    pairs: new Map(),
    active: new Map(),
    seen: new Set(),
    seenDay: "",
    timer: null,
  };
  // A state made before release counting existed (a dev server's hot reload) gains its maps.
  holder.__requestStats.releases ??= new Map();
  holder.__requestStats.pairs ??= new Map();
  return holder.__requestStats;
}

/** Called once per game API answer (RequestObservation.finish). Memory only; never throws into the request. */
export function recordRequestStats(r: FinishedRequest): void {
  if (!r.projectId) return;
  const s = state();
  const now = Date.now();
  const minute = Math.floor(now / 60_000) * 60_000;
  const key = keyOf({ projectId: r.projectId, minute, route: r.route, method: r.method, status: r.status, code: r.code });
  let cell = s.cells.get(key);
  if (!cell) {
    const { route, method, status, code } = r;
    cell = { projectId: r.projectId, minute, route, method, status, code, count: 0, latency: new Array<number>(LATENCY_BUCKETS).fill(0) };
    s.cells.set(key, cell);
  }
  cell.count += 1;
  const bucket = latencyBucketOf(r.durationMs);
  cell.latency[bucket] = (cell.latency[bucket] ?? 0) + 1;
  countRelease(s, r, r.projectId, minute, bucket);
  if (r.playerId) {
    const day = new Date(now).toISOString().slice(0, 10);
    const dayKey = `${r.projectId}\n${day}\n${r.playerId}`;
    if (!s.seen.has(dayKey)) s.active.set(dayKey, { projectId: r.projectId, day, playerId: r.playerId });
  }
  scheduleFlush(s);
}

function countRelease(s: State, r: FinishedRequest, projectId: string, minute: number, bucket: number): void {
  let { clientVersion, platform } = r;
  const pair = `${clientVersion}\n${platform}`;
  let pairs = s.pairs.get(projectId);
  if (!pairs) {
    pairs = new Set();
    s.pairs.set(projectId, pairs);
  }
  if (!pairs.has(pair)) {
    if (pairs.size >= RELEASES_PER_FLUSH) {
      clientVersion = "";
      platform = "";
    } else pairs.add(pair);
  }
  const key = releaseKeyOf({ projectId, minute, clientVersion, platform });
  let cell = s.releases.get(key);
  if (!cell) {
    cell = {
      projectId,
      minute,
      clientVersion,
      platform,
      count: 0,
      errors: 0,
      limited: 0,
      latency: new Array<number>(LATENCY_BUCKETS).fill(0),
    };
    s.releases.set(key, cell);
  }
  cell.count += 1;
  if (r.code === "RATE_LIMITED") cell.limited += 1;
  else if (r.status >= 400) cell.errors += 1;
  cell.latency[bucket] = (cell.latency[bucket] ?? 0) + 1;
}

function scheduleFlush(s: State): void {
  if (s.timer) return;
  s.timer = setTimeout(() => {
    s.timer = null;
    flushUsage().catch((error: unknown) => logger("usage").error({ reason: (error as Error).message }, "flush failed"));
  }, env().USAGE_FLUSH_MS);
  s.timer.unref();
}

/** Writes this process's counts (and forgets them); on failure they are kept for the next flush. */
export async function flushUsage(): Promise<void> {
  const s = state();
  if (s.cells.size === 0 && s.active.size === 0 && s.releases.size === 0) return;
  const cells = [...s.cells.values()];
  const releases = [...s.releases.values()];
  const active = [...s.active];
  s.cells.clear();
  s.releases.clear();
  s.pairs.clear();
  s.active.clear();
  try {
    await transaction(async () => {
      await upsertCounts(REQUEST_STATS, "MINUTE", sorted(cells));
      await upsertCounts(REQUEST_STATS, "HOUR", sorted(byHour(cells)));
      await upsertCounts(RELEASE_STATS, "MINUTE", sortedReleases(releases));
      await upsertCounts(RELEASE_STATS, "HOUR", sortedReleases(releasesByHour(releases)));
      await insertActiveDays(
        active.map(([, a]) => a).sort((a, b) => compare(`${a.projectId}${a.day}${a.playerId}`, `${b.projectId}${b.day}${b.playerId}`)),
      );
    });
  } catch (error) {
    for (const cell of cells) {
      const key = keyOf(cell);
      const kept = s.cells.get(key);
      if (kept) {
        kept.count += cell.count;
        addBuckets(kept.latency, cell.latency);
      } else s.cells.set(key, cell);
    }
    for (const cell of releases) {
      const key = releaseKeyOf(cell);
      const kept = s.releases.get(key);
      if (kept) addRelease(kept, cell);
      else s.releases.set(key, cell);
    }
    for (const [key, a] of active) s.active.set(key, a);
    scheduleFlush(s);
    throw error;
  }
  const today = new Date().toISOString().slice(0, 10);
  if (s.seenDay !== today || s.seen.size > SEEN_LIMIT) {
    s.seen.clear();
    s.seenDay = today;
  }
  for (const [key, a] of active) if (a.day === today) s.seen.add(key);
}

const keyOf = (c: Omit<Cell, "count" | "latency">) => `${c.projectId}\n${c.minute}\n${c.route}\n${c.method}\n${c.status}\n${c.code}`;
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** One order for every instance, so two flushes updating the same rows lock them in the same order (no deadlock). */
const sorted = (cells: Cell[]) => cells.sort((a, b) => compare(keyOf(a), keyOf(b)));

const releaseKeyOf = (c: Pick<ReleaseCell, "projectId" | "minute" | "clientVersion" | "platform">) =>
  `${c.projectId}\n${c.minute}\n${c.clientVersion}\n${c.platform}`;
const sortedReleases = (cells: ReleaseCell[]) => cells.sort((a, b) => compare(releaseKeyOf(a), releaseKeyOf(b)));

function addRelease(into: ReleaseCell, from: ReleaseCell): void {
  into.count += from.count;
  into.errors += from.errors;
  into.limited += from.limited;
  addBuckets(into.latency, from.latency);
}

function releasesByHour(cells: ReleaseCell[]): ReleaseCell[] {
  const hours = new Map<string, ReleaseCell>();
  for (const c of cells) {
    const hour = { ...c, minute: Math.floor(c.minute / 3_600_000) * 3_600_000 };
    const key = releaseKeyOf(hour);
    const kept = hours.get(key);
    if (kept) addRelease(kept, c);
    else hours.set(key, { ...hour, latency: [...c.latency] });
  }
  return [...hours.values()];
}

/** Several minutes of one hour are one hour row (an upsert may not touch a row twice). */
function byHour(cells: Cell[]): Cell[] {
  const hours = new Map<string, Cell>();
  for (const c of cells) {
    const hour = { ...c, minute: Math.floor(c.minute / 3_600_000) * 3_600_000 };
    const key = keyOf(hour);
    const kept = hours.get(key);
    if (kept) {
      kept.count += c.count;
      addBuckets(kept.latency, c.latency);
    } else hours.set(key, { ...hour, latency: [...c.latency] });
  }
  return [...hours.values()];
}

/**
 * A counts table (request_stats, release_stats): one row per project, resolution, bucket and the
 * table's key columns, whose counters and latency histogram a flush adds to. The statement is
 * built once per table; its values go as one array per column (unnest), in the columns' order.
 */
type StatsTable<C> = { sql: string; values: Array<(c: C) => unknown> };
type StatsCell = { projectId: string; minute: number; latency: number[] };

function statsTable<C extends StatsCell>(
  table: string,
  keys: ReadonlyArray<[column: string, type: "text" | "int", value: (c: C) => string | number]>,
  counters: ReadonlyArray<[column: string, value: (c: C) => number]>,
): StatsTable<C> {
  const columns = [...keys.map(([column, type]) => ({ column, type })), ...counters.map(([column]) => ({ column, type: "int" }))];
  const names = columns.map((c) => c.column).join(", ");
  const sql = `INSERT INTO ${table} AS s (project_id, resolution, bucket, ${names}, latency_buckets)
     SELECT v.project_id, $1::"StatResolution", to_timestamp(v.bucket / 1000.0), ${columns.map((c) => `v.${c.column}`).join(", ")}, v.latency::int[]
       FROM unnest($2::uuid[], $3::bigint[], ${columns.map((c, i) => `$${i + 4}::${c.type}[]`).join(", ")}, $${columns.length + 4}::text[])
         AS v(project_id, bucket, ${names}, latency)
     ON CONFLICT (project_id, resolution, bucket, ${keys.map(([column]) => column).join(", ")}) DO UPDATE
       SET ${counters.map(([column]) => `${column} = s.${column} + EXCLUDED.${column},`).join("\n           ")}
           latency_buckets = ARRAY(
             SELECT coalesce(a, 0) + coalesce(b, 0)
               FROM unnest(s.latency_buckets, EXCLUDED.latency_buckets) WITH ORDINALITY AS t(a, b, i) ORDER BY i)`;
  return {
    sql,
    values: [
      (c) => c.projectId,
      (c) => c.minute,
      ...keys.map(([, , value]) => value),
      ...counters.map(([, value]) => value),
      (c) => `{${c.latency.join(",")}}`,
    ],
  };
}

const REQUEST_STATS = statsTable<Cell>(
  "request_stats",
  [
    ["route", "text", (c) => c.route],
    ["method", "text", (c) => c.method],
    ["status", "int", (c) => c.status],
    ["code", "text", (c) => c.code],
  ],
  [["count", (c) => c.count]],
);

const RELEASE_STATS = statsTable<ReleaseCell>(
  "release_stats",
  [
    ["client_version", "text", (c) => c.clientVersion],
    ["platform", "text", (c) => c.platform],
  ],
  [
    ["count", (c) => c.count],
    ["errors", (c) => c.errors],
    ["limited", (c) => c.limited],
  ],
);

async function upsertCounts<C>(table: StatsTable<C>, resolution: "MINUTE" | "HOUR", cells: C[]): Promise<void> {
  if (cells.length === 0) return;
  await pool().query(table.sql, [resolution, ...table.values.map((value) => cells.map(value))]);
}

async function insertActiveDays(rows: ActiveDay[]): Promise<void> {
  if (rows.length === 0) return;
  // Only players that still exist, each under its key-share lock: a player deleted meanwhile
  // (whose deletion removes their rows here) is skipped instead of coming back as an orphan row,
  // and a deletion that starts now waits for this insert, then removes what it wrote.
  await pool().query(
    `INSERT INTO player_active_days (project_id, day, player_id)
     SELECT v.project_id, v.day, v.player_id FROM unnest($1::uuid[], $2::date[], $3::uuid[]) AS v(project_id, day, player_id)
       JOIN players p ON p.id = v.player_id AND p.project_id = v.project_id
     ORDER BY v.player_id
     FOR KEY SHARE OF p
     ON CONFLICT DO NOTHING`,
    [rows.map((r) => r.projectId), rows.map((r) => r.day), rows.map((r) => r.playerId)],
  );
}

/** Hourly (server/maintenance.ts): minute rows after 2 hours, hour rows after 8 days (release ones after 15), active days after 32. */
export async function pruneUsage(): Promise<number> {
  const minutes = await pool().query(
    `DELETE FROM request_stats WHERE resolution = 'MINUTE' AND bucket < now() - make_interval(hours => $1)`,
    [MINUTE_RETENTION_HOURS],
  );
  const hours = await pool().query(`DELETE FROM request_stats WHERE resolution = 'HOUR' AND bucket < now() - make_interval(days => $1)`, [
    HOUR_RETENTION_DAYS,
  ]);
  const days = await pool().query("DELETE FROM player_active_days WHERE day < (now() AT TIME ZONE 'UTC')::date - $1::int", [
    ACTIVE_DAYS_RETENTION_DAYS,
  ]);
  const releaseMinutes = await pool().query(
    `DELETE FROM release_stats WHERE resolution = 'MINUTE' AND bucket < now() - make_interval(hours => $1)`,
    [MINUTE_RETENTION_HOURS],
  );
  const releaseHours = await pool().query(
    `DELETE FROM release_stats WHERE resolution = 'HOUR' AND bucket < now() - make_interval(days => $1)`,
    [RELEASE_HOUR_RETENTION_DAYS],
  );
  return [minutes, hours, days, releaseMinutes, releaseHours].reduce((n, r) => n + (r.rowCount ?? 0), 0);
}
