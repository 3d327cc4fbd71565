import { z } from "zod";
import { uuidv7 } from "../../crypto";
import { pool } from "../../db";
import type { PlanName } from "../../ratelimit/plans";
import { ZJsonValue } from "../json-value";
import { readRemoteConfig } from "./definitions";
import { CONFIG_CAPS, type ConfigShape, capBreach, configFootprint } from "./limits";
import {
  type ConfigType,
  canonicalJson,
  EXPERIMENT_STATUSES,
  type ExperimentStatus,
  sameJson,
  valueProblem,
  ZAudienceId,
  ZAudienceRules,
  ZConfigKeyId,
  ZConfigType,
  ZExperimentId,
  ZMetric,
  ZVariant,
  ZVariantId,
} from "./schemas";

/**
 * Remote config in the configuration document (server/services/config): `remoteConfig.keys` (each
 * key with its overrides), `audiences` and `experiments`. Each section is optional (absent: the
 * project's are left as they are) and, present, the whole set. Overrides have no id in the
 * document: a key's overrides are replaced as a list, and their rollout buckets stay the same
 * because they are salted with the key and the audience, not the row.
 */

const ISO = z.iso.datetime({ offset: true });

export const ZConfigOverride = z.strictObject({
  audienceId: ZAudienceId.nullable(),
  value: ZJsonValue,
  priority: z.number().int().min(-1000).max(1000),
  rolloutPercent: z.number().int().min(0).max(100),
  startsAt: ISO.nullable(),
  endsAt: ISO.nullable(),
  enabled: z.boolean(),
});
export const ZConfigRemoteKey = z.strictObject({
  key: ZConfigKeyId,
  type: ZConfigType,
  default: ZJsonValue,
  description: z.string().max(500),
  overrides: z
    .array(ZConfigOverride)
    .max(100)
    .meta({ description: "Highest priority first; among equal priorities the first listed wins." }),
});
export const ZConfigRemoteConfig = z
  .strictObject({ keys: z.array(ZConfigRemoteKey).max(1000) })
  .optional()
  .meta({
    description: "Remote config keys with their overrides (added after version 1). Absent: left as they are; present: the whole set.",
  });
export const ZConfigAudience = z.strictObject({
  id: ZAudienceId,
  name: z.string().min(1).max(100),
  description: z.string().max(500),
  rules: ZAudienceRules,
});
export const ZConfigAudiences = z
  .array(ZConfigAudience)
  .max(1000)
  .optional()
  .meta({ description: "Player audiences for remote config (added after version 1). Absent: left as they are." });
export const ZConfigExperiment = z.strictObject({
  id: ZExperimentId,
  name: z.string().min(1).max(100),
  description: z.string().max(500),
  audienceId: ZAudienceId.nullable(),
  status: z.enum(EXPERIMENT_STATUSES),
  variants: z
    .array(
      z.strictObject({
        id: ZVariantId,
        name: z.string().min(1).max(100),
        weight: ZVariant.shape.weight,
        values: z.record(ZConfigKeyId, ZJsonValue),
      }),
    )
    .min(2)
    .max(10),
  metric: ZMetric.nullable(),
});
export const ZConfigExperiments = z
  .array(ZConfigExperiment)
  .max(100)
  .optional()
  .meta({ description: "Experiments (added after version 1). Absent: left as they are. Variants change only in draft." });

type ConfigOverride = z.infer<typeof ZConfigOverride>;
export type ConfigRemoteKey = z.infer<typeof ZConfigRemoteKey>;
export type ConfigAudience = z.infer<typeof ZConfigAudience>;
export type ConfigExperiment = z.infer<typeof ZConfigExperiment>;
export type RemoteConfigSections = {
  remoteConfig?: { keys: ConfigRemoteKey[] };
  audiences?: ConfigAudience[];
  experiments?: ConfigExperiment[];
};
export const REMOTE_CONFIG_KINDS = ["audiences", "remoteConfig", "experiments"] as const;
export type RemoteConfigKind = (typeof REMOTE_CONFIG_KINDS)[number];

