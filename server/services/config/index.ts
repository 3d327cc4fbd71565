import { createHash } from "node:crypto";
import type { OperatorActor, SystemActor } from "../../actor";
import { uuidv7 } from "../../crypto";
import { pool } from "../../db";
import { env } from "../../env";
import { AppError, type ErrorCode } from "../../errors";
import { type Authorization, authorize, type OperatorContext, runCommand, viewerRead } from "../command";
import { applyEconomyChanges, invalidateEconomy, listCurrencies, listItems, listPurchases } from "../economy/definitions";
import { isCurrencyLine, type Line, purchaseLinesProblem } from "../economy/schemas";
import { assertJwksUrlAllowed, deleteIdentityProvider, listIdentityProviders, upsertIdentityProvider } from "../identity-providers";
import {
  createLeaderboard,
  deleteLeaderboard,
  invalidateLeaderboard,
  listLeaderboards,
  updateLeaderboard,
} from "../leaderboards/definitions";
import { lockedPlan, planOf } from "../remote-config/caps";
import {
  applyRemoteConfigChanges,
  exportRemoteConfig,
  REMOTE_CONFIG_KINDS,
  type RemoteConfigKind,
  remoteConfigCapRefusals,
  remoteConfigEntries,
  remoteConfigRefusals,
} from "../remote-config/config-as-code";
import { invalidateRemoteConfig } from "../remote-config/definitions";
import { applyReportReasonChanges, exportReportReasons, reportReasonEntries } from "../reports/config-as-code";
import { listStoreProducts } from "../store/products";
import { emitEvent } from "../webhooks/events";
import { auditImportedDefinitions } from "./import-audit";
import {
  CONFIG_KINDS,
  CONFIG_SCHEMA_PATH,
  CONFIG_VERSION,
  type ConfigDiff,
  type ConfigDocument,
  type ConfigKind,
  type ConfigStoreProduct,
  type ImportPlan,
  type KindDiff,
  type Refusal,
  type Warning,
} from "./schemas";
import { applyWebhookChanges, exportWebhooks, webhookEntries, webhookRefusals } from "./webhooks";

/**
 * Configuration as code: export a project's definitions as one document, import one as a diff
 * (dry run) or apply it. Apply recomputes the diff inside one transaction under a per-project
 * lock and performs it through the same service functions the dashboard and API use (their
 * checks run again there), so a diff computed earlier can never be applied stale: a stale
 * `expectDiffHash` is refused, and without one what is applied is what the project needs now.
 */

const normaliseLine = (line: Line): Line =>
  isCurrencyLine(line) ? { currencyId: line.currencyId, amount: line.amount } : { itemId: line.itemId, quantity: line.quantity };

export const schemaUrl = (): string => `${env().PUBLIC_URL ?? ""}${CONFIG_SCHEMA_PATH}`;

/** The project's configuration, every list ordered by id and every object's keys in schema order. */
export async function exportConfig(o: { projectId: string }): Promise<ConfigDocument> {
  const { projectId } = o;
  const [leaderboards, currencies, items, purchases, storeProducts, providers, webhooks, remote, reportReasons] = [
    await listLeaderboards({ projectId }),
    await listCurrencies({ projectId }),
    await listItems({ projectId }),
    await listPurchases({ projectId }),
    await listStoreProducts({ projectId }),
    await listIdentityProviders({ projectId }),
    await exportWebhooks(projectId),
    await exportRemoteConfig(projectId),
    await exportReportReasons(projectId),
  ];
  const byId = <T extends { id: string }>(list: T[]) => [...list].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    $schema: schemaUrl(),
    version: CONFIG_VERSION,
    leaderboards: byId(leaderboards).map((b) => ({
      id: b.id,
      name: b.name,
      sortOrder: b.sortOrder,
      operator: b.operator,
      minScore: b.minScore,
      maxScore: b.maxScore,
      resetSchedule: b.resetSchedule,
      clientWritable: b.clientWritable,
      scoreEvents: b.scoreEvents,
      rewards: b.rewards,
      startsAt: b.startsAt,
      endsAt: b.endsAt,
    })),
    currencies: byId(currencies).map((c) => ({
      id: c.id,
      name: c.name,
      initialBalance: c.initialBalance,
      maxBalance: c.maxBalance,
      clientWritable: c.clientWritable,
    })),
    items: byId(items).map((i) => ({ id: i.id, name: i.name, maxStack: i.maxStack })),
    purchases: byId(purchases).map((p) => ({
      id: p.id,
      name: p.name,
      costs: p.costs.map(normaliseLine),
      rewards: p.rewards.map(normaliseLine),
    })),
    storeProducts: byId(storeProducts).map((p) => ({
      id: p.id,
      name: p.name,
      rewards: p.rewards.map(normaliseLine),
      appleProductId: p.appleProductId,
      googleProductId: p.googleProductId,
      steamItemId: p.steamItemId,
      kind: p.kind,
      priceMicros: p.priceMicros,
      priceCurrency: p.priceCurrency,
    })),
    identityProviders: byId(providers).map((p) => ({
      id: p.id,
      issuer: p.issuer,
      jwksUrl: p.jwksUrl,
      audience: p.audience,
      algorithms: p.algorithms as ConfigDocument["identityProviders"][number]["algorithms"],
    })),
    webhooks,
    ...remote,
    reportReasons,
  };
}

