import { uuidv7 } from "../../crypto";
import { pool } from "../../db";
import { AppError } from "../../errors";
import { validationError } from "../../validation";
import { type OperatorContext, runCommand, viewerRead } from "../command";
import type { JsonValue } from "../json-value";
import { audienceSql, Params } from "./audience-sql";
import { checkCaps, lockedPlan, shapeOfDefs } from "./caps";
import {
  type AudienceDef,
  type ExperimentDef,
  invalidateRemoteConfig,
  type KeyDef,
  type OverrideDef,
  type RemoteConfigDefs,
  readRemoteConfig,
} from "./definitions";
import { resolveConfig } from "./resolve";
import type {
  AudienceDto,
  AudienceInput,
  AudienceRules,
  ConfigKeyDto,
  ConfigKeyInput,
  ExperimentDto,
  ExperimentInput,
  ExperimentStatus,
  OverrideDto,
  OverrideInput,
} from "./schemas";
import { sameJson, valueProblem } from "./schemas";

/**
 * Operators' remote config: keys, overrides, audiences and experiments. Viewers read; admins and
 * owners change, each change through runCommand with its reason in the audit row, bumping the
 * project's remote_config_version in the same transaction (GET /config's `version`) and dropping
 * the cached definitions in every worker once it has ended.
 */

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const keyDto = (k: KeyDef, overrides: OverrideDef[]): ConfigKeyDto => ({
  key: k.key,
  type: k.type,
  defaultValue: k.defaultValue,
  description: k.description,
  updatedAt: k.updatedAt.toISOString(),
  overrides: overrides.filter((o) => o.key === k.key).map(overrideDto),
});
export const overrideDto = (o: OverrideDef): OverrideDto => ({
  id: o.id,
  key: o.key,
  audienceId: o.audienceId,
  value: o.value,
  priority: o.priority,
  rolloutPercent: o.rolloutPercent,
  startsAt: iso(o.startsAt),
  endsAt: iso(o.endsAt),
  enabled: o.enabled,
  createdAt: o.createdAt.toISOString(),
  updatedAt: o.updatedAt.toISOString(),
});
const audienceDto = (a: AudienceDef): AudienceDto => ({ ...a, updatedAt: a.updatedAt.toISOString() });
export const experimentDto = (e: ExperimentDef): ExperimentDto => ({
  ...e,
  startedAt: iso(e.startedAt),
  stoppedAt: iso(e.stoppedAt),
  updatedAt: e.updatedAt.toISOString(),
});

async function bumpVersion(projectId: string): Promise<void> {
  await pool().query("UPDATE projects SET remote_config_version = remote_config_version + 1 WHERE id = $1", [projectId]);
}

/**
 * The shape every change shares: admins, the reason in the audit row, the version bumped, the cache
 * dropped. `capped`: a change that can grow the config (a key, an override, an experiment's
 * variants) is held to the plan's caps (./caps.ts), comparing the definitions before and after it.
 */
function change<T, B>(
  ctx: OperatorContext,
  o: { projectId: string; reason: string },
  c: {
    action: string;
    target: string | ((r: T) => string);
    before?: () => Promise<B>;
    run: () => Promise<T>;
    after?: (r: T) => unknown;
    capped?: true;
  },
): Promise<T> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: c.action,
    target: c.target,
    before: c.before,
    run: async () => {
      const plan = c.capped ? await lockedPlan(o.projectId) : null;
      const before = plan ? shapeOfDefs(await readRemoteConfig(o.projectId)) : null;
      const result = await c.run();
      if (plan && before) checkCaps(plan, before, shapeOfDefs(await readRemoteConfig(o.projectId)));
      await bumpVersion(o.projectId);
      return result;
    },
    after: (r: T) => ({ reason: o.reason, ...((c.after ? c.after(r) : r) as object) }),
    invalidate: () => invalidateRemoteConfig(o.projectId),
  });
}

function keyOf(defs: RemoteConfigDefs, key: string): KeyDef {
  const found = defs.keys.get(key);
  if (!found) throw new AppError("NOT_FOUND", { message: "Config key not found." });
  return found;
}
function audienceOf(defs: RemoteConfigDefs, id: string, path: string): void {
  if (!defs.audiences.has(id)) throw validationError([{ path, message: `There is no audience "${id}".` }]);
}

