import { z } from "zod";

/**
 * Names people read: display names, project, key, board, currency, item and purchase names.
 * Client-safe (zod only): the dashboard's forms validate with the same rules.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to refuse them
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
/**
 * Unicode format characters (Cf): bidi overrides and isolates (U+202A–202E, U+2066–2069, the
 * "evil name" spoof of a leaderboard), invisible separators and joiners, the BOM. Except U+200C
 * and U+200D (ZWNJ, ZWJ), which Persian and Indic writing and emoji sequences need.
 */
const FORMAT = /(?![\u200c\u200d])\p{Cf}/u;

export const HIDDEN_CHARACTERS_MESSAGE = "Must not contain control or invisible formatting characters (such as bidi overrides).";

export function hasHiddenCharacters(s: string): boolean {
  return CONTROL.test(s) || FORMAT.test(s);
}

/** A trimmed name of 1–`max` characters without control or format characters. */
export function zLabel(max = 100, emptyMessage = "Enter a name.") {
  return z
    .string()
    .trim()
    .min(1, emptyMessage)
    .max(max, `At most ${max} characters.`)
    .refine((s) => !hasHiddenCharacters(s), HIDDEN_CHARACTERS_MESSAGE);
}
