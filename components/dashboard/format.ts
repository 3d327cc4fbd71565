/** "1 change", "2 changes"; `many` for the irregular ones. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/**
 * A count of something an operator named ("Coins", "Shield"): a name ending in a single s is
 * taken as the plural ("1 Coin", "2 Coins"), any other as the singular ("1 Shield", "2 Shields").
 */
export function countOf(n: number, name: string): string {
  const trimmed = name.trim();
  const endsInS = /[^s]s$/i.test(trimmed);
  const one = endsInS ? trimmed.slice(0, -1) : trimmed;
  const many = endsInS ? trimmed : `${trimmed}${/(s|x|z|ch|sh)$/i.test(trimmed) ? "es" : "s"}`;
  return plural(n, one, many);
}

/**
 * "24 Nov 2026, 09:34": when something was created, as lists and pickers show it to tell equal
 * names apart (to the minute: two projects of one name are often made the same day).
 */
export const createdOn = (d: Date | string): string =>
  new Date(d).toLocaleString("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });

const UNITS = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
  ["second", 1_000],
] as const;

/**
 * A span as an operator reads it: "5 days", "28 hours", "90 seconds". The largest unit that fits
 * twice or exactly (so 27.6 hours stays in hours, 1 day is "1 day"), rounded to a whole number.
 */
export function span(ms: number): string {
  for (const [name, size] of UNITS) {
    if (ms >= 2 * size || (ms >= size && ms % size === 0)) return plural(Math.round(ms / size), name);
  }
  return plural(Math.round(ms), "millisecond");
}
