import { createHash } from "node:crypto";
import { pool } from "../../db";
import type { JsonValue } from "../json-value";
import { withEvents } from "../webhooks/emit";
import { emitEvents } from "../webhooks/events";
import { audienceSql, Params } from "./audience-sql";
import type { ExperimentDef, OverrideDef, RemoteConfigDefs } from "./definitions";
import { valueProblem } from "./schemas";

/**
 * A player's resolved config. Per key: the default, unless an override applies (enabled, inside
 * its window at `now`, for everyone or an audience the player is in, and the player's bucket inside
 * its rollout) — the highest priority wins, ties the newest. Then each running experiment the
 * player is in sets its variant's values, over any override (the experiment started first wins
 * a key two experiments set). The audiences that matter are evaluated in one statement.
 */

export const BUCKETS = 10_000;

/** Stable: uint32 of the first 4 bytes of sha256(salt + ":" + playerId), mod 10,000. */
export function bucketOf(salt: string, playerId: string): number {
  return createHash("sha256").update(`${salt}:${playerId}`).digest().readUInt32BE(0) % BUCKETS;
}

/** Stable across re-creation by config as code: the key and the audience, not the row's id. */
export const overrideSalt = (o: { key: string; audienceId: string | null }) => `${o.key}:${o.audienceId ?? "*"}`;
export const experimentSalt = (experimentId: string) => `experiment:${experimentId}`;

/** In the rollout iff bucket < percent × 100: growing the percentage keeps everyone who was in. */
export const inRollout = (o: { key: string; audienceId: string | null; rolloutPercent: number }, playerId: string) =>
  bucketOf(overrideSalt(o), playerId) < o.rolloutPercent * (BUCKETS / 100);

/** Variants take consecutive ranges of the buckets in proportion to their weights. */
export function variantFor(e: Pick<ExperimentDef, "id" | "variants">, playerId: string): string | undefined {
  const total = e.variants.reduce((sum, v) => sum + v.weight, 0);
  const bucket = bucketOf(experimentSalt(e.id), playerId);
  let upTo = 0;
  for (const v of e.variants) {
    upTo += v.weight;
    if (bucket < Math.floor((upTo * BUCKETS) / total)) return v.id;
  }
  return e.variants[e.variants.length - 1]?.id;
}

export const isLive = (o: OverrideDef, now: Date) => o.enabled && (!o.startsAt || o.startsAt <= now) && (!o.endsAt || now < o.endsAt);

export type Resolution = {
  values: Record<string, JsonValue>;
  assignments: Record<string, string>;
  /** Audiences evaluated for this player and matched. */
  matchedAudiences: string[];
  /** Per key: the override that set it (null: the default or an experiment). */
  winningOverride: Record<string, string | null>;
  /** Per key set by an experiment: which one. */
  fromExperiment: Record<string, string>;
  /** Assignments made by this resolution (not stored yet). */
  newAssignments: Record<string, string>;
};

type PlayerFacts = { found: boolean; matched: Set<string>; assigned: Record<string, string> };

/** One statement: every audience in `audienceIds`, and the player's stored assignments. */
async function playerFacts(
  projectId: string,
  playerId: string,
  audienceIds: string[],
  defs: RemoteConfigDefs,
  now: Date,
): Promise<PlayerFacts> {
  const params = new Params([playerId, projectId]);
  const nowRef = params.lazy(now.toISOString(), "timestamptz");
  const columns = audienceIds.map((id, i) => {
    const audience = defs.audiences.get(id);
    return `${audience ? audienceSql(audience.rules, params, nowRef) : "false"} AS a${i}`;
  });
  const { rows } = await pool().query<Record<string, unknown>>(
    `SELECT ${[
      ...columns,
      `(SELECT coalesce(json_object_agg(ea.experiment_id, ea.variant), '{}'::json) FROM experiment_assignments ea
         WHERE ea.project_id = p.project_id AND ea.player_id = p.id) AS assigned`,
    ].join(", ")}
       FROM players p WHERE p.id = $1 AND p.project_id = $2`,
    params.values,
  );
  const row = rows[0];
  if (!row) return { found: false, matched: new Set(), assigned: {} };
  return {
    found: true,
    matched: new Set(audienceIds.filter((_, i) => row[`a${i}`] === true)),
    assigned: (row.assigned ?? {}) as Record<string, string>,
  };
}

/**
 * `allAudiences`: evaluate every audience of the project (the support view), not only those a
 * live override or running experiment needs. Without any such audience and no running experiment,
 * no query is made at all.
 */