export const exportConfigAs = viewerRead(exportConfig);

type Entry = { id: string } & Record<string, unknown>;

function diffKind(current: Entry[], desired: Entry[]): KindDiff {
  const now = new Map(current.map((e) => [e.id, e]));
  const next = new Map(desired.map((e) => [e.id, e]));
  const diff: KindDiff = { created: [], changed: [], deleted: [] };
  for (const [id, after] of next) {
    const before = now.get(id);
    if (!before) {
      diff.created.push({ id, after });
      continue;
    }
    const fields = Object.keys(after)
      .filter((field) => field !== "id" && JSON.stringify(before[field]) !== JSON.stringify(after[field]))
      .map((field) => ({ field, before: before[field], after: after[field] }));
    if (fields.length) diff.changed.push({ id, fields });
  }
  for (const [id, before] of now) if (!next.has(id)) diff.deleted.push({ id, before });
  const order = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  diff.created.sort(order);
  diff.changed.sort(order);
  diff.deleted.sort(order);
  return diff;
}

/** Refusals for deletions of what players hold, in the same words as deleteCurrency / deleteItem. */
async function heldRefusals(projectId: string, diff: ConfigDiff): Promise<Refusal[]> {
  const refusals: Refusal[] = [];
  const currencies = diff.currencies.deleted.map((d) => d.id);
  const items = diff.items.deleted.map((d) => d.id);
  if (currencies.length) {
    const { rows } = await pool().query<{ id: string }>(
      "SELECT DISTINCT currency_id AS id FROM wallets WHERE project_id = $1 AND currency_id = ANY($2::text[]) AND balance > 0 ORDER BY 1",
      [projectId, currencies],
    );
    for (const r of rows)
      refusals.push({ kind: "currencies", id: r.id, action: "delete", code: "IN_USE", message: "Players hold this currency." });
  }
  if (items.length) {
    const { rows } = await pool().query<{ id: string }>(
      "SELECT DISTINCT item_id AS id FROM inventory WHERE project_id = $1 AND item_id = ANY($2::text[]) AND quantity > 0 ORDER BY 1",
      [projectId, items],
    );
    for (const r of rows) refusals.push({ kind: "items", id: r.id, action: "delete", code: "IN_USE", message: "Players hold this item." });
  }
  return refusals;
}

/**
 * A max lowered (or set) below what players hold is not refused: they keep what they have and
 * can only spend down (apply_economy_change checks the max only where a value goes up). The
 * plan says how many players are above it.
 */