type Entry = { id: string } & Record<string, unknown>;
type KindDiff = {
  created: Array<{ id: string }>;
  changed: Array<{ id: string; fields: Array<{ field: string; before: unknown; after: unknown }> }>;
  deleted: Array<{ id: string }>;
};
type Refusal = {
  kind: RemoteConfigKind;
  id: string;
  action: "create" | "change" | "delete";
  code: string;
  message: string;
  details?: Record<string, unknown>;
};

const byId = <T extends { id: string }>(list: T[]) => [...list].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
/** Highest priority first, stable: the document's order decides among equals. */
const byPrecedence = (list: ConfigOverride[]) =>
  list
    .map((o, i) => ({ o, i }))
    .sort((a, b) => b.o.priority - a.o.priority || a.i - b.i)
    .map((x) => x.o);

export async function exportRemoteConfig(projectId: string): Promise<Required<RemoteConfigSections>> {
  const defs = await readRemoteConfig(projectId);
  return {
    remoteConfig: {
      keys: [...defs.keys.values()].map((k) => ({
        key: k.key,
        type: k.type,
        default: k.defaultValue,
        description: k.description,
        // defs.overrides is already in precedence order.
        overrides: defs.overrides
          .filter((o) => o.key === k.key)
          .map((o) => ({
            audienceId: o.audienceId,
            value: o.value,
            priority: o.priority,
            rolloutPercent: o.rolloutPercent,
            startsAt: o.startsAt?.toISOString() ?? null,
            endsAt: o.endsAt?.toISOString() ?? null,
            enabled: o.enabled,
          })),
      })),
    },
    audiences: [...defs.audiences.values()].map((a) => ({ id: a.id, name: a.name, description: a.description, rules: a.rules })),
    experiments: byId(defs.experiments).map((e) => ({
      id: e.id,
      name: e.name,
      description: e.description,
      audienceId: e.audienceId,
      status: e.status,
      variants: e.variants.map((v) => ({ id: v.id, name: v.name, weight: v.weight, values: v.values ?? {} })),
      metric: e.metric,
    })),
  };
}

/** What the project has, and what it would have after the import (an absent section: what it has). */
export function remoteConfigEntries(
  current: RemoteConfigSections,
  document: RemoteConfigSections,
): Record<RemoteConfigKind, { current: Entry[]; desired: Entry[] }> {
  const keys = (s: RemoteConfigSections) =>
    (s.remoteConfig?.keys ?? []).map(({ key, ...rest }) => ({ id: key, ...rest, overrides: byPrecedence(rest.overrides) }));
  const pick = <K extends keyof RemoteConfigSections>(k: K) => document[k] ?? current[k];
  // Canonical key order on both sides: what jsonb gives back is compared with what a document says.
  const entries = (list: unknown[]) => list.map((e) => canonicalJson(e) as Entry);
  return {
    audiences: { current: entries(current.audiences ?? []), desired: entries(pick("audiences") ?? []) },
    remoteConfig: { current: entries(keys(current)), desired: entries(keys({ remoteConfig: pick("remoteConfig") })) },
    experiments: { current: entries(current.experiments ?? []), desired: entries(pick("experiments") ?? []) },
  };
}

const NEXT_STATUS: Record<ExperimentStatus, ExperimentStatus[]> = { draft: ["running", "stopped"], running: ["stopped"], stopped: [] };

/** The caps' view of one side of the entries (as shapeOfDefs for the stored definitions: stopped experiments do not count). */
function shapeOfEntries(keys: Entry[], experiments: Entry[]): ConfigShape {
  const live = (experiments as unknown as ConfigExperiment[]).filter((e) => e.status !== "stopped");
  return {
    keys: (keys as unknown as Array<{ id: string; default: unknown; overrides: ConfigOverride[] }>).map((k) => ({
      key: k.id,
      values: [
        k.default,
        ...k.overrides.map((o) => o.value),
        ...live.flatMap((e) => e.variants.flatMap((v) => (k.id in v.values ? [v.values[k.id]] : []))),
      ],
    })),
    experiments: live.map((e) => ({ id: e.id, variantIds: e.variants.map((v) => v.id) })),
  };
}

