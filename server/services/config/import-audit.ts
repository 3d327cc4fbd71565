import type { AuditActor } from "../audit";
import { recordAudits } from "../audit";
import { CONFIG_KINDS, type ConfigDiff, type ConfigKind } from "./schemas";

/**
 * A config import's audit trail, one row per definition it created, changed or deleted, so the
 * log answers "who changed buy-potion's price?" without reading the import's whole diff. Each
 * row's target is `<kind>:<id>` ("purchase:buy-potion"); its before and after hold that
 * definition's changed fields only (a creation: every field after; a deletion: every field
 * before), and both carry the import's id, which the import's summary row carries too: the
 * audit page filters by it. Written in one statement per 1,000 rows, inside the import's
 * transaction (runCommand's), so the rows commit or roll back with the import and its summary.
 */
export const TARGET_KIND: Record<ConfigKind, string> = {
  currencies: "currency",
  items: "item",
  purchases: "purchase",
  storeProducts: "store-product",
  leaderboards: "leaderboard",
  identityProviders: "identity-provider",
  webhooks: "webhook",
  remoteConfig: "config-key",
  audiences: "audience",
  experiments: "experiment",
  reportReasons: "report-reason",
};

export async function auditImportedDefinitions(o: {
  actor: AuditActor;
  projectId: string;
  importId: string;
  diff: ConfigDiff;
}): Promise<void> {
  const { importId } = o;
  const entries: Array<{ action: string; target: string; before: unknown; after: unknown }> = [];
  for (const kind of CONFIG_KINDS) {
    const d = o.diff[kind];
    const rows = [
      ...d.created.map((c) => ({ id: c.id, verb: "create", before: {}, after: withoutId(c.after) })),
      ...d.changed.map((c) => ({
        id: c.id,
        verb: "change",
        before: Object.fromEntries(c.fields.map((f) => [f.field, f.before])),
        after: Object.fromEntries(c.fields.map((f) => [f.field, f.after])),
      })),
      ...d.deleted.map((c) => ({ id: c.id, verb: "delete", before: withoutId(c.before), after: {} })),
    ];
    for (const row of rows)
      entries.push({
        action: `config.import.${TARGET_KIND[kind]}.${row.verb}`,
        target: `${TARGET_KIND[kind]}:${row.id}`,
        before: { importId, ...row.before },
        after: { importId, ...row.after },
      });
  }
  await recordAudits(o.actor, o.projectId, entries); // one statement per 1,000 rows
}

const withoutId = (entry: Record<string, unknown>) => Object.fromEntries(Object.entries(entry).filter(([k]) => k !== "id"));