async function lowerMaxWarnings(projectId: string, diff: ConfigDiff): Promise<Warning[]> {
  const lowered = (kind: "currencies" | "items", field: "maxBalance" | "maxStack") =>
    diff[kind].changed.flatMap((c) => {
      const f = c.fields.find((x) => x.field === field);
      return f && typeof f.after === "number" && (f.before === null || (typeof f.before === "number" && f.after < f.before))
        ? [{ id: c.id, max: f.after }]
        : [];
    });
  const warnings: Warning[] = [];
  // One grouped count per kind, however many maxima were lowered.
  const checks = [
    {
      kind: "currencies",
      field: "maxBalance",
      sql: `SELECT w.currency_id AS id, count(*)::int AS n FROM wallets w
              JOIN unnest($2::text[], $3::bigint[]) AS x(id, max) ON x.id = w.currency_id
             WHERE w.project_id = $1 AND w.balance > x.max GROUP BY w.currency_id`,
    },
    {
      kind: "items",
      field: "maxStack",
      sql: `SELECT i.item_id AS id, count(*)::int AS n FROM inventory i
              JOIN unnest($2::text[], $3::bigint[]) AS x(id, max) ON x.id = i.item_id
             WHERE i.project_id = $1 AND i.quantity > x.max GROUP BY i.item_id`,
    },
  ] as const;
  for (const check of checks) {
    const maxima = lowered(check.kind, check.field);
    if (maxima.length === 0) continue;
    const { rows } = await pool().query<{ id: string; n: number }>(check.sql, [
      projectId,
      maxima.map((m) => m.id),
      maxima.map((m) => String(m.max)),
    ]);
    const above = new Map(rows.map((r) => [r.id, r.n]));
    for (const { id, max } of maxima) {
      const players = above.get(id) ?? 0;
      if (players > 0)
        warnings.push({
          kind: check.kind,
          id,
          field: check.field,
          max,
          players,
          message: `${players} ${players === 1 ? "player holds" : "players hold"} more than the new ${check.field} of ${max}; they keep it and can only spend down.`,
        });
    }
  }
  return warnings;
}

/**
 * An audience created or changed with a rule on player data: said in the plan, because the rule
 * matches only values the server wrote (a key the game's client writes itself never puts a player
 * in the audience: a player cannot join an audience by writing its own data).
 */
function dataRuleWarnings(diff: ConfigDiff): Warning[] {
  const rulesOf = (rules: unknown) => (rules as { all?: Array<{ field?: string; key?: string }> } | null)?.all ?? [];
  const touched = [
    ...diff.audiences.created.map((c) => ({ id: c.id, rules: c.after.rules })),
    ...diff.audiences.changed.flatMap((c) => c.fields.filter((f) => f.field === "rules").map((f) => ({ id: c.id, rules: f.after }))),
  ];
  touched.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return touched.flatMap(({ id, rules }) => {
    const dataKeys = [...new Set(rulesOf(rules).flatMap((r) => (r.field === "data" && typeof r.key === "string" ? [r.key] : [])))];
    if (dataKeys.length === 0) return [];
    return [
      {
        kind: "audiences" as const,
        id,
        field: "rules" as const,
        dataKeys,
        message: `Its rule on player data (${dataKeys.join(", ")}) matches only values written with a server key; values players write themselves never match.`,
      },
    ];
  });
}

/** Lines of created or changed purchases must name currencies and items of the resulting configuration, once per side. */
function purchaseRefusals(doc: ConfigDocument, diff: ConfigDiff): Refusal[] {
  const refusals: Refusal[] = [];
  const currencies = new Set(doc.currencies.map((c) => c.id));
  const items = new Set(doc.items.map((i) => i.id));
  const deletedCurrencies = new Set(diff.currencies.deleted.map((d) => d.id));
  const deletedItems = new Set(diff.items.deleted.map((d) => d.id));
  const touched = new Map<string, "create" | "change">([
    ...diff.purchases.created.map((c) => [c.id, "create"] as const),
    ...diff.purchases.changed.map((c) => [c.id, "change"] as const),
  ]);
  const referencedByKept = new Map<string, string[]>();
  for (const purchase of doc.purchases) {
    const action = touched.get(purchase.id);
    const problems: string[] = [];
    for (const side of ["costs", "rewards"] as const) {
      const seen = new Set<string>();
      for (const line of purchase[side]) {
        const ref = isCurrencyLine(line) ? `currency:${line.currencyId}` : `item:${line.itemId}`;
        if (seen.has(ref)) problems.push(`${side}: ${ref} is listed twice.`);
        seen.add(ref);
        const [known, deleted, id, what] = isCurrencyLine(line)
          ? [currencies, deletedCurrencies, line.currencyId, "currency"]
          : [items, deletedItems, line.itemId, "item"];
        if (known.has(id)) continue;
        if (deleted.has(id)) referencedByKept.set(ref, [...(referencedByKept.get(ref) ?? []), purchase.id]);
        else problems.push(`${side}: no ${what} "${id}".`);
      }
    }
    const linesProblem = purchaseLinesProblem(purchase.costs, purchase.rewards);
    if (linesProblem) problems.push(linesProblem);
    if (problems.length && action)
      refusals.push({ kind: "purchases", id: purchase.id, action, code: "VALIDATION_ERROR", message: problems.join(" ") });
  }
  for (const [ref, purchases] of referencedByKept) {
    const [what, id = ""] = ref.split(":");
    refusals.push({
      kind: what === "currency" ? "currencies" : "items",
      id,
      action: "delete",
      code: "IN_USE",
      message: `Purchases refer to it: ${[...new Set(purchases)].join(", ")}.`,
    });
  }
  return refusals;
}

