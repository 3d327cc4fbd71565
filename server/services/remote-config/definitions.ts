import { onBroadcast } from "../../cluster";
import { pool } from "../../db";
import { env } from "../../env";
import { invalidateEverywhere } from "../../invalidate";
import type { JsonValue } from "../json-value";
import type { AudienceRules, ConfigType, ExperimentStatus, Metric, Variant } from "./schemas";

/**
 * A project's remote config definitions (keys, overrides, audiences, experiments and the version),
 * read on every GET /config, so cached per process for DEFINITION_CACHE_TTL_MS as one snapshot; a
 * change applies at once in every worker of the instance that made it (invalidateRemoteConfig) and
 * within that time on every other instance.
 */
export type KeyDef = { key: string; type: ConfigType; defaultValue: JsonValue; description: string; updatedAt: Date };
export type OverrideDef = {
  id: string;
  key: string;
  audienceId: string | null;
  value: JsonValue;
  priority: number;
  rolloutPercent: number;
  startsAt: Date | null;
  endsAt: Date | null;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
};
export type AudienceDef = { id: string; name: string; description: string; rules: AudienceRules; updatedAt: Date };
export type ExperimentDef = {
  id: string;
  name: string;
  description: string;
  audienceId: string | null;
  status: ExperimentStatus;
  variants: Variant[];
  metric: Metric | null;
  startedAt: Date | null;
  stoppedAt: Date | null;
  updatedAt: Date;
};
export type RemoteConfigDefs = {
  version: number;
  keys: Map<string, KeyDef>;
  /** Highest priority first, then newest: the first that applies wins. */
  overrides: OverrideDef[];
  audiences: Map<string, AudienceDef>;
  experiments: ExperimentDef[];
};

const cache = new Map<string, { value: RemoteConfigDefs; expiresAt: number }>();

export function forgetRemoteConfig(projectId: string): void {
  cache.delete(projectId);
}

const FORGET_TOPIC = "remote-config:forget";
/** After a change has ended (committed or not): drops the project's snapshot in every worker of this instance. */
export function invalidateRemoteConfig(projectId: string): Promise<void> {
  return invalidateEverywhere(FORGET_TOPIC, projectId, () => forgetRemoteConfig(projectId));
}
onBroadcast(FORGET_TOPIC, (projectId) => forgetRemoteConfig(projectId as string));

/** Read fresh, uncached (inside a change, or for the dashboard). */
export async function readRemoteConfig(projectId: string): Promise<RemoteConfigDefs> {
  // One after another: inside a transaction these share its one connection (server/db.ts).
  const project = await pool().query<{ remote_config_version: number }>("SELECT remote_config_version FROM projects WHERE id = $1", [
    projectId,
  ]);
  const keys = await pool().query<{ key: string; type: ConfigType; default_value: JsonValue; description: string; updated_at: Date }>(
    "SELECT key, type, default_value, description, updated_at FROM remote_config_keys WHERE project_id = $1 ORDER BY key",
    [projectId],
  );
  const overrides = await pool().query<{
    id: string;
    key: string;
    audience_id: string | null;
    value: JsonValue;
    priority: number;
    rollout_percent: number;
    starts_at: Date | null;
    ends_at: Date | null;
    enabled: boolean;
    created_at: Date;
    updated_at: Date;
  }>(
    `SELECT id, key, audience_id, value, priority, rollout_percent, starts_at, ends_at, enabled, created_at, updated_at
       FROM remote_config_overrides WHERE project_id = $1 ORDER BY priority DESC, created_at DESC, id DESC`,
    [projectId],
  );
  const audiences = await pool().query<{ id: string; name: string; description: string; rules: AudienceRules; updated_at: Date }>(
    "SELECT id, name, description, rules, updated_at FROM audiences WHERE project_id = $1 ORDER BY id",
    [projectId],
  );
  const experiments = await pool().query<{
    id: string;
    name: string;
    description: string;
    audience_id: string | null;
    status: ExperimentStatus;
    variants: Variant[];
    metric: Metric | null;
    started_at: Date | null;
    stopped_at: Date | null;
    updated_at: Date;
  }>(
    `SELECT id, name, description, audience_id, status, variants, metric, started_at, stopped_at, updated_at
       FROM experiments WHERE project_id = $1 ORDER BY started_at ASC NULLS LAST, id`,
    [projectId],
  );
  return {
    version: project.rows[0]?.remote_config_version ?? 0,
    keys: new Map(
      keys.rows.map((k) => [
        k.key,
        { key: k.key, type: k.type, defaultValue: k.default_value, description: k.description, updatedAt: k.updated_at },
      ]),
    ),
    overrides: overrides.rows.map((o) => ({
      id: o.id,
      key: o.key,
      audienceId: o.audience_id,
      value: o.value,
      priority: o.priority,
      rolloutPercent: o.rollout_percent,
      startsAt: o.starts_at,
      endsAt: o.ends_at,
      enabled: o.enabled,
      createdAt: o.created_at,
      updatedAt: o.updated_at,
    })),
    audiences: new Map(
      audiences.rows.map((a) => [a.id, { id: a.id, name: a.name, description: a.description, rules: a.rules, updatedAt: a.updated_at }]),
    ),
    experiments: experiments.rows.map((e) => ({
      id: e.id,
      name: e.name,
      description: e.description,
      audienceId: e.audience_id,
      status: e.status,
      variants: e.variants,
      metric: e.metric,
      startedAt: e.started_at,
      stoppedAt: e.stopped_at,
      updatedAt: e.updated_at,
    })),
  };
}

export async function remoteConfigDefs(projectId: string): Promise<RemoteConfigDefs> {
  const now = Date.now();
  const hit = cache.get(projectId);
  if (hit && hit.expiresAt > now) return hit.value;
  const value = await readRemoteConfig(projectId);
  cache.set(projectId, { value, expiresAt: now + env().DEFINITION_CACHE_TTL_MS });
  return value;
}
