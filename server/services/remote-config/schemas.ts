import { z } from "zod";
import { ZEconomyId } from "../economy/schemas";
import { type JsonValue, ZJsonValue } from "../json-value";
import { zLabel } from "../labels";
import { MAX_VALUE_BYTES } from "./limits";

/**
 * Remote config: typed keys with a default, overrides for audiences (rules over what the backend
 * knows about a player) in time windows and stable rollouts, and experiments that split an
 * audience into weighted variants. These schemas validate the dashboard's input, config as code
 * and the game API's answer (the OpenAPI document is generated from them).
 */

const ID_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
const ID_MESSAGE = "Ids are 1–64 of a-z, 0-9, _, . and -, starting with a letter or digit.";

export const ZConfigKeyId = z.string().regex(ID_PATTERN, ID_MESSAGE).meta({ example: "shop.discount" });
export const ZAudienceId = z.string().regex(ID_PATTERN, ID_MESSAGE).meta({ example: "new-players" });
export const ZExperimentId = z.string().regex(ID_PATTERN, ID_MESSAGE).meta({ example: "starter-pack-price" });
export const ZVariantId = z.string().regex(ID_PATTERN, ID_MESSAGE).meta({ example: "control" });

/** Why an operator made a change: required on every change, kept in its audit row. */
export const ZReason = z.string().trim().min(1, "Say why (1–500 characters).").max(500, "Say why in at most 500 characters.");

export const CONFIG_TYPES = ["string", "number", "boolean", "json"] as const;
export type ConfigType = (typeof CONFIG_TYPES)[number];
export const ZConfigType = z.enum(CONFIG_TYPES);

export const MAX_STRING_BYTES = 4 * 1024;
/** The largest plan's value cap; a project's own plan may allow less (./limits.ts, checked when it is written). */
export const MAX_JSON_BYTES = MAX_VALUE_BYTES;

/** Why `value` is not a value of `type` (null: it is). */
export function valueProblem(type: ConfigType, value: unknown): string | null {
  switch (type) {
    case "string":
      if (typeof value !== "string") return "Expected a string.";
      return Buffer.byteLength(value, "utf8") > MAX_STRING_BYTES ? "A string value is at most 4 KiB." : null;
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? null : "Expected a finite number.";
    case "boolean":
      return typeof value === "boolean" ? null : "Expected true or false.";
    case "json":
      if (value === undefined) return "Expected a JSON value.";
      return Buffer.byteLength(JSON.stringify(value), "utf8") > MAX_JSON_BYTES
        ? `A JSON value is at most ${MAX_JSON_BYTES / 1024} KiB.`
        : null;
  }
}

/**
 * The value with every object's keys sorted, recursively: Postgres' jsonb keeps its own key order,
 * so values read back are compared (and diffed) in this form, never as written.
 */
export function canonicalJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(canonicalJson) as T;
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, canonicalJson((value as Record<string, unknown>)[k])]),
  ) as T;
}
export const sameJson = (a: unknown, b: unknown) => JSON.stringify(canonicalJson(a)) === JSON.stringify(canonicalJson(b));

export const ZConfigKeyFields = z.strictObject({
  key: ZConfigKeyId,
  type: ZConfigType,
  defaultValue: ZJsonValue,
  description: z.string().max(500).default(""),
});
export const defaultMatchesType = (k: { type: ConfigType; defaultValue: unknown }, ctx: z.RefinementCtx) => {
  const problem = valueProblem(k.type, k.defaultValue);
  if (problem) ctx.addIssue({ code: "custom", path: ["defaultValue"], message: problem });
};
export const ZConfigKeyInput = ZConfigKeyFields.superRefine(defaultMatchesType);
export type ConfigKeyInput = z.output<typeof ZConfigKeyInput>;

// ---- Audiences ----