// ---- Keys ----

export const listKeys = async (o: { projectId: string }): Promise<ConfigKeyDto[]> => {
  const defs = await readRemoteConfig(o.projectId);
  return [...defs.keys.values()].map((k) => keyDto(k, defs.overrides));
};
export const listKeysAs = viewerRead(listKeys);

async function keyDtoOrNull(projectId: string, key: string): Promise<ConfigKeyDto | null> {
  const defs = await readRemoteConfig(projectId);
  const k = defs.keys.get(key);
  return k ? keyDto(k, defs.overrides) : null;
}

/** A key's type changes only if every override and experiment value of it is still of that type. */
function checkTypeChange(defs: RemoteConfigDefs, k: ConfigKeyInput): void {
  const bad = defs.overrides.find((o) => o.key === k.key && valueProblem(k.type, o.value));
  if (bad) throw validationError([{ path: "type", message: `An override of this key has a value that is not a ${k.type}.` }]);
  const exp = defs.experiments.find((e) => e.variants.some((v) => k.key in v.values && valueProblem(k.type, v.values[k.key])));
  if (exp) throw validationError([{ path: "type", message: `Experiment "${exp.id}" sets this key to a value that is not a ${k.type}.` }]);
}

export async function upsertKey(o: { projectId: string; input: ConfigKeyInput }): Promise<ConfigKeyDto> {
  checkTypeChange(await readRemoteConfig(o.projectId), o.input);
  const k = o.input;
  await pool().query(
    `INSERT INTO remote_config_keys (project_id, key, type, default_value, description) VALUES ($1, $2, $3, $4::jsonb, $5)
     ON CONFLICT (project_id, key) DO UPDATE SET type = $3, default_value = $4::jsonb, description = $5, updated_at = now()`,
    [o.projectId, k.key, k.type, JSON.stringify(k.defaultValue), k.description],
  );
  const saved = await keyDtoOrNull(o.projectId, k.key);
  if (!saved) throw new Error("The key just written is missing.");
  return saved;
}

export const upsertKeyAs = (ctx: OperatorContext, o: { projectId: string; reason: string } & ConfigKeyInput) =>
  change(ctx, o, {
    action: "remote_config.key.upsert",
    target: o.key,
    capped: true,
    before: () => keyDtoOrNull(o.projectId, o.key),
    run: () =>
      upsertKey({ projectId: o.projectId, input: { key: o.key, type: o.type, defaultValue: o.defaultValue, description: o.description } }),
  });

/** A key an unstopped experiment sets stays: deleting it would change the experiment under its players. */
export async function deleteKey(o: { projectId: string; key: string }): Promise<{ deleted: true }> {
  const defs = await readRemoteConfig(o.projectId);
  keyOf(defs, o.key);
  const user = defs.experiments.find((e) => e.status !== "stopped" && e.variants.some((v) => o.key in v.values));
  if (user) throw new AppError("IN_USE", { message: `Experiment "${user.id}" sets this key.`, details: { experimentId: user.id } });
  await pool().query("DELETE FROM remote_config_keys WHERE project_id = $1 AND key = $2", [o.projectId, o.key]);
  return { deleted: true };
}

export const deleteKeyAs = (ctx: OperatorContext, o: { projectId: string; key: string; reason: string }) =>
  change(ctx, o, {
    action: "remote_config.key.delete",
    target: o.key,
    before: () => keyDtoOrNull(o.projectId, o.key),
    run: () => deleteKey(o),
  });

// ---- Overrides ----

export type OverridePatch = Partial<Omit<OverrideInput, "key">>;

async function overrideOf(projectId: string, id: string): Promise<OverrideDef> {
  const found = (await readRemoteConfig(projectId)).overrides.find((o) => o.id === id);
  if (!found) throw new AppError("NOT_FOUND", { message: "Override not found." });
  return found;
}

function checkOverride(defs: RemoteConfigDefs, o: OverrideInput): void {
  const k = keyOf(defs, o.key);
  const problem = valueProblem(k.type, o.value);
  if (problem) throw validationError([{ path: "value", message: problem }]);
  if (o.audienceId) audienceOf(defs, o.audienceId, "audienceId");
  if (o.startsAt && o.endsAt && Date.parse(o.startsAt) >= Date.parse(o.endsAt))
    throw validationError([{ path: "endsAt", message: "The end comes after the start." }]);
}