/**
 * The plan's caps (./limits.ts) on the project as the import would leave it, by the rule the
 * dashboard's changes follow: over a cap only if the import does not grow that measure. One
 * refusal, so the import is refused as a whole and changes nothing.
 */
export function remoteConfigCapRefusals(
  plan: PlanName,
  entries: Record<RemoteConfigKind, { current: Entry[]; desired: Entry[] }>,
): Refusal[] {
  const caps = CONFIG_CAPS[plan];
  const before = configFootprint(shapeOfEntries(entries.remoteConfig.current, entries.experiments.current), caps);
  const after = configFootprint(shapeOfEntries(entries.remoteConfig.desired, entries.experiments.desired), caps);
  const breach = capBreach(plan, before, after);
  if (!breach) return [];
  const { limit, max, current, message } = breach;
  return [{ kind: "remoteConfig", id: limit, action: "change", code: "LIMIT_EXCEEDED", message, details: { limit, max, current } }];
}

/**
 * What the services would refuse: an override or experiment naming an audience the result does
 * not have (deleting an audience still in use is refused as IN_USE, as is deleting an experiment
 * an untouched audience names), values not of their key's type, a started experiment's variants
 * or audience changed, a status going backwards.
 */
export function remoteConfigRefusals(
  entries: Record<RemoteConfigKind, { current: Entry[]; desired: Entry[] }>,
  diff: Record<RemoteConfigKind, KindDiff>,
): Refusal[] {
  const refusals: Refusal[] = [];
  const audiences = new Set(entries.audiences.desired.map((a) => a.id));
  const deletedAudiences = new Set(diff.audiences.deleted.map((d) => d.id));
  const keys = new Map(entries.remoteConfig.desired.map((k) => [k.id, k.type as ConfigType]));
  const touched = (kind: RemoteConfigKind) =>
    new Map<string, "create" | "change">([
      ...diff[kind].created.map((c) => [c.id, "create"] as const),
      ...diff[kind].changed.map((c) => [c.id, "change"] as const),
    ]);
  const inUse = new Map<string, string[]>();
  const audienceProblem = (audienceId: unknown, user: string): string | null => {
    if (typeof audienceId !== "string" || audiences.has(audienceId)) return null;
    if (deletedAudiences.has(audienceId)) {
      inUse.set(audienceId, [...(inUse.get(audienceId) ?? []), user]);
      return null;
    }
    return `no audience "${audienceId}".`;
  };
  const touchedKeys = touched("remoteConfig");
  for (const k of entries.remoteConfig.desired) {
    const problems: string[] = [];
    const type = k.type as ConfigType;
    const defaultProblem = valueProblem(type, k.default);
    if (defaultProblem) problems.push(`default: ${defaultProblem}`);
    (k.overrides as ConfigOverride[]).forEach((o, i) => {
      const p = audienceProblem(o.audienceId, `an override of "${k.id}"`);
      if (p) problems.push(`overrides.${i}.audienceId: ${p}`);
      const v = valueProblem(type, o.value);
      if (v) problems.push(`overrides.${i}.value: ${v}`);
      if (o.startsAt && o.endsAt && Date.parse(o.startsAt) >= Date.parse(o.endsAt)) problems.push(`overrides.${i}.endsAt: after startsAt.`);
    });
    const action = touchedKeys.get(k.id);
    if (problems.length && action)
      refusals.push({ kind: "remoteConfig", id: k.id, action, code: "VALIDATION_ERROR", message: problems.join(" ") });
  }
  const touchedExperiments = touched("experiments");
  const current = new Map(entries.experiments.current.map((e) => [e.id, e]));
  const experimentIds = new Set(entries.experiments.desired.map((e) => e.id));
  const deletedKeys = new Set(diff.remoteConfig.deleted.map((d) => d.id));
  const keysInUse = new Map<string, string[]>();
  for (const e of entries.experiments.desired) {
    const problems: string[] = [];
    const p = audienceProblem(e.audienceId, `experiment "${e.id}"`);
    if (p) problems.push(`audienceId: ${p}`);
    (e.variants as Array<{ id: string; values: Record<string, unknown> }>).forEach((v, i) => {
      for (const [key, value] of Object.entries(v.values)) {
        const type = keys.get(key);
        if (!type && deletedKeys.has(key)) keysInUse.set(key, [...(keysInUse.get(key) ?? []), e.id]);
        else if (!type) problems.push(`variants.${i}.values: no config key "${key}".`);
        else if (valueProblem(type, value)) problems.push(`variants.${i}.values.${key}: ${valueProblem(type, value)}`);
      }
    });
    const before = current.get(e.id);
    if (before && before.status !== "draft" && (!sameJson(before.variants, e.variants) || before.audienceId !== e.audienceId))
      problems.push("a started experiment's variants and audience are fixed.");
    if (before && before.status !== e.status && !NEXT_STATUS[before.status as ExperimentStatus].includes(e.status as ExperimentStatus))
      problems.push(`status goes draft → running → stopped, not ${String(before.status)} → ${String(e.status)}.`);
    const action = touchedExperiments.get(e.id);
    if (problems.length && action)
      refusals.push({ kind: "experiments", id: e.id, action, code: "VALIDATION_ERROR", message: problems.join(" ") });
  }
  for (const e of entries.experiments.current)
    if (!experimentIds.has(e.id) && e.status === "running")
      refusals.push({
        kind: "experiments",
        id: e.id,
        action: "delete",
        code: "IN_USE",
        message: "The experiment is running: stop it first.",
      });
  // Audience rules may name experiments: one that stays must exist. An audience this import
  // leaves as it is keeps the experiments it names (deleting one is IN_USE, as for audiences).
  const deletedExperiments = new Set(diff.experiments.deleted.map((d) => d.id));
  const experimentsInUse = new Map<string, string[]>();
  for (const a of entries.audiences.desired) {
    const missing = (a.rules as { all: Array<{ field: string; experimentId?: string }> }).all
      .filter((r) => r.field === "experiment" && r.experimentId && !experimentIds.has(r.experimentId))
      .map((r) => r.experimentId as string);
    const action = touched("audiences").get(a.id);
    if (missing.length && action)
      refusals.push({
        kind: "audiences",
        id: a.id,
        action,
        code: "VALIDATION_ERROR",
        message: `rules: no experiment ${missing.map((m) => `"${m}"`).join(", ")}.`,
      });
    else
      for (const id of missing.filter((m) => deletedExperiments.has(m)))
        experimentsInUse.set(id, [...(experimentsInUse.get(id) ?? []), `audience "${a.id}"`]);
  }
  for (const [id, users] of experimentsInUse)
    if (!refusals.some((r) => r.kind === "experiments" && r.id === id && r.action === "delete"))
      refusals.push({ kind: "experiments", id, action: "delete", code: "IN_USE", message: `Named by ${[...new Set(users)].join(", ")}.` });
  for (const [key, experiments] of keysInUse)
    refusals.push({
      kind: "remoteConfig",
      id: key,
      action: "delete",
      code: "IN_USE",
      message: `Experiments set it: ${[...new Set(experiments)].join(", ")}.`,
    });
  for (const [id, users] of inUse)
    refusals.push({ kind: "audiences", id, action: "delete", code: "IN_USE", message: `Used by ${[...new Set(users)].join(", ")}.` });
  return refusals;
}

