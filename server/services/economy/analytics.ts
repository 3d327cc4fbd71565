import { uuidv7Floor } from "../../crypto";
import { pool, transaction } from "../../db";
import { viewerRead } from "../command";

/**
 * Sources and sinks of every currency per UTC day, so a designer sees inflation: what entered
 * the economy (purchase rewards, store purchases, grants, leaderboard rewards, adds) and what left
 * it (purchase costs, subtractions, revokes, store refunds). One aggregation over the ledger: each
 * row's `currencies` lines ([{id, delta, balance}]) expanded with jsonb_array_elements, a
 * positive delta counted as a source of its row's kind, a negative one as a sink.
 */
export const ANALYTICS_DEFAULT_DAYS = 30;
export const ANALYTICS_MAX_DAYS = 90;
export const SOURCE_KINDS = ["purchase", "store_purchase", "grant", "reward", "add"] as const;
export const SINK_KINDS = ["purchase", "subtract", "revoke", "store_refund"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];
export type SinkKind = (typeof SINK_KINDS)[number];

/** `other`: a kind of row not named above on that side (none today); kept so the day's totals always equal the ledger. */
export type AnalyticsDay = {
  day: string;
  sources: Record<SourceKind | "other", number>;
  sinks: Record<SinkKind | "other", number>;
  added: number;
  removed: number;
  net: number;
};
export type CurrencyAnalytics = { currencyId: string; name: string; days: AnalyticsDay[]; added: number; removed: number; net: number };
export type EconomyAnalytics = { from: string; to: string; days: number; currencies: CurrencyAnalytics[] };

const DAY_MS = 86_400_000;
/** Ledger ids are UUIDv7 made just before created_at is written: a margin for clocks and long transactions. */
const ID_CLOCK_MARGIN_MS = 5 * 60_000;

const emptyDay = (day: string): AnalyticsDay => ({
  day,
  sources: { purchase: 0, store_purchase: 0, grant: 0, reward: 0, add: 0, other: 0 },
  sinks: { purchase: 0, subtract: 0, revoke: 0, store_refund: 0, other: 0 },
  added: 0,
  removed: 0,
  net: 0,
});

/** `day`: days since the Unix epoch (UTC); `kind`: the ledger's enum (STORE_PURCHASE). */
type Aggregate = { day: number; currency_id: string; kind: string; added: string | null; removed: string | null };

/** The last `days` UTC days, today included, of every currency the project has (and any deleted one that moved in the range). */
export async function economyAnalytics(o: { projectId: string; days?: number; now?: Date }): Promise<EconomyAnalytics> {
  const days = Math.min(Math.max(Math.trunc(o.days ?? ANALYTICS_DEFAULT_DAYS), 1), ANALYTICS_MAX_DAYS);
  const now = o.now ?? new Date();
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + DAY_MS;
  const start = end - days * DAY_MS;
  const names = await pool().query<{ id: string; name: string }>("SELECT id, name FROM currencies WHERE project_id = $1 ORDER BY id", [
    o.projectId,
  ]);
  // The id bound makes this a range scan of the primary key (ids are time-ordered) filtered by
  // project, instead of every row of the project; created_at is the exact bound. The planner
  // guesses 100 lines per row's JSON array (there are one or two), and at that guess compiles
  // the query (JIT) for longer than it runs: off for this statement.
  const aggregates = await transaction(async (client) => {
    await client.query("SET LOCAL jit = off");
    return client.query<Aggregate>(
      `SELECT ((t.created_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01') AS day, c->>'id' AS currency_id, t.kind::text AS kind,
              sum((c->>'delta')::bigint) FILTER (WHERE (c->>'delta')::bigint > 0)::text AS added,
              sum(-(c->>'delta')::bigint) FILTER (WHERE (c->>'delta')::bigint < 0)::text AS removed
         FROM economy_transactions t CROSS JOIN jsonb_array_elements(t.currencies) c
        WHERE t.project_id = $1 AND t.created_at >= $2 AND t.created_at < $3 AND t.id >= $4::uuid AND t.id < $5::uuid
        GROUP BY 1, 2, 3`,
      [o.projectId, new Date(start), new Date(end), uuidv7Floor(start - ID_CLOCK_MARGIN_MS), uuidv7Floor(end + ID_CLOCK_MARGIN_MS)],
    );
  });
  const dayList = Array.from({ length: days }, (_, i) => new Date(start + i * DAY_MS).toISOString().slice(0, 10));
  const byCurrency = new Map<string, Map<string, AnalyticsDay>>();
  const currencyOf = (id: string) => {
    let series = byCurrency.get(id);
    if (!series) {
      series = new Map(dayList.map((d) => [d, emptyDay(d)]));
      byCurrency.set(id, series);
    }
    return series;
  };
  for (const c of names.rows) currencyOf(c.id);
  for (const a of aggregates.rows) {
    const day = currencyOf(a.currency_id).get(new Date(a.day * DAY_MS).toISOString().slice(0, 10));
    if (!day) continue;
    const kind = a.kind.toLowerCase();
    const added = Number(a.added ?? 0);
    const removed = Number(a.removed ?? 0);
    const source = (SOURCE_KINDS as readonly string[]).includes(kind) ? (kind as SourceKind) : "other";
    const sink = (SINK_KINDS as readonly string[]).includes(kind) ? (kind as SinkKind) : "other";
    day.sources[source] += added;
    day.sinks[sink] += removed;
    day.added += added;
    day.removed += removed;
    day.net = day.added - day.removed;
  }
  const nameOf = new Map(names.rows.map((c) => [c.id, c.name]));
  const currencies = [...byCurrency.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([currencyId, series]): CurrencyAnalytics => {
      const list = [...series.values()];
      const added = list.reduce((sum, d) => sum + d.added, 0);
      const removed = list.reduce((sum, d) => sum + d.removed, 0);
      return { currencyId, name: nameOf.get(currencyId) ?? `${currencyId} (deleted)`, days: list, added, removed, net: added - removed };
    });
  return { from: dayList[0] ?? "", to: dayList[dayList.length - 1] ?? "", days, currencies };
}

/** For every member of the project (viewers included): the numbers hold no player's data. */
export const economyAnalyticsAs = viewerRead((input: { projectId: string; days?: number }) => economyAnalytics(input));
