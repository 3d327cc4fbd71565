import type { Rule } from "@/server/services/remote-config/schemas";

/** One row of the rule builder: a field, an operator, a value, and what some fields need besides (a currency, a data key, an experiment). */
export type RuleRow = { field: Rule["field"]; op: string; value: string; extra: string };

export const FIELDS: ReadonlyArray<{
  field: Rule["field"];
  label: string;
  ops: ReadonlyArray<[string, string]>;
  extra?: string;
  hint: string;
  /** What an operator must know about the field, shown under its rule. */
  note?: string;
}> = [
  { field: "signInMethod", label: "Sign-in method", ops: [["in", "is one of"]], hint: "anonymous, email, oidc, device" },
  { field: "hasEmail", label: "Has e-mail", ops: [["eq", "is"]], hint: "true or false" },
  {
    field: "createdAt",
    label: "Created",
    ops: [
      ["withinDays", "within the last (days)"],
      ["after", "after"],
      ["before", "before"],
    ],
    hint: "days, or a date",
  },
  {
    field: "lastSeenAt",
    label: "Last seen",
    ops: [
      ["withinDays", "within the last (days)"],
      ["after", "after"],
      ["before", "before"],
    ],
    hint: "days, or a date",
  },
  { field: "platform", label: "Platform", ops: [["in", "is one of"]], hint: "ios, android, webgl…" },
  { field: "country", label: "Country", ops: [["in", "is one of"]], hint: "FR, DE…" },
  {
    field: "clientVersion",
    label: "Client version",
    ops: [
      ["gte", "at least"],
      ["lt", "below"],
    ],
    hint: "1.4.2",
  },
  { field: "banned", label: "Banned", ops: [["eq", "is"]], hint: "true or false" },
  {
    field: "balance",
    label: "Balance",
    ops: [
      ["gte", "at least"],
      ["lte", "at most"],
    ],
    extra: "Currency id",
    hint: "a whole number",
  },
  { field: "storeSpent", label: "Store spent", ops: [["gte", "at least"]], extra: "Currency code (USD)", hint: "an amount such as 9.99" },
  { field: "storePurchases", label: "Store purchases", ops: [["gte", "at least"]], hint: "a count" },
  {
    field: "data",
    label: "Player data",
    ops: [["eq", "equals"]],
    extra: "Data key",
    hint: "a JSON value",
    note: "Matches only values your server wrote (a server key or this dashboard). Players can write their own data with the client key, so a value a player wrote never matches: players cannot put themselves in this audience.",
  },
  { field: "experiment", label: "In experiment", ops: [["variant", "variant (empty: any)"]], extra: "Experiment id", hint: "a variant id" },
];

export const fieldOf = (field: string) => FIELDS.find((f) => f.field === field) ?? FIELDS[0];

const list = (s: string) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
const date = (s: string) => (s.trim() === "" ? s : Number.isNaN(Date.parse(s)) ? s : new Date(s).toISOString());
const num = (s: string) => (s.trim() === "" ? Number.NaN : Number(s));
const json = (s: string): unknown => {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
};

/** The row as the rule the service validates (its schema says what is wrong; nothing is checked twice here). */
export function ruleOf(r: RuleRow): unknown {
  switch (r.field) {
    case "signInMethod":
    case "platform":
      return { field: r.field, in: list(r.value) };
    case "country":
      return { field: r.field, in: list(r.value.toUpperCase()) };
    case "hasEmail":
    case "banned":
      return { field: r.field, eq: r.value.trim() === "true" };
    case "createdAt":
    case "lastSeenAt":
      return { field: r.field, [r.op]: r.op === "withinDays" ? num(r.value) : date(r.value) };
    case "clientVersion":
      return { field: r.field, [r.op]: r.value.trim() };
    case "balance":
      return { field: r.field, currency: r.extra.trim(), [r.op]: num(r.value) };
    case "storeSpent":
      return { field: r.field, currency: r.extra.trim().toUpperCase(), gte: Math.round(num(r.value) * 1_000_000) };
    case "storePurchases":
      return { field: r.field, gte: num(r.value) };
    case "data":
      return { field: r.field, key: r.extra.trim(), eq: json(r.value) };
    case "experiment":
      return { field: r.field, experimentId: r.extra.trim(), ...(r.value.trim() ? { variant: r.value.trim() } : {}) };
  }
}

/** A stored rule as a row of the builder. */
export function rowOf(rule: Rule): RuleRow {
  const row = (op: string, value: unknown, extra = ""): RuleRow => ({ field: rule.field, op, value: String(value ?? ""), extra });
  switch (rule.field) {
    case "signInMethod":
    case "platform":
    case "country":
      return row("in", rule.in.join(", "));
    case "hasEmail":
    case "banned":
      return row("eq", rule.eq);
    case "createdAt":
    case "lastSeenAt":
      return rule.withinDays !== undefined
        ? row("withinDays", rule.withinDays)
        : rule.after
          ? row("after", rule.after)
          : row("before", rule.before);
    case "clientVersion":
      return rule.gte !== undefined ? row("gte", rule.gte) : row("lt", rule.lt);
    case "balance":
      return rule.gte !== undefined ? row("gte", rule.gte, rule.currency) : row("lte", rule.lte, rule.currency);
    case "storeSpent":
      return row("gte", rule.gte / 1_000_000, rule.currency);
    case "storePurchases":
      return row("gte", rule.gte);
    case "data":
      return row("eq", JSON.stringify(rule.eq), rule.key);
    case "experiment":
      return row("variant", rule.variant ?? "", rule.experimentId);
  }
}

export const emptyRow = (): RuleRow => ({ field: "lastSeenAt", op: "withinDays", value: "7", extra: "" });