/**
 * Performs a refused-nothing diff inside the import's transaction: audiences first (what
 * overrides and experiments name), then keys with their overrides, then experiments; deletions in
 * the reverse order. Bumps the project's remote config version once when anything changed.
 */
export async function applyRemoteConfigChanges(
  projectId: string,
  entries: Record<RemoteConfigKind, { current: Entry[]; desired: Entry[] }>,
  diff: Record<RemoteConfigKind, KindDiff>,
): Promise<void> {
  const changed = (kind: RemoteConfigKind) => {
    const ids = new Set([...diff[kind].created, ...diff[kind].changed].map((c) => c.id));
    return entries[kind].desired.filter((e) => ids.has(e.id));
  };
  const total = REMOTE_CONFIG_KINDS.reduce((n, k) => n + diff[k].created.length + diff[k].changed.length + diff[k].deleted.length, 0);
  if (total === 0) return;
  for (const a of changed("audiences"))
    await pool().query(
      `INSERT INTO audiences (project_id, id, name, description, rules) VALUES ($1, $2, $3, $4, $5::jsonb)
       ON CONFLICT (project_id, id) DO UPDATE SET name = $3, description = $4, rules = $5::jsonb, updated_at = now()`,
      [projectId, a.id, a.name, a.description, JSON.stringify(a.rules)],
    );
  for (const k of changed("remoteConfig")) {
    await pool().query(
      `INSERT INTO remote_config_keys (project_id, key, type, default_value, description) VALUES ($1, $2, $3, $4::jsonb, $5)
       ON CONFLICT (project_id, key) DO UPDATE SET type = $3, default_value = $4::jsonb, description = $5, updated_at = now()`,
      [projectId, k.id, k.type, JSON.stringify(k.default), k.description],
    );
    await pool().query("DELETE FROM remote_config_overrides WHERE project_id = $1 AND key = $2", [projectId, k.id]);
    // Inserted last-first: among equal priorities (and one transaction's created_at) the newest id wins, so the first listed.
    for (const o of [...(k.overrides as ConfigOverride[])].reverse())
      await pool().query(
        `INSERT INTO remote_config_overrides (id, project_id, key, audience_id, value, priority, rollout_percent, starts_at, ends_at, enabled)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10)`,
        [uuidv7(), projectId, k.id, o.audienceId, JSON.stringify(o.value), o.priority, o.rolloutPercent, o.startsAt, o.endsAt, o.enabled],
      );
  }
  for (const e of changed("experiments"))
    await pool().query(
      `INSERT INTO experiments (project_id, id, name, description, audience_id, status, variants, metric, started_at, stopped_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, CASE WHEN $6 <> 'draft' THEN now() END, CASE WHEN $6 = 'stopped' THEN now() END)
       ON CONFLICT (project_id, id) DO UPDATE SET name = $3, description = $4, audience_id = $5, status = $6, variants = $7::jsonb, metric = $8::jsonb,
              started_at = CASE WHEN experiments.status = 'draft' AND $6 <> 'draft' THEN now() ELSE experiments.started_at END,
              stopped_at = CASE WHEN experiments.status <> 'stopped' AND $6 = 'stopped' THEN now() ELSE experiments.stopped_at END,
              updated_at = now()`,
      [
        projectId,
        e.id,
        e.name,
        e.description,
        e.audienceId,
        e.status,
        JSON.stringify(e.variants),
        e.metric === null ? null : JSON.stringify(e.metric),
      ],
    );
  const deleted = (kind: RemoteConfigKind) => diff[kind].deleted.map((d) => d.id);
  if (deleted("experiments").length)
    await pool().query("DELETE FROM experiments WHERE project_id = $1 AND id = ANY($2::text[])", [projectId, deleted("experiments")]);
  if (deleted("remoteConfig").length)
    await pool().query("DELETE FROM remote_config_keys WHERE project_id = $1 AND key = ANY($2::text[])", [
      projectId,
      deleted("remoteConfig"),
    ]);
  if (deleted("audiences").length)
    await pool().query("DELETE FROM audiences WHERE project_id = $1 AND id = ANY($2::text[])", [projectId, deleted("audiences")]);
  await pool().query("UPDATE projects SET remote_config_version = remote_config_version + 1 WHERE id = $1", [projectId]);
}