const STORE_ID_FIELDS = ["appleProductId", "googleProductId", "steamItemId"] as const;

/**
 * Store products of the resulting configuration (the document's list, or the project's when the
 * document has none): a created or changed one must grant currencies and items of the result, each
 * once, and claim no store id another product claims; a currency or item a kept product grants
 * cannot be deleted (IN_USE, in deleteCurrency / deleteItem's words).
 */
function storeProductRefusals(doc: ConfigDocument, products: ConfigStoreProduct[], diff: ConfigDiff): Refusal[] {
  const refusals: Refusal[] = [];
  const known = { currency: new Set(doc.currencies.map((c) => c.id)), item: new Set(doc.items.map((i) => i.id)) };
  const deleted = { currency: new Set(diff.currencies.deleted.map((d) => d.id)), item: new Set(diff.items.deleted.map((d) => d.id)) };
  const touched = new Map<string, "create" | "change">([
    ...diff.storeProducts.created.map((c) => [c.id, "create"] as const),
    ...diff.storeProducts.changed.map((c) => [c.id, "change"] as const),
  ]);
  const claimed = new Map<string, string[]>();
  for (const product of products)
    for (const field of STORE_ID_FIELDS) {
      const storeId = product[field];
      if (storeId !== null) claimed.set(`${field}:${storeId}`, [...(claimed.get(`${field}:${storeId}`) ?? []), product.id]);
    }
  const granting = new Map<string, string[]>();
  for (const product of products) {
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const line of product.rewards) {
      const [what, id] = isCurrencyLine(line) ? (["currency", line.currencyId] as const) : (["item", line.itemId] as const);
      const ref = `${what}:${id}`;
      if (seen.has(ref)) problems.push(`rewards: ${ref} is listed twice.`);
      seen.add(ref);
      if (known[what].has(id)) continue;
      if (deleted[what].has(id)) granting.set(ref, [...(granting.get(ref) ?? []), product.id]);
      else problems.push(`rewards: no ${what} "${id}".`);
    }
    for (const field of STORE_ID_FIELDS) {
      const others = (claimed.get(`${field}:${product[field]}`) ?? []).filter((id) => id !== product.id);
      if (product[field] !== null && others.length)
        problems.push(`${field}: "${product[field]}" is also claimed by ${others.map((id) => `"${id}"`).join(", ")}.`);
    }
    const action = touched.get(product.id);
    if (problems.length && action)
      refusals.push({ kind: "storeProducts", id: product.id, action, code: "VALIDATION_ERROR", message: problems.join(" ") });
  }
  for (const [ref, ids] of granting) {
    const [what, id = ""] = ref.split(":");
    refusals.push({
      kind: what === "currency" ? "currencies" : "items",
      id,
      action: "delete",
      code: "IN_USE",
      message: `Store products grant it: ${[...new Set(ids)].join(", ")}.`,
    });
  }
  return refusals;
}

/** A board's fields added after version 1, as an absent field means them (the export writes them). */
function withBoardDefaults(b: ConfigDocument["leaderboards"][number]): ConfigDocument["leaderboards"][number] {
  return {
    ...b,
    scoreEvents: b.scoreEvents ?? false,
    rewards: b.rewards ?? [],
    startsAt: b.startsAt ? new Date(b.startsAt).toISOString() : null,
    endsAt: b.endsAt ? new Date(b.endsAt).toISOString() : null,
  };
}

