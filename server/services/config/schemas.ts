import { z } from "zod";
import { MAX_AMOUNT, MAX_LINES, ZEconomyId, ZLine } from "../economy/schemas";
import { ZIdentityProviderInput } from "../identity-providers";
import { HIDDEN_CHARACTERS_MESSAGE, hasHiddenCharacters } from "../labels";
import { ZWindowInstant } from "../leaderboards/board-schemas";
import { MAX_SAFE_SCORE, ZLeaderboardId, ZOperator, ZRewards, ZSchedule, ZSortOrder } from "../leaderboards/schemas";
import { ZConfigAudiences, ZConfigExperiments, ZConfigRemoteConfig } from "../remote-config/config-as-code";
import { ZConfigReportReasons } from "../reports/schemas";
import { ZStoreProductInput } from "../store/schemas";
import { duplicateUrlIssues, ZConfigWebhooks } from "./webhook-schemas";

/**
 * A project's configuration as one JSON document: what operators define (leaderboards,
 * currencies, items, purchases, store products, identity providers, webhook endpoints, remote config,
 * report reasons) — never what
 * players produce, never a project id, never a secret (so no store credentials, and no store
 * settings either: a bundle id or package name belongs to one environment's app, not to the
 * game's design). Each list is the whole set of its kind: an id missing from a list is deleted on
 * import. Every field is required (no defaults), so a document means exactly what
 * it says and importing a project's own export changes nothing. Field rules are the services'
 * (same id patterns, bounds, schedules, lines).
 */
export const CONFIG_VERSION = 1;
export const CONFIG_SCHEMA_PATH = "/api/config-schema.json";

const ZName = z
  .string()
  .min(1)
  .max(100)
  .refine((s) => !hasHiddenCharacters(s), HIDDEN_CHARACTERS_MESSAGE)
  .meta({ description: "1–100 characters, no leading or trailing spaces, no control or invisible formatting characters." });
const ZScore = z
  .number()
  .min(-MAX_SAFE_SCORE)
  .max(MAX_SAFE_SCORE)
  .refine((n) => Number.isFinite(n), "Scores are finite numbers.");
const ZBalance = z.number().int().min(0).max(MAX_AMOUNT);

export const ZConfigLeaderboard = z.strictObject({
  id: ZLeaderboardId,
  name: ZName,
  sortOrder: ZSortOrder.meta({ description: "Fixed after creation." }),
  operator: ZOperator.meta({ description: "Fixed after creation." }),
  minScore: ZScore.nullable(),
  maxScore: ZScore.nullable(),
  resetSchedule: ZSchedule.nullable(),
  clientWritable: z.boolean(),
  // Added after version 1 was published: optional so earlier documents still import (absent:
  // false and no rewards, what those boards had); an export always writes them.
  scoreEvents: z.boolean().optional().meta({ description: "Deliver leaderboard.score_submitted webhook events. Absent: false." }),
  rewards: ZRewards.optional().meta({
    description:
      "Paid when a period closes (see the leaderboards guide). Absent or []: none. Currencies and items must be in this document.",
  }),
  startsAt: ZWindowInstant.nullable().optional().meta({
    description: "A limited-time board accepts scores from this instant (UTC). Absent or null: from the start.",
  }),
  endsAt: ZWindowInstant.nullable().optional().meta({
    description: "A limited-time board refuses scores from this instant (UTC); reads keep working. Absent or null: no end.",
  }),
});
export const ZConfigCurrency = z.strictObject({
  id: ZEconomyId,
  name: ZName,
  initialBalance: ZBalance,
  maxBalance: ZBalance.nullable(),
  clientWritable: z.boolean(),
});
export const ZConfigItem = z.strictObject({
  id: ZEconomyId,
  name: ZName,
  maxStack: z.number().int().min(1).max(MAX_AMOUNT).nullable(),
});
export const ZConfigPurchase = z.strictObject({
  id: ZEconomyId,
  name: ZName,
  costs: z.array(ZLine).max(MAX_LINES),
  rewards: z.array(ZLine).max(MAX_LINES),
});
/**
 * A real-money store product: ZStoreProductInput's fields and rules (at least one store id, a price
 * and its currency together, a Steam product priced), every field required as everywhere in the
 * document; its name and store ids are trimmed, as the dashboard's form trims them. Store ids are
 * unique per project: a product claiming another's is a refusal of the plan, which names the other.
 */
const productShape = ZStoreProductInput.shape;
export const ZConfigStoreProduct = z
  .strictObject({
    id: productShape.id,
    name: productShape.name,
    rewards: productShape.rewards,
    appleProductId: productShape.appleProductId.unwrap(),
    googleProductId: productShape.googleProductId.unwrap(),
    steamItemId: productShape.steamItemId.unwrap(),
    kind: productShape.kind.unwrap(),
    priceMicros: productShape.priceMicros
      .unwrap()
      .meta({ description: "Millionths of priceCurrency (USD 4.99 = 4990000); null: no price." }),
    priceCurrency: productShape.priceCurrency.unwrap(),
  })
  .superRefine((product, ctx) => {
    const checked = ZStoreProductInput.safeParse(product);
    if (checked.success) return;
    for (const issue of checked.error.issues)
      if (issue.code === "custom") ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
  });
export const ZConfigStoreProducts = z.array(ZConfigStoreProduct).max(1000).optional().meta({
  description:
    "Real-money store products (added after version 1). Absent: the project's store products are left as they are; present: the whole set.",
});

export const ZConfigIdentityProvider = ZIdentityProviderInput.extend({ algorithms: ZIdentityProviderInput.shape.algorithms.unwrap() });