async function writeOverride(projectId: string, id: string, o: OverrideInput, insert: boolean): Promise<OverrideDto> {
  const values = [
    id,
    projectId,
    o.key,
    o.audienceId,
    JSON.stringify(o.value),
    o.priority,
    o.rolloutPercent,
    o.startsAt,
    o.endsAt,
    o.enabled,
  ];
  await pool().query(
    insert
      ? `INSERT INTO remote_config_overrides (id, project_id, key, audience_id, value, priority, rollout_percent, starts_at, ends_at, enabled)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10)`
      : `UPDATE remote_config_overrides SET key = $3, audience_id = $4, value = $5::jsonb, priority = $6, rollout_percent = $7,
                starts_at = $8, ends_at = $9, enabled = $10, updated_at = now()
          WHERE id = $1 AND project_id = $2`,
    values,
  );
  return overrideDto(await overrideOf(projectId, id));
}

export async function createOverride(o: { projectId: string; input: OverrideInput }): Promise<OverrideDto> {
  checkOverride(await readRemoteConfig(o.projectId), o.input);
  return writeOverride(o.projectId, uuidv7(), o.input, true);
}

export const createOverrideAs = (ctx: OperatorContext, o: { projectId: string; reason: string } & OverrideInput) => {
  const { projectId, reason: _reason, ...input } = o;
  return change(ctx, o, {
    action: "remote_config.override.create",
    target: (r: OverrideDto) => r.id,
    capped: true,
    run: () => createOverride({ projectId, input }),
  });
};

export async function updateOverride(o: { projectId: string; id: string; patch: OverridePatch }): Promise<OverrideDto> {
  const current = overrideDto(await overrideOf(o.projectId, o.id));
  const defined = Object.fromEntries(Object.entries(o.patch).filter(([, v]) => v !== undefined));
  const next = { ...current, ...defined } as OverrideInput;
  checkOverride(await readRemoteConfig(o.projectId), next);
  return writeOverride(o.projectId, o.id, next, false);
}

export const updateOverrideAs = (ctx: OperatorContext, o: { projectId: string; id: string; reason: string } & OverridePatch) => {
  const { projectId, id, reason: _reason, ...patch } = o;
  return change(ctx, o, {
    action: "remote_config.override.update",
    target: id,
    capped: true,
    before: async () => overrideDto(await overrideOf(projectId, id)),
    run: () => updateOverride({ projectId, id, patch }),
  });
};

export const deleteOverrideAs = (ctx: OperatorContext, o: { projectId: string; id: string; reason: string }) =>
  change(ctx, o, {
    action: "remote_config.override.delete",
    target: o.id,
    before: async () => overrideDto(await overrideOf(o.projectId, o.id)),
    run: async () => {
      await pool().query("DELETE FROM remote_config_overrides WHERE id = $1 AND project_id = $2", [o.id, o.projectId]);
      return { deleted: true as const };
    },
  });

// ---- Audiences ----

/** How many of the project's players are in the audience at `now` (the same predicate GET /config uses). */
export async function countAudience(o: { projectId: string; rules: AudienceRules; now?: Date }): Promise<{ matching: number }> {
  const params = new Params([o.projectId]);
  const predicate = audienceSql(o.rules, params, params.lazy((o.now ?? new Date()).toISOString(), "timestamptz"));
  const { rows } = await pool().query<{ n: string }>(
    `SELECT count(*) AS n FROM players p WHERE p.project_id = $1 AND ${predicate}`,
    params.values,
  );
  return { matching: Number(rows[0]?.n ?? 0) };
}
export const countAudienceAs = viewerRead(countAudience);

export async function listAudiences(o: { projectId: string }): Promise<(AudienceDto & { matching: number })[]> {
  const defs = await readRemoteConfig(o.projectId);
  const out: (AudienceDto & { matching: number })[] = [];
  for (const a of defs.audiences.values()) {
    const { matching } = await countAudience({ projectId: o.projectId, rules: a.rules });
    out.push({ ...audienceDto(a), matching });
  }
  return out;
}
export const listAudiencesAs = viewerRead(listAudiences);

async function audienceDtoOrNull(projectId: string, id: string): Promise<AudienceDto | null> {
  const a = (await readRemoteConfig(projectId)).audiences.get(id);
  return a ? audienceDto(a) : null;
}