export const SIGN_IN_METHODS = ["anonymous", "email", "oidc", "device"] as const;
const ZIso = z.iso.datetime({ offset: true });
const ZVersion = z.string().regex(/^\d{1,9}(\.\d{1,9}){0,7}$/, "A dotted version such as 1.4.2.");
const ZPlatform = z.string().regex(/^[a-z0-9_-]{1,32}$/, "A platform such as ios, android or webgl.");
const ZCountry = z.string().regex(/^[A-Z]{2}$/, "A two-letter country code such as FR.");
const ZCurrencyCode = z.string().regex(/^[A-Z]{3}$/, "An ISO 4217 code such as USD.");
const atLeastOne =
  (...keys: string[]) =>
  (r: Record<string, unknown>, ctx: z.RefinementCtx) => {
    if (keys.every((k) => r[k] === undefined))
      ctx.addIssue({ code: "custom", path: [keys[0] ?? ""], message: `Give at least one of ${keys.join(", ")}.` });
  };

export const ZRule = z.union([
  z.strictObject({ field: z.literal("signInMethod"), in: z.array(z.enum(SIGN_IN_METHODS)).min(1).max(4) }),
  z.strictObject({ field: z.literal("hasEmail"), eq: z.boolean() }),
  z
    .strictObject({
      field: z.enum(["createdAt", "lastSeenAt"]),
      after: ZIso.optional(),
      before: ZIso.optional(),
      withinDays: z.number().int().min(1).max(3650).optional(),
    })
    .superRefine(atLeastOne("after", "before", "withinDays")),
  z.strictObject({ field: z.literal("platform"), in: z.array(ZPlatform).min(1).max(50) }),
  z.strictObject({ field: z.literal("country"), in: z.array(ZCountry).min(1).max(250) }),
  z
    .strictObject({ field: z.literal("clientVersion"), gte: ZVersion.optional(), lt: ZVersion.optional() })
    .superRefine(atLeastOne("gte", "lt")),
  z.strictObject({ field: z.literal("banned"), eq: z.boolean() }),
  z
    .strictObject({
      field: z.literal("balance"),
      currency: ZEconomyId,
      gte: z.number().int().optional(),
      lte: z.number().int().optional(),
    })
    .superRefine(atLeastOne("gte", "lte")),
  /** Micros of `currency` spent in granted, not refunded, production store purchases. */
  z.strictObject({ field: z.literal("storeSpent"), currency: ZCurrencyCode, gte: z.number().int().min(0) }),
  /** Granted, not refunded, production store purchases. */
  z.strictObject({ field: z.literal("storePurchases"), gte: z.number().int().min(0) }),
  z.strictObject({ field: z.literal("data"), key: z.string().min(1).max(128), eq: ZJsonValue }),
  z.strictObject({ field: z.literal("experiment"), experimentId: ZExperimentId, variant: ZVariantId.optional() }),
]);
export type Rule = z.output<typeof ZRule>;

export const ZAudienceRules = z.strictObject({ all: z.array(ZRule).min(1).max(20) }).meta({ id: "AudienceRules" });
export type AudienceRules = z.output<typeof ZAudienceRules>;

export const ZAudienceInput = z.strictObject({
  id: ZAudienceId,
  name: zLabel(100),
  description: z.string().max(500).default(""),
  rules: ZAudienceRules,
});
export type AudienceInput = z.output<typeof ZAudienceInput>;

// ---- Overrides ----

const overrideFields = {
  audienceId: ZAudienceId.nullable().default(null),
  value: ZJsonValue,
  priority: z.number().int().min(-1000).max(1000).default(0),
  rolloutPercent: z.number().int().min(0).max(100).default(100),
  startsAt: ZIso.nullable().default(null),
  endsAt: ZIso.nullable().default(null),
  enabled: z.boolean().default(true),
};
export const windowInOrder = (o: { startsAt?: string | null; endsAt?: string | null }, ctx: z.RefinementCtx) => {
  if (o.startsAt && o.endsAt && Date.parse(o.startsAt) >= Date.parse(o.endsAt))
    ctx.addIssue({ code: "custom", path: ["endsAt"], message: "The end comes after the start." });
};

export const ZOverrideFields = z.strictObject({ key: ZConfigKeyId, ...overrideFields });
export const ZOverrideInput = ZOverrideFields.superRefine(windowInOrder);
/** A change to an override: the fields given replace the stored ones. */
export const ZOverridePatchFields = z.strictObject({
  audienceId: ZAudienceId.nullable().optional(),
  value: ZJsonValue.optional(),
  priority: z.number().int().min(-1000).max(1000).optional(),
  rolloutPercent: z.number().int().min(0).max(100).optional(),
  startsAt: ZIso.nullable().optional(),
  endsAt: ZIso.nullable().optional(),
  enabled: z.boolean().optional(),
});
export type OverrideInput = z.output<typeof ZOverrideInput>;
/** Config as code: an override inside its key. */
export const ZKeyOverrideInput = z.strictObject(overrideFields).superRefine(windowInOrder);