/** Rewards of created or changed boards must name currencies and items of the resulting configuration; a deleted one still named is in use. */
function rewardRefusals(doc: ConfigDocument, diff: ConfigDiff): Refusal[] {
  const refusals: Refusal[] = [];
  const known = { currencies: new Set(doc.currencies.map((c) => c.id)), items: new Set(doc.items.map((i) => i.id)) };
  const touched = new Map<string, "create" | "change">([
    ...diff.leaderboards.created.map((c) => [c.id, "create"] as const),
    ...diff.leaderboards.changed.map((c) => [c.id, "change"] as const),
  ]);
  const deleted = {
    currencies: new Set(diff.currencies.deleted.map((d) => d.id)),
    items: new Set(diff.items.deleted.map((d) => d.id)),
  };
  const inUse = new Map<string, string[]>();
  for (const board of doc.leaderboards) {
    const problems: string[] = [];
    for (const tier of board.rewards ?? []) {
      for (const side of ["currencies", "items"] as const) {
        for (const line of tier[side]) {
          if (known[side].has(line.id)) continue;
          if (deleted[side].has(line.id)) inUse.set(`${side}:${line.id}`, [...(inUse.get(`${side}:${line.id}`) ?? []), board.id]);
          else problems.push(`rewards: no ${side === "currencies" ? "currency" : "item"} "${line.id}".`);
        }
      }
    }
    if (board.startsAt && board.endsAt && Date.parse(board.endsAt) <= Date.parse(board.startsAt)) {
      problems.push("The end (endsAt) must be after the start (startsAt).");
    }
    const action = touched.get(board.id);
    if (problems.length && action)
      refusals.push({ kind: "leaderboards", id: board.id, action, code: "VALIDATION_ERROR", message: problems.join(" ") });
  }
  for (const [ref, boards] of inUse) {
    const [side, id = ""] = ref.split(":");
    refusals.push({
      kind: side === "currencies" ? "currencies" : "items",
      id,
      action: "delete",
      code: "IN_USE",
      message: `Leaderboard rewards refer to it: ${[...new Set(boards)].join(", ")}.`,
    });
  }
  return refusals;
}

function fixedFieldRefusals(diff: ConfigDiff): Refusal[] {
  return diff.leaderboards.changed.flatMap((c) =>
    c.fields
      .filter((f) => f.field === "sortOrder" || f.field === "operator")
      .map(
        (f): Refusal => ({
          kind: "leaderboards",
          id: c.id,
          action: "change",
          code: "VALIDATION_ERROR",
          message: `${f.field} is fixed after creation (${String(f.before)} → ${String(f.after)}); create a board with another id instead.`,
        }),
      ),
  );
}

async function providerRefusals(doc: ConfigDocument, diff: ConfigDiff): Promise<Refusal[]> {
  const refusals: Refusal[] = [];
  const touched = [
    ...diff.identityProviders.created.map((c) => [c.id, "create"] as const),
    ...diff.identityProviders.changed.filter((c) => c.fields.some((f) => f.field === "jwksUrl")).map((c) => [c.id, "change"] as const),
  ];
  for (const [id, action] of touched) {
    const provider = doc.identityProviders.find((p) => p.id === id);
    if (!provider) continue;
    try {
      await assertJwksUrlAllowed(provider.jwksUrl, env().IDP_ALLOW_PRIVATE_NETWORKS);
    } catch (error) {
      const issue = error instanceof AppError ? (error.details as { issues?: Array<{ message: string }> }).issues?.[0]?.message : undefined;
      refusals.push({ kind: "identityProviders", id, action, code: "VALIDATION_ERROR", message: `jwksUrl: ${issue ?? "not allowed"}` });
    }
  }
  return refusals;
}