export async function upsertAudience(o: { projectId: string; input: AudienceInput }): Promise<AudienceDto> {
  const defs = await readRemoteConfig(o.projectId);
  o.input.rules.all.forEach((r, i) => {
    if (r.field === "experiment" && !defs.experiments.some((e) => e.id === r.experimentId))
      throw validationError([{ path: `rules.all.${i}.experimentId`, message: `There is no experiment "${r.experimentId}".` }]);
  });
  const a = o.input;
  await pool().query(
    `INSERT INTO audiences (project_id, id, name, description, rules) VALUES ($1, $2, $3, $4, $5::jsonb)
     ON CONFLICT (project_id, id) DO UPDATE SET name = $3, description = $4, rules = $5::jsonb, updated_at = now()`,
    [o.projectId, a.id, a.name, a.description, JSON.stringify(a.rules)],
  );
  const saved = await audienceDtoOrNull(o.projectId, a.id);
  if (!saved) throw new Error("The audience just written is missing.");
  return saved;
}

export const upsertAudienceAs = (ctx: OperatorContext, o: { projectId: string; reason: string } & AudienceInput) => {
  const { projectId, reason: _reason, ...input } = o;
  return change(ctx, o, {
    action: "remote_config.audience.upsert",
    target: o.id,
    before: () => audienceDtoOrNull(projectId, o.id),
    run: () => upsertAudience({ projectId, input }),
  });
};

/** Who uses an audience: overrides (by key) and experiments. */
export function audienceUsers(defs: RemoteConfigDefs, id: string): { overrides: string[]; experiments: string[] } {
  return {
    overrides: defs.overrides.filter((o) => o.audienceId === id).map((o) => o.key),
    experiments: defs.experiments.filter((e) => e.audienceId === id).map((e) => e.id),
  };
}

export async function deleteAudience(o: { projectId: string; id: string }): Promise<{ deleted: true }> {
  const defs = await readRemoteConfig(o.projectId);
  if (!defs.audiences.has(o.id)) throw new AppError("NOT_FOUND", { message: "Audience not found." });
  const users = audienceUsers(defs, o.id);
  if (users.overrides.length + users.experiments.length > 0)
    throw new AppError("IN_USE", {
      message: `The audience is used by ${[...users.overrides.map((k) => `an override of "${k}"`), ...users.experiments.map((e) => `experiment "${e}"`)].join(", ")}.`,
      details: users,
    });
  await pool().query("DELETE FROM audiences WHERE project_id = $1 AND id = $2", [o.projectId, o.id]);
  return { deleted: true };
}

export const deleteAudienceAs = (ctx: OperatorContext, o: { projectId: string; id: string; reason: string }) =>
  change(ctx, o, {
    action: "remote_config.audience.delete",
    target: o.id,
    before: () => audienceDtoOrNull(o.projectId, o.id),
    run: () => deleteAudience(o),
  });

// ---- Experiments ----

export const listExperiments = async (o: { projectId: string }): Promise<ExperimentDto[]> =>
  (await readRemoteConfig(o.projectId)).experiments.map(experimentDto);
export const listExperimentsAs = viewerRead(listExperiments);

async function experimentDtoOrNull(projectId: string, id: string): Promise<ExperimentDto | null> {
  const e = (await readRemoteConfig(projectId)).experiments.find((x) => x.id === id);
  return e ? experimentDto(e) : null;
}

function checkExperiment(defs: RemoteConfigDefs, e: ExperimentInput): void {
  if (e.audienceId) audienceOf(defs, e.audienceId, "audienceId");
  e.variants.forEach((v, i) => {
    for (const [key, value] of Object.entries(v.values)) {
      const k = defs.keys.get(key);
      if (!k) throw validationError([{ path: `variants.${i}.values.${key}`, message: `There is no config key "${key}".` }]);
      const problem = valueProblem(k.type, value);
      if (problem) throw validationError([{ path: `variants.${i}.values.${key}`, message: problem }]);
    }
  });
}