// ---- Experiments ----

export const EXPERIMENT_STATUSES = ["draft", "running", "stopped"] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];
export const ZExperimentStatus = z.enum(EXPERIMENT_STATUSES);

export const ZVariant = z.strictObject({
  id: ZVariantId,
  name: zLabel(100),
  weight: z.number().int().min(1).max(10_000),
  values: z.record(ZConfigKeyId, ZJsonValue).default({}),
});
export type Variant = z.output<typeof ZVariant>;

export const METRIC_KINDS = ["purchases", "revenue", "retention", "scoreSubmissions", "currencySpend"] as const;
export const ZMetric = z.strictObject({
  kind: z.enum(METRIC_KINDS),
  /** revenue: an ISO 4217 code; currencySpend: a currency id. */
  currency: z.string().min(1).max(64).optional(),
  /** scoreSubmissions: which leaderboard (every one when absent). */
  leaderboardId: z.string().min(1).max(64).optional(),
  /** retention: seen again this many days after assignment. */
  days: z.number().int().min(1).max(90).optional(),
});
export type Metric = z.output<typeof ZMetric>;

export const ZExperimentFields = z.strictObject({
  id: ZExperimentId,
  name: zLabel(100),
  description: z.string().max(500).default(""),
  audienceId: ZAudienceId.nullable().default(null),
  variants: z.array(ZVariant).min(2).max(10),
  metric: ZMetric.nullable().default(null),
});
export const uniqueVariants = (e: { variants: { id: string }[] }, ctx: z.RefinementCtx) => {
  const seen = new Set<string>();
  e.variants.forEach((v, i) => {
    if (seen.has(v.id)) ctx.addIssue({ code: "custom", path: ["variants", i, "id"], message: "Variant ids are unique." });
    seen.add(v.id);
  });
};
export const ZExperimentInput = ZExperimentFields.superRefine(uniqueVariants);
export type ExperimentInput = z.output<typeof ZExperimentInput>;

// ---- What is stored and answered ----

export type ConfigKeyDto = {
  key: string;
  type: ConfigType;
  defaultValue: JsonValue;
  description: string;
  updatedAt: string;
  overrides: OverrideDto[];
};
export type OverrideDto = {
  id: string;
  key: string;
  audienceId: string | null;
  value: JsonValue;
  priority: number;
  rolloutPercent: number;
  startsAt: string | null;
  endsAt: string | null;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
};
export type AudienceDto = {
  id: string;
  name: string;
  description: string;
  rules: AudienceRules;
  updatedAt: string;
};
export type ExperimentDto = {
  id: string;
  name: string;
  description: string;
  audienceId: string | null;
  status: ExperimentStatus;
  variants: Variant[];
  metric: Metric | null;
  startedAt: string | null;
  stoppedAt: string | null;
  updatedAt: string;
};

/** GET /api/v1/config */
export const ZConfigResponse = z
  .strictObject({
    values: z.record(z.string(), ZJsonValue).meta({ description: "Every key's value for this player." }),
    assignments: z
      .record(z.string(), z.string())
      .meta({ description: "The variant of each running experiment this player is in, by experiment id." }),
    version: z.number().int().meta({ description: "The project's remote config version (bumped by every change)." }),
  })
  .meta({ id: "RemoteConfig" });
export type ConfigResponse = z.output<typeof ZConfigResponse>;

// ---- Operator changes (tRPC inputs): the project and the reason beside the fields ----

const ZChange = { projectId: z.string().uuid(), reason: ZReason };
export const ZKeyChange = ZConfigKeyFields.extend(ZChange).superRefine(defaultMatchesType);
export const ZOverrideCreate = ZOverrideFields.extend(ZChange).superRefine(windowInOrder);
export const ZOverrideUpdate = ZOverridePatchFields.extend({ ...ZChange, id: z.string().uuid() });
export const ZAudienceChange = ZAudienceInput.extend(ZChange);
export const ZExperimentChange = ZExperimentFields.extend(ZChange).superRefine(uniqueVariants);
