import type { PlanName } from "../../ratelimit/plans";

/**
 * Remote config's caps per plan. Client-safe (no imports but a type): the dashboard and the guide
 * name them. Every player polls GET /config, so what one project stores there is what the server
 * serialises, hashes and sends per poll: the caps bound that work (issue 51) rather than storage.
 *   - `keys`: config keys in the project.
 *   - `valueBytes`: one value serialised as JSON (UTF-8 bytes) — a default, an override's value
 *     or an experiment variant's value for a key.
 *   - `answerBytes`: the worst-case GET /config body (see `configFootprint`).
 */
export type ConfigCaps = { keys: number; valueBytes: number; answerBytes: number };
export const CONFIG_CAPS: Record<PlanName, ConfigCaps> = {
  FREE: { keys: 200, valueBytes: 8 * 1024, answerBytes: 64 * 1024 },
  PRO: { keys: 1_000, valueBytes: 32 * 1024, answerBytes: 256 * 1024 },
  ENTERPRISE: { keys: 2_000, valueBytes: 64 * 1024, answerBytes: 1024 * 1024 },
};
/** The largest value any plan allows: the type check's own ceiling for json values. */
export const MAX_VALUE_BYTES = Math.max(...Object.values(CONFIG_CAPS).map((c) => c.valueBytes));

export type ConfigCap = keyof ConfigCaps;
export const CAP_NAMES: Record<ConfigCap, string> = {
  keys: "config keys",
  valueBytes: "bytes per config value",
  answerBytes: "bytes of worst-case GET /config answer",
};
export const PLAN_TITLES: Record<PlanName, string> = { FREE: "Free", PRO: "Pro", ENTERPRISE: "Enterprise" };

/** What a project's definitions look like to the caps: per key every value it can take, and each experiment's variant ids. */
export type ConfigShape = {
  keys: Array<{ key: string; values: unknown[] }>;
  experiments: Array<{ id: string; variantIds: string[] }>;
};

/**
 * The measures the caps apply to. `answerBytes` is an upper bound of the GET /config body
 * `{"values":{…},"assignments":{…},"version":n}`: per key its quoted name, a colon, its largest
 * value and a comma; per experiment that can still assign (not stopped) its quoted id, a colon,
 * its longest quoted variant id and a comma; and the envelope with the largest version. A player
 * gets one value per key, so the real answer is never larger.
 * `excessBytes`: how far values are over `valueBytes`, summed — what a project already over the cap
 * may not grow.
 */
export type ConfigFootprint = { keys: number; valueBytes: number; answerBytes: number; excessBytes: number };

const bytes = (s: string) => new TextEncoder().encode(s).length;
const ENVELOPE = bytes(JSON.stringify({ values: {}, assignments: {}, version: 2 ** 31 - 1 }));

export function configFootprint(shape: ConfigShape, caps: ConfigCaps): ConfigFootprint {
  let valueBytes = 0;
  let excessBytes = 0;
  let answerBytes = ENVELOPE;
  for (const k of shape.keys) {
    let largest = 0;
    for (const v of k.values) {
      const n = v === undefined ? 0 : bytes(JSON.stringify(v));
      largest = Math.max(largest, n);
      excessBytes += Math.max(0, n - caps.valueBytes);
    }
    valueBytes = Math.max(valueBytes, largest);
    answerBytes += bytes(JSON.stringify(k.key)) + 1 + largest + 1;
  }
  for (const e of shape.experiments) {
    if (e.variantIds.length === 0) continue;
    answerBytes += bytes(JSON.stringify(e.id)) + 1 + Math.max(...e.variantIds.map((v) => bytes(JSON.stringify(v)))) + 1;
  }
  return { keys: shape.keys.length, valueBytes, answerBytes, excessBytes };
}

export type CapBreach = { limit: ConfigCap; max: number; current: number; message: string };

/**
 * The first cap a change from `before` to `after` breaks, or null. A change may leave a measure
 * over its cap (a project created before the caps, or moved to a smaller plan) only if it does not
 * grow it: deleting and shrinking always work, so does any change that leaves the measure as it was.
 * Per value the measure that may not grow is the excess over the cap, so an over-cap project
 * cannot add another over-cap value either.
 */
export function capBreach(plan: PlanName, before: ConfigFootprint, after: ConfigFootprint): CapBreach | null {
  const caps = CONFIG_CAPS[plan];
  const message = (limit: ConfigCap, current: number) =>
    `The ${PLAN_TITLES[plan]} plan allows at most ${caps[limit].toLocaleString("en-US")} ${CAP_NAMES[limit]}; this change makes it ${current.toLocaleString("en-US")}. Delete or shrink values, or move the project to a larger plan.`;
  if (after.keys > caps.keys && after.keys > before.keys)
    return { limit: "keys", max: caps.keys, current: after.keys, message: message("keys", after.keys) };
  if (after.excessBytes > 0 && after.excessBytes > before.excessBytes)
    return { limit: "valueBytes", max: caps.valueBytes, current: after.valueBytes, message: message("valueBytes", after.valueBytes) };
  if (after.answerBytes > caps.answerBytes && after.answerBytes > before.answerBytes)
    return { limit: "answerBytes", max: caps.answerBytes, current: after.answerBytes, message: message("answerBytes", after.answerBytes) };
  return null;
}
