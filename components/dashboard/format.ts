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

/** The operator's time zone (the browser's). */
export const localZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * A zone's short name at an instant: "CET", "EST", "UTC"; an offset ("GMT+9") where no locale
 * has a name for it. en-GB names European zones, en-US American ones; each gives the other's as
 * an offset.
 */
export function zoneName(d: Date, timeZone: string): string {
  const nameIn = (locale: string) =>
    new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: "short" }).formatToParts(d).find((p) => p.type === "timeZoneName")?.value ??
    "";
  const gb = nameIn("en-GB");
  if (!/^GMT[+\-−]/.test(gb)) return gb;
  const us = nameIn("en-US");
  return /^GMT[+\-−]/.test(us) || us === "" ? gb : us;
}

/**
 * The dashboard's one date format: "24 Nov 2026, 09:34 CET", in the operator's zone (or
 * `timeZone`) with the zone's short name. `<When>` (./when.tsx) shows it with the UTC instant as
 * its title.
 */
export function when(d: Date | string | number, timeZone = localZone()): string {
  const date = new Date(d);
  const text = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(date);
  return `${text} ${zoneName(date, timeZone)}`;
}

/** The instant in UTC to the second, "2026-11-24 08:34:05 UTC": the title of a shown date. */
export const utcInstant = (d: Date | string | number): string => `${new Date(d).toISOString().slice(0, 19).replace("T", " ")} UTC`;

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