/** What importing `document` into the project would change, and what of it the services would refuse. Changes nothing. */
type Planned = ImportPlan & { remote: ReturnType<typeof remoteConfigEntries> };
async function planImport(o: { projectId: string; document: ConfigDocument; lock?: true }): Promise<Planned> {
  // Applying, the project's row is locked as the dashboard's remote config changes lock it: the caps hold between them.
  const plan = o.lock ? await lockedPlan(o.projectId) : await planOf(o.projectId);
  const current = await exportConfig({ projectId: o.projectId });
  const document = { ...o.document, leaderboards: o.document.leaderboards.map(withBoardDefaults) };
  const hooks = webhookEntries(current.webhooks ?? [], document.webhooks);
  const reasons = reportReasonEntries(current.reportReasons ?? [], document.reportReasons);
  // Absent from the document (written before store products existed): the project's are kept.
  const storeProducts = o.document.storeProducts ?? current.storeProducts ?? [];
  const desired = (kind: ConfigKind) => (kind === "storeProducts" ? storeProducts : document[kind]) as Entry[];
  // Remote config: absent sections are the project's own, so they change nothing.
  const remote = remoteConfigEntries(current, o.document);
  const isRemote = (kind: ConfigKind): kind is RemoteConfigKind => (REMOTE_CONFIG_KINDS as readonly string[]).includes(kind);
  const diff = Object.fromEntries(
    CONFIG_KINDS.map((kind) => [
      kind,
      kind === "webhooks"
        ? diffKind(hooks.current, hooks.desired)
        : kind === "reportReasons"
          ? diffKind(reasons.current, reasons.desired)
          : isRemote(kind)
            ? diffKind(remote[kind].current, remote[kind].desired)
            : diffKind((current[kind] ?? []) as Entry[], desired(kind)),
    ]),
  ) as ConfigDiff;
  const refusals = [
    ...fixedFieldRefusals(diff),
    ...(await heldRefusals(o.projectId, diff)),
    ...purchaseRefusals(o.document, diff),
    ...storeProductRefusals(o.document, storeProducts, diff),
    ...rewardRefusals(document, diff),
    ...(await providerRefusals(o.document, diff)),
    ...webhookRefusals(hooks.current.length, diff.webhooks),
    ...remoteConfigRefusals(remote, diff),
    ...remoteConfigCapRefusals(plan, remote),
  ].sort((a, b) => CONFIG_KINDS.indexOf(a.kind) - CONFIG_KINDS.indexOf(b.kind) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const changes = CONFIG_KINDS.reduce((n, k) => n + diff[k].created.length + diff[k].changed.length + diff[k].deleted.length, 0);
  const diffHash = createHash("sha256").update(JSON.stringify(diff)).digest("base64url").slice(0, 22);
  const warnings = [...(await lowerMaxWarnings(o.projectId, diff)), ...dataRuleWarnings(diff)];
  return { diff, refusals, warnings, changes, diffHash, remote };
}

/** The dry run an admin asks for before importing (the same role as the import: it reads what only admins change). */
export async function dryRunImportAs(ctx: OperatorContext, o: { projectId: string; document: ConfigDocument }): Promise<ImportPlan> {
  await authorize(ctx, o.projectId, "ADMIN");
  const { remote: _remote, ...plan } = await planImport(o);
  return plan;
}

const afterOf = <T>(diff: KindDiff, id: string) => diff.created.find((c) => c.id === id)?.after as T;
const desiredEntry = <T>(doc: ConfigDocument, kind: ConfigKind, id: string) => (doc[kind] as Entry[]).find((e) => e.id === id) as T;

/**
 * A document applied for another command (a scheduled change, by the scheduler or an operator's
 * cancel): who it runs as, and the audit row that names it, written even when nothing changed.
 */
export type ImportOnBehalf = {
  authorization: Authorization<OperatorActor | SystemActor>;
  action: string;
  target: string;
  note: Record<string, unknown>;
};

/**
 * Applies the document in one transaction: the diff is recomputed under a per-project advisory
 * lock, refused as a whole if anything in it is refused (or if it is not the diff the caller
 * confirmed), then performed in dependency order — currencies and items before the purchases and
 * store products that name them, those before the currencies and items they stop naming — and
 * audited when it changed anything. Bounds for the one transaction (`prepare`): no statement over 30 s, no lock
 * waited for over 10 s (a refusal rolls everything back; the import is all or nothing).
 */
export async function applyImportAs(
  ctx: OperatorContext | null,
  o: { projectId: string; document: ConfigDocument; expectDiffHash?: string; onBehalf?: ImportOnBehalf },
): Promise<ImportPlan> {
  const { projectId, document: doc, onBehalf } = o;
  let touchedBoards: string[] = [];
  // Every audit row of this import carries it: the summary below and one per changed definition.
  const importId = uuidv7();
  return runCommand<ImportPlan, unknown, OperatorActor | SystemActor>(ctx, {
    ...(onBehalf ? { authorization: onBehalf.authorization } : { projectId, minimum: "ADMIN" as const }),
    prepare: async (client) => {
      await client.query("SET LOCAL statement_timeout = 30000");
      await client.query("SET LOCAL lock_timeout = 10000");
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`config-import:${projectId}`]);
    },
    action: onBehalf?.action ?? "config.import",
    target: onBehalf?.target ?? projectId,
    audited: (plan) => onBehalf !== undefined || plan.changes > 0,
    after: (plan) => ({ ...onBehalf?.note, importId, diff: plan.diff, changes: plan.changes }),
    run: async (actor, _before, audit) => {
      const { remote, ...plan } = await planImport({ projectId, document: doc, lock: true });
      if (o.expectDiffHash !== undefined && plan.diffHash !== o.expectDiffHash) {
        throw new AppError("VERSION_CONFLICT", {
          message: "The project changed since this diff was computed; review the new diff.",
          details: { plan },
        });
      }
      const [first] = plan.refusals;
      if (first) {
        throw new AppError(first.code as ErrorCode, {
          message: `Nothing was applied: ${plan.refusals.length} change(s) refused (${first.kind} "${first.id}": ${first.message}).`,
          details: { ...first.details, refusals: plan.refusals },
        });
      }
      const { diff } = plan;
      touchedBoards = [...diff.leaderboards.created, ...diff.leaderboards.changed, ...diff.leaderboards.deleted].map((e) => e.id);
      // The economy and the store products in a constant number of statements (linear in the
      // document); leaderboards (≤ 1,000) and identity providers (≤ 100) through their services.
      const upserts = <K extends "currencies" | "items" | "purchases">(kind: K) =>
        [...diff[kind].created, ...diff[kind].changed].map(({ id }) => desiredEntry<ConfigDocument[K][number]>(doc, kind, id));
      const wantedProducts = new Map((doc.storeProducts ?? []).map((p) => [p.id, p]));
      const productUpserts = [...diff.storeProducts.created, ...diff.storeProducts.changed].flatMap(({ id }) => {
        const product = wantedProducts.get(id);
        return product ? [{ ...product, rewards: product.rewards.map(normaliseLine) }] : [];
      });
      await applyEconomyChanges(projectId, {
        currencies: { upsert: upserts("currencies"), delete: diff.currencies.deleted.map((d) => d.id) },
        items: { upsert: upserts("items"), delete: diff.items.deleted.map((d) => d.id) },
        purchases: {
          upsert: upserts("purchases").map((p) => ({ ...p, costs: p.costs.map(normaliseLine), rewards: p.rewards.map(normaliseLine) })),
          delete: diff.purchases.deleted.map((d) => d.id),
        },
        storeProducts: { upsert: productUpserts, delete: diff.storeProducts.deleted.map((d) => d.id) },
      });
      for (const { id } of diff.leaderboards.deleted) await deleteLeaderboard({ projectId, id });
      for (const { id } of diff.leaderboards.created) await createLeaderboard({ projectId, input: afterOf(diff.leaderboards, id) });
      for (const { id } of diff.leaderboards.changed) {
        const {
          id: _id,
          sortOrder: _s,
          operator: _o,
          ...input
        } = withBoardDefaults(desiredEntry<ConfigDocument["leaderboards"][number]>(doc, "leaderboards", id));
        await updateLeaderboard({ projectId, id, input });
      }
      for (const { id } of diff.identityProviders.deleted) await deleteIdentityProvider({ projectId, id });
      for (const { id } of [...diff.identityProviders.created, ...diff.identityProviders.changed]) {
        await upsertIdentityProvider({ projectId, provider: desiredEntry(doc, "identityProviders", id) });
      }
      await applyWebhookChanges(projectId, diff.webhooks, doc.webhooks);
      await applyRemoteConfigChanges(projectId, remote, diff);
      await applyReportReasonChanges(projectId, diff.reportReasons, doc.reportReasons);
      await auditImportedDefinitions({ actor: audit ?? { kind: "system" }, projectId, importId, diff });
      if (plan.changes > 0) {
        // Counts per kind, not the documents: a receiver fetches the config if it wants it.
        const counts = Object.fromEntries(
          Object.entries(diff).map(([kind, d]) => [
            kind,
            { created: d.created.length, changed: d.changed.length, deleted: d.deleted.length },
          ]),
        );
        await emitEvent({
          projectId,
          type: "config.imported",
          data: {
            changes: plan.changes,
            diffHash: plan.diffHash,
            operatorId: actor.kind === "operator" ? actor.operatorId : null,
            diff: counts,
          },
        });
      }
      return plan;
    },
    // The definitions' caches may hold what this transaction read or wrote, committed or not.
    invalidate: async () => {
      await invalidateEconomy(projectId);
      await invalidateRemoteConfig(projectId);
      for (const id of touchedBoards) await invalidateLeaderboard(projectId, id);
    },
  });
}