export async function resolveConfig(o: {
  projectId: string;
  playerId: string;
  defs: RemoteConfigDefs;
  now: Date;
  allAudiences?: boolean;
}): Promise<Resolution & { found: boolean }> {
  const { defs, now, playerId } = o;
  const live = defs.overrides.filter((ov) => isLive(ov, now) && defs.keys.has(ov.key));
  const running = defs.experiments.filter((e) => e.status === "running");
  const needed = o.allAudiences
    ? [...defs.audiences.keys()]
    : [...new Set([...live, ...running].flatMap((x) => (x.audienceId ? [x.audienceId] : [])))];
  const facts =
    needed.length > 0 || running.length > 0 || o.allAudiences
      ? await playerFacts(o.projectId, playerId, needed, defs, now)
      : { found: true, matched: new Set<string>(), assigned: {} as Record<string, string> };

  const values: Record<string, JsonValue> = {};
  const winningOverride: Record<string, string | null> = {};
  for (const k of defs.keys.values()) {
    values[k.key] = k.defaultValue;
    winningOverride[k.key] = null;
  }
  const decided = new Set<string>();
  for (const ov of live) {
    if (decided.has(ov.key)) continue;
    if (ov.audienceId && !facts.matched.has(ov.audienceId)) continue;
    if (!inRollout(ov, playerId)) continue;
    decided.add(ov.key);
    values[ov.key] = ov.value;
    winningOverride[ov.key] = ov.id;
  }

  const assignments: Record<string, string> = {};
  const newAssignments: Record<string, string> = {};
  const fromExperiment: Record<string, string> = {};
  // Started first wins a key: apply the later ones first, the earlier ones over them.
  for (const e of running) {
    let variant = facts.assigned[e.id];
    if (variant === undefined) {
      if (e.audienceId && !facts.matched.has(e.audienceId)) continue;
      variant = variantFor(e, playerId);
      if (variant === undefined) continue;
      newAssignments[e.id] = variant;
    }
    assignments[e.id] = variant;
  }
  for (const e of [...running].reverse()) {
    const variant = e.variants.find((v) => v.id === assignments[e.id]);
    if (!variant) continue;
    for (const [key, value] of Object.entries(variant.values)) {
      const def = defs.keys.get(key);
      if (!def || valueProblem(def.type, value)) continue;
      values[key] = value;
      winningOverride[key] = null;
      fromExperiment[key] = e.id;
    }
  }
  return {
    found: facts.found,
    values,
    assignments,
    matchedAudiences: [...facts.matched].sort(),
    winningOverride,
    fromExperiment,
    newAssignments,
  };
}

/**
 * Stores first exposures. ON CONFLICT DO NOTHING: a parallel request (or an earlier one) that
 * stored a variant first wins, and its variant is what this answer reports. Each row actually
 * inserted is one `experiment.assigned` event, written in the insert's transaction (none for a
 * row another request stored, so a player's assignment is announced once); a project known to
 * have no webhook endpoint pays the one INSERT only (server/services/webhooks/emit.ts).
 */
export async function recordAssignments(
  projectId: string,
  playerId: string,
  fresh: Record<string, string>,
): Promise<Record<string, string>> {
  const ids = Object.keys(fresh);
  if (ids.length === 0) return {};
  const inserted = await withEvents(projectId, async (emitting) => {
    const { rows } = await pool().query<{ experiment_id: string; name: string; variant: string; assigned_at: Date }>(
      `WITH ins AS (
         INSERT INTO experiment_assignments (project_id, experiment_id, player_id, variant)
         SELECT $1, w.experiment_id, $2, w.variant FROM unnest($3::text[], $4::text[]) AS w(experiment_id, variant)
           JOIN experiments e ON e.project_id = $1 AND e.id = w.experiment_id
         ON CONFLICT DO NOTHING RETURNING experiment_id, variant, assigned_at
       )
       SELECT ins.experiment_id, e.name, ins.variant, ins.assigned_at
         FROM ins JOIN experiments e ON e.project_id = $1 AND e.id = ins.experiment_id`,
      [projectId, playerId, ids, ids.map((id) => fresh[id])],
    );
    if (emitting && rows.length > 0)
      await emitEvents(
        projectId,
        "experiment.assigned",
        rows.map((r) => ({
          playerId,
          data: {
            experimentId: r.experiment_id,
            experimentName: r.name,
            variant: r.variant,
            playerId,
            assignedAt: r.assigned_at.toISOString(),
          },
        })),
      );
    return rows;
  });
  const stored = Object.fromEntries(inserted.map((r) => [r.experiment_id, r.variant]));
  const lost = ids.filter((id) => stored[id] === undefined);
  if (lost.length === 0) return stored;
  // A new statement, so a new snapshot (READ COMMITTED): it sees the row that won the conflict.
  const winners = await pool().query<{ experiment_id: string; variant: string }>(
    "SELECT experiment_id, variant FROM experiment_assignments WHERE project_id = $1 AND player_id = $2 AND experiment_id = ANY($3::text[])",
    [projectId, playerId, lost],
  );
  for (const r of winners.rows) stored[r.experiment_id] = r.variant;
  return stored;
}
