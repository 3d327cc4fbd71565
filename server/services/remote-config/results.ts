import normalQuantile from "@stdlib/stats-base-dists-normal-quantile";
import tQuantile from "@stdlib/stats-base-dists-t-quantile";
import { mean, sampleVariance, sum } from "simple-statistics";
import { z } from "zod";
import { pool } from "../../db";
import { AppError } from "../../errors";
import { viewerRead } from "../command";
import { ZMetric } from "./schemas";

/**
 * What an experiment's results measure (the experiment's `metric`, ZMetric), for each assigned player from the moment of assignment (exposure) on:
 * - purchases: converted (≥ 1 economy purchase or granted production store purchase), a proportion;
 * - revenue: store price micros of granted production purchases in `currency` (USD when absent),
 *   per player (mean);
 * - retention: seen again (players.last_seen_at) at least `days` (1) after assignment, a
 *   proportion of the players assigned at least that long ago (the others cannot be back yet);
 * - scoreSubmissions: entries submitted since assignment to `leaderboardId` (every board when
 *   absent), per player (mean); a board keeps one entry per player and period, so a period with
 *   several submissions counts once;
 * - currencySpend: units of the currency `currency` spent (negative ledger deltas), per player (mean).
 */
export const ZExperimentMetric = ZMetric;
export type ExperimentMetric = z.infer<typeof ZExperimentMetric>;

export const ZExperimentResultsInput = z.strictObject({
  projectId: z.string().uuid(),
  experimentId: z.string().min(1).max(64),
  metric: ZExperimentMetric.optional(),
});

export const CONFIDENCE = 0.95;

type Interval = { low: number; high: number };
export type VariantResult = {
  id: string;
  name: string;
  /** Players assigned to the variant. */
  assigned: number;
  /** Players measured (retention: those assigned long enough ago; otherwise every assigned player). */
  measured: number;
  /** Proportions: players who converted; means: the sum over the measured players. */
  total: number;
  /** The proportion or the mean per measured player; null when nobody is measured. */
  value: number | null;
  interval: Interval | null;
  /** This variant minus the first one, with its interval; null for the first variant. */
  difference: ({ value: number } & Interval) | null;
};
export type ExperimentResults = {
  experiment: { id: string; name: string; status: string; startedAt: string | null; stoppedAt: string | null };
  metric: ExperimentMetric;
  measure: "proportion" | "mean";
  confidence: number;
  variants: VariantResult[];
};

const UPPER = 1 - (1 - CONFIDENCE) / 2;
// simple-statistics' probit is an approximation (1.9572 for 1.95996): the quantiles come from stdlib.
const z95 = () => normalQuantile(UPPER, 0, 1);

