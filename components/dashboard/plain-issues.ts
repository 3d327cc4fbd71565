/**
 * The one mapping from validation issues to sentences an operator can act on ("Enter a name.",
 * "Use at most 100 characters.", "Enter a whole number between 0 and 1,000,000."). The services'
 * schemas and the REST API keep their developer wording; the dashboard shows only this.
 *
 * Two doors in: `plainErrorMap` is zod's per-parse `error` option (the forms' resolvers and
 * `checkedWith`), where the issue still carries its schema, so both bounds of a number are known;
 * `plainServerIssue` takes what a failed tRPC call carries (`{ path, message }`, zod's default
 * English or a service's own sentence) and rebuilds the issue from it.
 */

/** What zod's issues (raw in an error map, or finalised) carry that the sentences need. */
export type IssueLike = {
  code: string;
  path?: ReadonlyArray<PropertyKey>;
  message?: string;
  input?: unknown;
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  format?: string;
  expected?: string;
  divisor?: number | bigint;
  keys?: ReadonlyArray<string>;
  /** Present in an error map: the schema that failed (zod's number schema knows both bounds). */
  schema?: unknown;
};

/** How a field is named in "Enter …." — keyed by the last segment of the issue's path. */
const FIELD_NOUNS: ReadonlyMap<string, string> = new Map([
  ["name", "a name"],
  ["id", "an id"],
  ["email", "an e-mail address"],
  ["password", "a password"],
  ["currentPassword", "your current password"],
  ["newPassword", "a new password"],
  ["reason", "a reason"],
  ["amount", "an amount"],
  ["quantity", "a quantity"],
  ["text", "a configuration document"],
  ["fromName", "a sender name"],
  ["fromAddress", "a sender address"],
  ["issuer", "an issuer"],
  ["jwksUrl", "a JWKS address"],
  ["audience", "an audience"],
  ["until", "a date"],
  ["expiresInDays", "a number of days"],
  ["resetSchedule", "a reset schedule"],
  ["ref", "a currency or an item"],
]);

/**
 * Sentences the schemas write for developers (the REST API keeps them), as an operator reads
 * them. Keyed by the exact text; server/services/plain-issues.test.ts parses the schemas to keep
 * both sides in step.
 */
const OPERATOR_SENTENCES: ReadonlyMap<string, string> = new Map([
  ["maxScore must not be below minScore.", "The highest score must not be below the lowest score."],
  ["maxBalance must not be below initialBalance.", "The maximum balance must not be below the starting balance."],
  [`Scores are finite numbers within ±${Number.MAX_SAFE_INTEGER}.`, "Enter a score between −9 quadrillion and 9 quadrillion."],
]);

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** Written out from a trillion up (Intl's compact notation depends on the runtime's ICU data). */
const SCALES: ReadonlyArray<readonly [number, string]> = [
  [1e18, "quintillion"],
  [1e15, "quadrillion"],
  [1e12, "trillion"],
];

/** A bound as an operator reads it: grouped digits, and very large ones in words ("9 quadrillion"). */
export function numberInWords(value: number | bigint): string {
  const n = Number(value);
  const scale = SCALES.find(([size]) => Math.abs(n) >= size);
  if (!scale) return n.toLocaleString("en-US");
  return `${(n / scale[0]).toLocaleString("en-US", { maximumFractionDigits: 1 })} ${scale[1]}`;
}

const nounOf = (issue: IssueLike, label?: string) => {
  if (label) return label;
  const last = [...(issue.path ?? [])].reverse().find((s): s is string => typeof s === "string");
  return (last && FIELD_NOUNS.get(last)) ?? "a value";
};

const finite = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n);

/** A number schema's bounds, from the schema when the error map has it, else from the issue. */
function boundsOf(issue: IssueLike): { min?: number; max?: number; whole: boolean } {
  const schema = (issue.schema ?? {}) as { minValue?: unknown; maxValue?: unknown; isInt?: unknown };
  const whole = schema.isInt === true || issue.origin === "int" || issue.format === "safeint" || issue.expected === "int";
  const min = finite(schema.minValue) ? schema.minValue : issue.code === "too_small" ? Number(issue.minimum) : undefined;
  const max = finite(schema.maxValue) ? schema.maxValue : issue.code === "too_big" ? Number(issue.maximum) : undefined;
  return {
    whole,
    min: min !== undefined && min > -MAX_SAFE ? min : undefined,
    max: max !== undefined && Number.isFinite(max) ? max : undefined,
  };
}

