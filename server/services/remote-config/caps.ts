import { pool } from "../../db";
import { AppError } from "../../errors";
import type { PlanName } from "../../ratelimit/plans";
import { limitExceeded } from "../storage-limits";
import type { RemoteConfigDefs } from "./definitions";
import { type CapBreach, CONFIG_CAPS, type ConfigShape, capBreach, configFootprint } from "./limits";

/**
 * The plan caps (./limits.ts) on the write paths: each capped change locks the project's row,
 * reads its plan, and compares the definitions before and after it inside its transaction; a
 * breach throws LIMIT_EXCEEDED, so the transaction rolls back and nothing changes. The lock makes
 * two parallel changes of one project run one after the other, so together they cannot pass a cap
 * each alone stays under.
 */

export const lockedPlan = (projectId: string) => readPlan(projectId, " FOR UPDATE");
/** Unlocked: a dry run. */
export const planOf = (projectId: string) => readPlan(projectId, "");

async function readPlan(projectId: string, lock: string): Promise<PlanName> {
  const { rows } = await pool().query<{ plan: PlanName }>(`SELECT plan FROM projects WHERE id = $1${lock}`, [projectId]);
  const plan = rows[0]?.plan;
  if (!plan) throw new AppError("NOT_FOUND", { message: "Project not found." });
  return plan;
}

/** Stopped experiments never set a value again (their variants are fixed), so they do not count. */
export const shapeOfDefs = (defs: RemoteConfigDefs): ConfigShape => {
  const live = defs.experiments.filter((e) => e.status !== "stopped");
  return {
    keys: [...defs.keys.values()].map((k) => ({
      key: k.key,
      values: [
        k.defaultValue,
        ...defs.overrides.filter((o) => o.key === k.key).map((o) => o.value),
        ...live.flatMap((e) => e.variants.flatMap((v) => (k.key in v.values ? [v.values[k.key]] : []))),
      ],
    })),
    experiments: live.map((e) => ({ id: e.id, variantIds: e.variants.map((v) => v.id) })),
  };
};

export const breachError = (b: CapBreach) => limitExceeded(b.limit, b.max, b.current, b.message);

export function checkCaps(plan: PlanName, before: ConfigShape, after: ConfigShape): void {
  const caps = CONFIG_CAPS[plan];
  const breach = capBreach(plan, configFootprint(before, caps), configFootprint(after, caps));
  if (breach) throw breachError(breach);
}