/** Wilson's score interval for x successes out of n. */
export function wilson(x: number, n: number): Interval {
  const z = z95();
  const p = x / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** Newcombe's hybrid score interval for p2 − p1, from the two Wilson intervals. */
function proportionDifference(x1: number, n1: number, x2: number, n2: number): { value: number } & Interval {
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const w1 = wilson(x1, n1);
  const w2 = wilson(x2, n2);
  const d = p2 - p1;
  return {
    value: d,
    low: d - Math.sqrt((p2 - w2.low) ** 2 + (w1.high - p1) ** 2),
    high: d + Math.sqrt((w2.high - p2) ** 2 + (p1 - w1.low) ** 2),
  };
}

/** The variance of the mean (0 for a single value: no spread is known). */
function meanVariance(values: number[]): number {
  return values.length < 2 ? 0 : sampleVariance(values) / values.length;
}

/** Mean ± t·SE with n − 1 degrees of freedom. */
function meanInterval(values: number[]): Interval {
  const m = mean(values);
  const half = values.length < 2 ? 0 : tQuantile(UPPER, values.length - 1) * Math.sqrt(meanVariance(values));
  return { low: m - half, high: m + half };
}

/** Welch's interval for mean(b) − mean(a), with the Welch–Satterthwaite degrees of freedom. */
function meanDifference(a: number[], b: number[]): { value: number } & Interval {
  const d = mean(b) - mean(a);
  const [va, vb] = [meanVariance(a), meanVariance(b)];
  const se2 = va + vb;
  if (se2 === 0 || a.length < 2 || b.length < 2) return { value: d, low: d, high: d };
  const df = se2 ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  const half = tQuantile(UPPER, df) * Math.sqrt(se2);
  return { value: d, low: d - half, high: d + half };
}

/** The metric's per-player values, grouped by variant, in one query scoped by project and experiment. */
function metricQuery(metric: ExperimentMetric): { sql: string; params: unknown[] } {
  const head = (value: string, where = "TRUE") => `
    SELECT a.variant, array_agg((${value})::float8) AS v
      FROM experiment_assignments a JOIN players p ON p.id = a.player_id AND p.project_id = a.project_id
     WHERE a.project_id = $1 AND a.experiment_id = $2 AND ${where}
     GROUP BY a.variant`;
  switch (metric.kind) {
    case "purchases":
      return {
        sql: head(`CASE WHEN EXISTS (SELECT 1 FROM economy_transactions e
                          WHERE e.project_id = a.project_id AND e.player_id = a.player_id
                            AND e.kind = 'PURCHASE' AND e.created_at >= a.assigned_at)
                     OR EXISTS (SELECT 1 FROM store_transactions t
                          WHERE t.project_id = a.project_id AND t.player_id = a.player_id AND t.status = 'granted'
                            AND t.environment = 'production' AND t.created_at >= a.assigned_at)
                   THEN 1 ELSE 0 END`),
        params: [],
      };
    case "revenue":
      return {
        sql: head(`COALESCE((SELECT sum(t.price_micros) FROM store_transactions t
                     WHERE t.project_id = a.project_id AND t.player_id = a.player_id AND t.status = 'granted'
                       AND t.environment = 'production' AND t.currency = $3 AND t.created_at >= a.assigned_at), 0)`),
        params: [metric.currency ?? "USD"],
      };
    case "retention":
      return {
        sql: head(
          "CASE WHEN p.last_seen_at >= a.assigned_at + make_interval(days => $3::int) THEN 1 ELSE 0 END",
          "a.assigned_at + make_interval(days => $3::int) <= now()",
        ),
        params: [metric.days ?? 1],
      };
    case "scoreSubmissions":
      return {
        sql: head(`(SELECT count(*) FROM leaderboard_entries l
                     WHERE l.project_id = a.project_id AND l.player_id = a.player_id AND l.updated_at >= a.assigned_at
                       AND ($3::text IS NULL OR l.leaderboard_id = $3))`),
        params: [metric.leaderboardId ?? null],
      };
    case "currencySpend":
      if (!metric.currency) throw new AppError("VALIDATION_ERROR", { message: "Say which currency's spend to measure." });
      return {
        sql: head(`COALESCE((SELECT -sum((c->>'delta')::numeric) FROM economy_transactions e,
                            jsonb_array_elements(e.currencies) c
                      WHERE e.project_id = a.project_id AND e.player_id = a.player_id AND e.created_at >= a.assigned_at
                        AND c->>'id' = $3 AND (c->>'delta')::numeric < 0), 0)`),
        params: [metric.currency],
      };
  }
}

type Row = { variant: string; v: number[] | null };

/**
 * An experiment's results per variant for a metric (the one given, else the experiment's own, else
 * purchases): counts, the proportion (Wilson interval) or the mean (Student's t interval), and
 * the difference from the first variant (Newcombe; Welch) with its interval, at 95 % confidence.
 */
export async function experimentResults(o: z.input<typeof ZExperimentResultsInput>): Promise<ExperimentResults> {
  const input = ZExperimentResultsInput.parse(o);
  const { rows } = await pool().query<{
    id: string;
    name: string;
    status: string;
    variants: unknown;
    metric: unknown;
    started_at: Date | null;
    stopped_at: Date | null;
  }>("SELECT id, name, status, variants, metric, started_at, stopped_at FROM experiments WHERE project_id = $1 AND id = $2", [
    input.projectId,
    input.experimentId,
  ]);
  const experiment = rows[0];
  if (!experiment) throw new AppError("NOT_FOUND", { message: "Experiment not found." });
  const stored = ZExperimentMetric.safeParse(experiment.metric);
  const metric = input.metric ?? (stored.success ? stored.data : { kind: "purchases" as const });
  const measure = metric.kind === "purchases" || metric.kind === "retention" ? "proportion" : "mean";

  const q = metricQuery(metric);
  const [measured, assigned] = await Promise.all([
    pool().query<Row>(q.sql, [input.projectId, input.experimentId, ...q.params]),
    pool().query<{ variant: string; n: number }>(
      "SELECT variant, count(*)::int AS n FROM experiment_assignments WHERE project_id = $1 AND experiment_id = $2 GROUP BY variant",
      [input.projectId, input.experimentId],
    ),
  ]);
  const values = new Map(measured.rows.map((r) => [r.variant, r.v ?? []]));
  const counts = new Map(assigned.rows.map((r) => [r.variant, r.n]));

  const declared = z
    .array(z.object({ id: z.string(), name: z.string().optional() }).loose())
    .catch([])
    .parse(experiment.variants);
  const names = new Map(declared.map((v) => [v.id, v.name ?? v.id]));
  // Assignments to a variant since removed from the draft still count, after the declared ones.
  for (const id of counts.keys()) if (!names.has(id)) names.set(id, id);

  let first: { values: number[] } | null = null;
  const variants: VariantResult[] = [];
  for (const [id, name] of names) {
    const vs = values.get(id) ?? [];
    const n = vs.length;
    const total = n ? sum(vs) : 0;
    let value: number | null = null;
    let interval: Interval | null = null;
    let difference: VariantResult["difference"] = null;
    if (n) {
      if (measure === "proportion") {
        value = total / n;
        interval = wilson(total, n);
      } else {
        value = mean(vs);
        interval = meanInterval(vs);
      }
    }
    if (first && n && first.values.length) {
      const base = first.values;
      if (measure === "proportion") difference = proportionDifference(sum(base), base.length, total, n);
      else difference = meanDifference(base, vs);
    }
    if (!first) first = { values: vs };
    variants.push({ id, name, assigned: counts.get(id) ?? 0, measured: n, total, value, interval, difference });
  }
  return {
    experiment: {
      id: experiment.id,
      name: experiment.name,
      status: experiment.status,
      startedAt: experiment.started_at?.toISOString() ?? null,
      stoppedAt: experiment.stopped_at?.toISOString() ?? null,
    },
    metric,
    measure,
    confidence: CONFIDENCE,
    variants,
  };
}

export const experimentResultsAs = viewerRead(experimentResults);