/** Name, description and metric change at any time; variants, weights and audience only in draft. */
export async function upsertExperiment(o: { projectId: string; input: ExperimentInput }): Promise<ExperimentDto> {
  const defs = await readRemoteConfig(o.projectId);
  const e = o.input;
  checkExperiment(defs, e);
  const current = defs.experiments.find((x) => x.id === e.id);
  if (current && current.status !== "draft" && (!sameJson(current.variants, e.variants) || current.audienceId !== e.audienceId))
    throw new AppError("EXPERIMENT_LOCKED");
  await pool().query(
    `INSERT INTO experiments (project_id, id, name, description, audience_id, variants, metric) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb)
     ON CONFLICT (project_id, id) DO UPDATE SET name = $3, description = $4, audience_id = $5, variants = $6::jsonb, metric = $7::jsonb, updated_at = now()`,
    [
      o.projectId,
      e.id,
      e.name,
      e.description,
      e.audienceId,
      JSON.stringify(e.variants),
      e.metric === null ? null : JSON.stringify(e.metric),
    ],
  );
  const saved = await experimentDtoOrNull(o.projectId, e.id);
  if (!saved) throw new Error("The experiment just written is missing.");
  return saved;
}

export const upsertExperimentAs = (ctx: OperatorContext, o: { projectId: string; reason: string } & ExperimentInput) => {
  const { projectId, reason: _reason, ...input } = o;
  return change(ctx, o, {
    action: "remote_config.experiment.upsert",
    target: o.id,
    capped: true,
    before: () => experimentDtoOrNull(projectId, o.id),
    run: () => upsertExperiment({ projectId, input }),
  });
};

const NEXT_STATUS: Record<ExperimentStatus, ExperimentStatus[]> = { draft: ["running", "stopped"], running: ["stopped"], stopped: [] };

export async function setExperimentStatus(o: {
  projectId: string;
  id: string;
  status: ExperimentStatus;
  now?: Date;
}): Promise<ExperimentDto> {
  const current = await experimentDtoOrNull(o.projectId, o.id);
  if (!current) throw new AppError("NOT_FOUND", { message: "Experiment not found." });
  if (current.status === o.status) return current;
  if (!NEXT_STATUS[current.status].includes(o.status))
    throw new AppError("EXPERIMENT_LOCKED", { message: `An experiment goes draft → running → stopped; this one is ${current.status}.` });
  const now = o.now ?? new Date();
  await pool().query(
    `UPDATE experiments SET status = $3, updated_at = now(),
            started_at = CASE WHEN $3 = 'running' THEN $4::timestamptz ELSE started_at END,
            stopped_at = CASE WHEN $3 = 'stopped' THEN $4::timestamptz ELSE stopped_at END
      WHERE project_id = $1 AND id = $2`,
    [o.projectId, o.id, o.status, now.toISOString()],
  );
  const saved = await experimentDtoOrNull(o.projectId, o.id);
  if (!saved) throw new Error("The experiment just written is missing.");
  return saved;
}

export const setExperimentStatusAs = (
  ctx: OperatorContext,
  o: { projectId: string; id: string; status: ExperimentStatus; reason: string },
) =>
  change(ctx, o, {
    action: "remote_config.experiment.status",
    target: o.id,
    before: () => experimentDtoOrNull(o.projectId, o.id),
    run: () => setExperimentStatus(o),
  });

// ---- Support ----

export type PlayerResolution = {
  values: Record<string, JsonValue>;
  /** Stored assignments, and the variant GET /config would assign now (`wouldAssign`). */
  assignments: Record<string, string>;
  wouldAssign: Record<string, string>;
  matchedAudiences: string[];
  winningOverride: Record<string, string | null>;
  fromExperiment: Record<string, string>;
};

/** What a player gets now, and why, without assigning anything (support: "why does this player see X?"). */
export async function resolveForPlayer(o: { projectId: string; playerId: string; now?: Date }): Promise<PlayerResolution> {
  const defs = await readRemoteConfig(o.projectId);
  const r = await resolveConfig({ projectId: o.projectId, playerId: o.playerId, defs, now: o.now ?? new Date(), allAudiences: true });
  if (!r.found) throw new AppError("PLAYER_NOT_FOUND");
  return {
    values: r.values,
    assignments: r.assignments,
    wouldAssign: r.newAssignments,
    matchedAudiences: r.matchedAudiences,
    winningOverride: r.winningOverride,
    fromExperiment: r.fromExperiment,
  };
}
export const resolveForPlayerAs = viewerRead(resolveForPlayer);