function numberSentence(issue: IssueLike): string {
  const { min, max, whole } = boundsOf(issue);
  const kind = whole ? "a whole number" : "a number";
  // An exclusive bound only matters for the side that failed; the other is a plain limit.
  const exclusive = issue.inclusive === false;
  if (min !== undefined && max !== undefined && !exclusive) return `Enter ${kind} between ${numberInWords(min)} and ${numberInWords(max)}.`;
  if (issue.code === "too_small" && min !== undefined)
    return exclusive ? `Enter ${kind} greater than ${numberInWords(min)}.` : `Enter ${kind} of at least ${numberInWords(min)}.`;
  if (max !== undefined)
    return exclusive ? `Enter ${kind} less than ${numberInWords(max)}.` : `Enter ${kind} of at most ${numberInWords(max)}.`;
  return `Enter ${kind}.`;
}

function sizeSentence(issue: IssueLike, label?: string): string {
  const small = issue.code === "too_small";
  const bound = Number(small ? issue.minimum : issue.maximum);
  if (issue.origin === "string") {
    if (small && bound <= 1) return `Enter ${nounOf(issue, label)}.`;
    return small ? `Use at least ${numberInWords(bound)} characters.` : `Use at most ${numberInWords(bound)} characters.`;
  }
  if (issue.origin === "array" || issue.origin === "set") {
    if (small) return bound <= 1 ? "Add at least one." : `Add at least ${numberInWords(bound)}.`;
    return `Use at most ${numberInWords(bound)}.`;
  }
  if (issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint") return numberSentence(issue);
  return small ? "This is too short." : "This is too long.";
}

const FORMAT_SENTENCES: ReadonlyMap<string, string> = new Map([
  ["email", "Enter an e-mail address, like name@example.com."],
  ["url", "Enter a web address, like https://example.com."],
  ["uuid", "That is not a valid id."],
  ["guid", "That is not a valid id."],
  ["datetime", "Enter a date and time."],
  ["date", "Enter a date."],
  ["regex", "Use only the allowed characters."],
]);

function typeSentence(issue: IssueLike, label?: string): string {
  const { input, expected } = issue;
  if (input === undefined || input === null || input === "") return `Enter ${nounOf(issue, label)}.`;
  if (
    expected === "int" ||
    (expected === "number" && (issue.schema as { isInt?: unknown } | undefined)?.isInt === true) ||
    (expected === "number" && typeof input === "number" && Number.isInteger(input) === false && !Number.isNaN(input))
  )
    return "Enter a whole number.";
  if (expected === "number" || expected === "bigint") return "Enter a number.";
  if (expected === "boolean") return "Choose yes or no.";
  return "This value is not accepted here.";
}

/** The operator's sentence for one validation issue; `fieldLabel` ("a name") overrides the noun taken from the path. */
export function plainIssue(issue: IssueLike, fieldLabel?: string): string {
  switch (issue.code) {
    case "too_small":
    case "too_big":
      return sizeSentence(issue, fieldLabel);
    case "invalid_type":
      return typeSentence(issue, fieldLabel);
    case "invalid_format":
      return FORMAT_SENTENCES.get(issue.format ?? "") ?? "Check the format of this value.";
    case "invalid_value":
      return "Pick one of the options.";
    case "not_multiple_of":
      return `Use a multiple of ${numberInWords(issue.divisor ?? 1)}.`;
    case "unrecognized_keys":
      return `Remove ${(issue.keys ?? []).map((k) => `"${k}"`).join(", ")}: not a known setting.`;
    case "invalid_union":
    case "invalid_key":
    case "invalid_element":
      return "Check this value.";
    default:
      return plainMessage(issue.message ?? "Check this value.");
  }
}

/** zod's per-parse `error` option: `zodResolver(schema, plainly)`, `schema.safeParse(value, plainly)`. */
export const plainErrorMap = (issue: IssueLike): string => plainIssue(issue);
export const plainly = { error: plainErrorMap } as const;

/**
 * An issue of a parse with `plainly`, in plain words: the error map never sees a schema's own
 * message (a refinement's "maxScore must not be below minScore."), so those are mapped here.
 */
export const plainParsed = (issue: IssueLike): string =>
  issue.code === "custom" ? plainMessage(issue.message ?? "Check this value.") : (issue.message ?? plainIssue(issue));

/** zod's default English for sizes: "Too big: expected int to be <=100", "Too small: expected string to have >=1 characters". */
const SIZE_MESSAGE = /^Too (small|big): expected (\w+) to (?:have|be) (>=|>|<=|<)(-?\d+(?:\.\d+)?)/;
const FORMAT_MESSAGE = /^Invalid (UUID|GUID|email address|URL|ISO datetime|ISO date)/i;
const FORMAT_NAMES: ReadonlyMap<string, string> = new Map([
  ["uuid", "uuid"],
  ["guid", "guid"],
  ["email address", "email"],
  ["url", "url"],
  ["iso datetime", "datetime"],
  ["iso date", "date"],
]);

/** An issue rebuilt from a message (a server's `{ path, message }`), or null for a sentence of the service's own. */
function issueFromMessage(message: string, path: ReadonlyArray<PropertyKey>): IssueLike | null {
  const size = SIZE_MESSAGE.exec(message);
  if (size) {
    const [, which, origin = "", , bound = "0"] = size;
    const small = which === "small";
    const inclusive = size[3]?.endsWith("=") ?? true;
    return {
      code: small ? "too_small" : "too_big",
      origin,
      path,
      inclusive,
      ...(small ? { minimum: Number(bound) } : { maximum: Number(bound) }),
    };
  }
  const format = FORMAT_MESSAGE.exec(message);
  if (format) return { code: "invalid_format", format: FORMAT_NAMES.get(format[1]?.toLowerCase() ?? "") ?? "", path };
  const type = /^Invalid input: expected (\w+), received (\w+)/.exec(message);
  if (type)
    return { code: "invalid_type", expected: type[1], input: type[2] === "undefined" || type[2] === "null" ? undefined : type[2], path };
  if (/^Invalid (input|option)/.test(message)) return { code: "invalid_value", path };
  if (/^Unrecognized keys?:/.test(message))
    return { code: "unrecognized_keys", keys: [...message.matchAll(/"([^"]*)"/g)].map((m) => m[1] ?? ""), path };
  return null;
}

/** Developer sentences with a variable tail (a parser's own words), by their start. */
const OPERATOR_PREFIXES: ReadonlyArray<readonly [string, string]> = [
  ["Invalid cron expression", "That cron expression does not work: use five fields (minute hour day month weekday), like 0 18 * * 5."],
];

/** A sentence that may be zod's default English or a developer's: the operator's version of it. */
export function plainMessage(message: string, path: ReadonlyArray<PropertyKey> = []): string {
  const known = OPERATOR_SENTENCES.get(message) ?? OPERATOR_PREFIXES.find(([start]) => message.startsWith(start))?.[1];
  if (known) return known;
  const rebuilt = issueFromMessage(message, path);
  return rebuilt ? plainIssue(rebuilt) : message;
}

/** Lists whose entries an operator counts from 1 ("Leaderboard 2: …"): config documents and purchase lines. */
const ENTRY_NAMES: ReadonlyMap<string, string> = new Map([
  ["currencies", "Currency"],
  ["items", "Item"],
  ["purchases", "Purchase"],
  ["leaderboards", "Leaderboard"],
  ["identityProviders", "Identity provider"],
  ["webhooks", "Webhook endpoint"],
  ["costs", "cost line"],
  ["rewards", "reward line"],
]);

/**
 * Where in a document an issue sits, in words, with the setting's key as the document spells it
 * ("Purchase 2, cost line 1", "Leaderboard 1, \"resetSchedule\""), or "" for a form's own field.
 */
export function placeOf(path: ReadonlyArray<PropertyKey>): string {
  const places: string[] = [];
  path.forEach((segment, i) => {
    const name = typeof segment === "string" ? ENTRY_NAMES.get(segment) : undefined;
    const index = Number(path[i + 1]);
    if (name && Number.isInteger(index)) places.push(`${places.length ? name : name[0]?.toUpperCase() + name.slice(1)} ${index + 1}`);
  });
  const last = path.at(-1);
  if (places.length > 0 && typeof last === "string" && !/^\d+$/.test(last)) places.push(`"${last}"`);
  return places.join(", ");
}

/** A failed tRPC call's issue (`{ path: "input.purchase.name", message }`) as the operator's sentence. */
export function plainServerIssue(issue: { path: string; message: string }, options: { place?: boolean } = {}): string {
  const path = issue.path.split(".");
  const sentence = plainMessage(issue.message, path);
  const place = options.place ? placeOf(path) : "";
  return place ? `${place}: ${sentence}` : sentence;
}
