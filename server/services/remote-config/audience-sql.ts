import type { AudienceRules, Rule } from "./schemas";

/**
 * An audience's rules compiled to ONE SQL predicate over `players p`: counting an audience, the
 * support view and GET /config all evaluate this same text, so they cannot disagree. Every value
 * is a bind parameter (`Params.add`); only column names and operators are written into the text.
 * The predicate is wrapped in `IS TRUE`, so an unknown (a player never seen, no client version)
 * is "not in the audience" rather than SQL null.
 */
export class Params {
  readonly values: unknown[];
  constructor(initial: unknown[] = []) {
    this.values = [...initial];
  }
  add(value: unknown, cast?: string): string {
    this.values.push(value);
    return `$${this.values.length}${cast ? `::${cast}` : ""}`;
  }
  /** A parameter added the first time the text needs it (Postgres refuses a parameter it cannot type because nothing uses it). */
  lazy(value: unknown, cast?: string): () => string {
    let ref: string | undefined;
    return () => {
      ref ??= this.add(value, cast);
      return ref;
    };
  }
}

/** Dotted versions compare number by number, padded to 8 parts (1.2 = 1.2.0); anything else is not a version. */
export const VERSION_REGEX = "^[0-9]{1,9}(\\.[0-9]{1,9}){0,7}$";
const VERSION_PARTS = 8;
export function versionParts(version: string): number[] {
  const parts = version.split(".").map(Number);
  while (parts.length < VERSION_PARTS) parts.push(0);
  return parts;
}
// CASE (not AND) so the cast never sees a value the regex refused: Postgres does not promise AND's order.
const PLAYER_VERSION = `(CASE WHEN p.client_version ~ '${VERSION_REGEX}'
  THEN (string_to_array(p.client_version, '.') || array_fill('0'::text, ARRAY[${VERSION_PARTS} - cardinality(string_to_array(p.client_version, '.'))]))::int[]
  END)`;

const BANNED = (now: () => string) => `(p.banned_at IS NOT NULL AND (p.banned_until IS NULL OR p.banned_until > ${now()}))`;
const HAS_IDENTITY = "EXISTS (SELECT 1 FROM identities i WHERE i.player_id = p.id)";
const SIGN_IN: Record<string, string> = {
  anonymous: `(p.email IS NULL AND NOT ${HAS_IDENTITY})`,
  email: "(p.email IS NOT NULL)",
  oidc: HAS_IDENTITY,
  device: "EXISTS (SELECT 1 FROM device_credentials dc WHERE dc.player_id = p.id)",
};
/** Store purchases that count: granted (so not refunded) and paid with real money (not sandbox). */
const COUNTED_SALES = "s.player_id = p.id AND s.project_id = p.project_id AND s.status = 'granted' AND s.environment = 'production'";

function ruleSql(rule: Rule, params: Params, now: () => string): string {
  switch (rule.field) {
    case "signInMethod":
      return `(${rule.in.map((m) => SIGN_IN[m]).join(" OR ")})`;
    case "hasEmail":
      return `((p.email IS NOT NULL) = ${params.add(rule.eq, "boolean")})`;
    case "createdAt":
    case "lastSeenAt": {
      const column = rule.field === "createdAt" ? "p.created_at" : "p.last_seen_at";
      const parts: string[] = [];
      if (rule.after) parts.push(`${column} >= ${params.add(rule.after, "timestamptz")}`);
      if (rule.before) parts.push(`${column} < ${params.add(rule.before, "timestamptz")}`);
      if (rule.withinDays) parts.push(`${column} >= ${now()} - make_interval(days => ${params.add(rule.withinDays, "int")})`);
      return `(${parts.join(" AND ")})`;
    }
    case "platform":
      return `(p.platform = ANY(${params.add(rule.in, "text[]")}))`;
    case "country":
      return `(p.country = ANY(${params.add(rule.in, "text[]")}))`;
    case "clientVersion": {
      const parts: string[] = [];
      if (rule.gte) parts.push(`${PLAYER_VERSION} >= ${params.add(versionParts(rule.gte), "int[]")}`);
      if (rule.lt) parts.push(`${PLAYER_VERSION} < ${params.add(versionParts(rule.lt), "int[]")}`);
      return `(${parts.join(" AND ")})`;
    }
    case "banned":
      return `(${BANNED(now)} = ${params.add(rule.eq, "boolean")})`;
    case "balance": {
      // A player without a wallet of the currency has its initial balance (wallets are created on first use).
      const currency = params.add(rule.currency);
      const balance = `COALESCE((SELECT w.balance FROM wallets w WHERE w.project_id = p.project_id AND w.player_id = p.id AND w.currency_id = ${currency}),
        (SELECT c.initial_balance FROM currencies c WHERE c.project_id = p.project_id AND c.id = ${currency}))`;
      const parts: string[] = [];
      if (rule.gte !== undefined) parts.push(`${balance} >= ${params.add(String(rule.gte), "bigint")}`);
      if (rule.lte !== undefined) parts.push(`${balance} <= ${params.add(String(rule.lte), "bigint")}`);
      return `(${parts.join(" AND ")})`;
    }
    case "storeSpent":
      return `(COALESCE((SELECT sum(s.price_micros * s.quantity) FROM store_transactions s WHERE ${COUNTED_SALES} AND s.currency = ${params.add(rule.currency)}), 0) >= ${params.add(String(rule.gte), "numeric")})`;
    case "storePurchases":
      return `((SELECT count(*) FROM store_transactions s WHERE ${COUNTED_SALES}) >= ${params.add(rule.gte, "int")})`;
    case "data":
      // Only a value the server wrote: a player must not put itself into an audience by writing the key.
      return `EXISTS (SELECT 1 FROM player_data d WHERE d.player_id = p.id AND d.key = ${params.add(rule.key)} AND d.value = ${params.add(JSON.stringify(rule.eq), "jsonb")} AND d.written_by_server)`;
    case "experiment": {
      const variant = rule.variant === undefined ? "" : ` AND a.variant = ${params.add(rule.variant)}`;
      return `EXISTS (SELECT 1 FROM experiment_assignments a WHERE a.project_id = p.project_id AND a.player_id = p.id AND a.experiment_id = ${params.add(rule.experimentId)}${variant})`;
    }
  }
}

/** `now`: the parameter that time rules compare with (`params.lazy(now, "timestamptz")`), so tests can inject a clock. */
export function audienceSql(rules: AudienceRules, params: Params, now: () => string): string {
  return `((${rules.all.map((r) => ruleSql(r, params, now)).join(" AND ")}) IS TRUE)`;
}