type WithId = { id: string };
function uniqueIds(list: WithId[], ctx: z.RefinementCtx, path: string): void {
  const seen = new Set<string>();
  list.forEach((entry, i) => {
    if (seen.has(entry.id)) ctx.addIssue({ code: "custom", path: [path, i, "id"], message: `The id "${entry.id}" is listed twice.` });
    seen.add(entry.id);
  });
}

export const ZConfigDocument = z
  .strictObject({
    $schema: z.string().max(2048).optional().meta({ description: "The URL of this schema, for editors; ignored on import." }),
    version: z.literal(CONFIG_VERSION),
    leaderboards: z.array(ZConfigLeaderboard).max(1000),
    currencies: z.array(ZConfigCurrency).max(1000),
    items: z.array(ZConfigItem).max(10_000),
    purchases: z.array(ZConfigPurchase).max(10_000),
    storeProducts: ZConfigStoreProducts,
    identityProviders: z.array(ZConfigIdentityProvider).max(100),
    webhooks: ZConfigWebhooks,
    remoteConfig: ZConfigRemoteConfig,
    audiences: ZConfigAudiences,
    experiments: ZConfigExperiments,
    reportReasons: ZConfigReportReasons,
  })
  .superRefine((doc, ctx) => {
    for (const kind of ["leaderboards", "currencies", "items", "purchases", "identityProviders"] as const) uniqueIds(doc[kind], ctx, kind);
    uniqueIds(doc.storeProducts ?? [], ctx, "storeProducts");
    uniqueIds(doc.audiences ?? [], ctx, "audiences");
    uniqueIds(doc.experiments ?? [], ctx, "experiments");
    uniqueIds(
      (doc.remoteConfig?.keys ?? []).map((k) => ({ id: k.key })),
      ctx,
      "remoteConfig",
    );
    for (const issue of duplicateUrlIssues(doc.webhooks)) ctx.addIssue({ code: "custom", ...issue });
    doc.leaderboards.forEach((b, i) => {
      if (b.minScore !== null && b.maxScore !== null && b.minScore > b.maxScore)
        ctx.addIssue({ code: "custom", path: ["leaderboards", i, "maxScore"], message: "maxScore must not be below minScore." });
    });
    doc.currencies.forEach((c, i) => {
      if (c.maxBalance !== null && c.maxBalance < c.initialBalance)
        ctx.addIssue({ code: "custom", path: ["currencies", i, "maxBalance"], message: "maxBalance must not be below initialBalance." });
    });
    for (const kind of ["leaderboards", "currencies", "items", "purchases"] as const) {
      doc[kind].forEach((entry, i) => {
        if (entry.name.trim() !== entry.name)
          ctx.addIssue({ code: "custom", path: [kind, i, "name"], message: "No leading or trailing spaces." });
      });
    }
  })
  .meta({ title: "Game backend project configuration", description: "A project's configuration as code (version 1)." });

export type ConfigDocument = z.infer<typeof ZConfigDocument>;
export type ConfigLeaderboard = z.infer<typeof ZConfigLeaderboard>;
export type ConfigCurrency = z.infer<typeof ZConfigCurrency>;
export type ConfigItem = z.infer<typeof ZConfigItem>;
export type ConfigPurchase = z.infer<typeof ZConfigPurchase>;
export type ConfigStoreProduct = z.infer<typeof ZConfigStoreProduct>;
export type ConfigIdentityProvider = z.infer<typeof ZConfigIdentityProvider>;

export const CONFIG_KINDS = [
  "currencies",
  "items",
  "purchases",
  "storeProducts",
  "leaderboards",
  "identityProviders",
  "webhooks",
  // Remote config (server/services/remote-config/config-as-code.ts).
  "audiences",
  "remoteConfig",
  "experiments",
  // Moderation (server/services/reports/config-as-code.ts).
  "reportReasons",
] as const;
export type ConfigKind = (typeof CONFIG_KINDS)[number];

/** The document's JSON Schema (draft 2020-12), served at CONFIG_SCHEMA_PATH and committed as config-schema.json. */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ZConfigDocument, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as Record<string, unknown>;
}

// ---- The diff ----

const ZFieldChange = z.object({ field: z.string(), before: z.unknown(), after: z.unknown() });
export const ZKindDiff = z.object({
  created: z.array(z.object({ id: z.string(), after: z.record(z.string(), z.unknown()) })),
  changed: z.array(z.object({ id: z.string(), fields: z.array(ZFieldChange) })),
  deleted: z.array(z.object({ id: z.string(), before: z.record(z.string(), z.unknown()) })),
});
export type KindDiff = z.infer<typeof ZKindDiff>;
export type ConfigDiff = Record<ConfigKind, KindDiff>;
/** `details`: the error's own details when the import is refused for it (LIMIT_EXCEEDED: `{ limit, max, current }`). */
export type Refusal = {
  kind: ConfigKind;
  id: string;
  action: "create" | "change" | "delete";
  code: string;
  message: string;
  details?: Record<string, unknown>;
};
/** Not refused, but worth a look before applying: a lowered max below what players already hold (they keep it; they can only spend down). */
export type Warning =
  | {
      kind: "currencies" | "items";
      id: string;
      field: "maxBalance" | "maxStack";
      max: number;
      players: number;
      message: string;
    }
  /** An audience rule on player data keys: it matches only values a server key wrote (players' own writes never count). */
  | { kind: "audiences"; id: string; field: "rules"; dataKeys: string[]; message: string };
export type ImportPlan = { diff: ConfigDiff; refusals: Refusal[]; warnings: Warning[]; changes: number; diffHash: string };
