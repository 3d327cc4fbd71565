import { quantileOf } from "./quantile";
import { markerRows, previousFrom, releaseRows, type Window } from "./queries";

/**
 * Release health: a project's answers per client version and platform (X-Client-Version and
 * X-Platform, '' when absent or malformed) over a range and the range of equal length before it,
 * and the changes that may explain a difference (markers from the audit log). Errors are 4xx and
 * 5xx answers without the rate-limited ones, which are counted apart.
 */
export type ReleaseFigures = {
  requests: number;
  errors: number;
  /** errors / requests (every answer, rate-limited ones included). */
  errorRate: number;
  limited: number;
  p50: number | null;
  p95: number | null;
};
export type ReleaseRow = {
  clientVersion: string;
  platform: string;
  current: ReleaseFigures;
  previous: ReleaseFigures;
  /** current − previous; p95 null when either range has no answers. */
  delta: { requests: number; errorRate: number; p95: number | null };
};
export type ReleaseHealth = {
  from: string;
  previousFrom: string;
  /** The busiest pairs of the range (then of the range before), at most RELEASE_ROWS. */
  rows: ReleaseRow[];
  /** Pairs left out of `rows`. */
  more: number;
};
export type MarkerKind = "remote-config" | "config-import" | "schedule";
export type HealthMarker = {
  /** The audit entry's id. */
  id: string;
  at: string;
  /** The start of the chart's bucket it falls in (a `series[].start`). */
  bucket: string;
  kind: MarkerKind;
  action: string;
  label: string;
};

export const RELEASE_ROWS = 20;
export const MARKERS = 50;

const empty = () => ({ requests: 0, errors: 0, limited: 0, latency: [] as number[] });
type Tally = ReturnType<typeof empty>;

export async function releaseHealth(projectId: string, w: Window): Promise<ReleaseHealth> {
  const { counts, latency } = await releaseRows(projectId, w);
  const pairs = new Map<string, { clientVersion: string; platform: string; current: Tally; previous: Tally }>();
  const pairOf = (r: { client_version: string; platform: string }) => {
    const key = `${r.client_version}\n${r.platform}`;
    let pair = pairs.get(key);
    if (!pair) {
      pair = { clientVersion: r.client_version, platform: r.platform, current: empty(), previous: empty() };
      pairs.set(key, pair);
    }
    return pair;
  };
  for (const r of counts) {
    const t = pairOf(r)[r.current ? "current" : "previous"];
    t.requests += r.n;
    t.errors += r.errors;
    t.limited += r.limited;
  }
  for (const r of latency) {
    const t = pairOf(r)[r.current ? "current" : "previous"];
    t.latency[r.i - 1] = (t.latency[r.i - 1] ?? 0) + r.n;
  }
  const rows = [...pairs.values()]
    .sort(
      (a, b) =>
        b.current.requests - a.current.requests ||
        b.previous.requests - a.previous.requests ||
        a.clientVersion.localeCompare(b.clientVersion) ||
        a.platform.localeCompare(b.platform),
    )
    .map(({ clientVersion, platform, current, previous }) => {
      const now = figures(current);
      const before = figures(previous);
      return {
        clientVersion,
        platform,
        current: now,
        previous: before,
        delta: {
          requests: now.requests - before.requests,
          errorRate: now.errorRate - before.errorRate,
          p95: now.p95 === null || before.p95 === null ? null : now.p95 - before.p95,
        },
      };
    });
  return {
    from: new Date(w.from).toISOString(),
    previousFrom: new Date(previousFrom(w)).toISOString(),
    rows: rows.slice(0, RELEASE_ROWS),
    more: Math.max(0, rows.length - RELEASE_ROWS),
  };
}

function figures(t: Tally): ReleaseFigures {
  const histogram = Array.from(t.latency, (n) => n ?? 0);
  return {
    requests: t.requests,
    errors: t.errors,
    errorRate: t.requests ? t.errors / t.requests : 0,
    limited: t.limited,
    p50: quantileOf(0.5, histogram),
    p95: quantileOf(0.95, histogram),
  };
}

/** Config changes and scheduled events in the window, oldest first (the newest MARKERS of them). */
export async function healthMarkers(projectId: string, w: Window): Promise<HealthMarker[]> {
  const rows = await markerRows(projectId, w.from, MARKERS);
  return rows.reverse().map((r) => {
    const at = r.created_at.getTime();
    return {
      id: r.id,
      at: r.created_at.toISOString(),
      bucket: new Date(Math.floor(at / w.stepMs) * w.stepMs).toISOString(),
      kind: r.action.startsWith("schedule.") ? "schedule" : r.action === "config.import" ? "config-import" : "remote-config",
      action: r.action,
      label: markerLabel(r),
    };
  });
}

const VERBS: Record<string, string> = {
  upsert: "saved",
  delete: "deleted",
  create: "added",
  update: "changed",
  status: "started or stopped",
};

/** What an audit entry changed, in words: `Config key "shop.discount" saved`, `Scheduled change "Weekend sale" started`. */
export function markerLabel(r: {
  action: string;
  target: string | null;
  key: string | null;
  schedule: string | null;
  changes: number | null;
}) {
  const quoted = (s: string | null) => (s ? `"${s.length > 40 ? `${s.slice(0, 39)}…` : s}"` : "");
  const words = (...parts: string[]) => parts.filter(Boolean).join(" ");
  if (r.action === "schedule.apply") return words("Scheduled change", quoted(r.schedule), "started");
  if (r.action === "schedule.revert") return words("Scheduled change", quoted(r.schedule), "ended");
  if (r.action === "config.import") return r.changes === null ? "Config import" : `Config import (${r.changes} changes)`;
  const [, what = "", verb = ""] = r.action.split(".");
  const done = VERBS[verb] ?? verb;
  if (what === "override") return r.key ? words("Override of", quoted(r.key), done) : words("Config override", done);
  const noun = { key: "Config key", audience: "Audience", experiment: "Experiment" }[what] ?? "Remote config";
  return words(noun, quoted(r.target), done);
}
