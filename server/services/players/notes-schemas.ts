import { z } from "zod";

/**
 * Support's notes and tags on a player (client-safe: zod only). A note is free text up to 2,000
 * characters; a tag is lowercase letters, digits and dashes, up to 32 characters, at most 20 per
 * player.
 */
export const MAX_NOTE_CHARS = 2000;
export const MAX_TAGS_PER_PLAYER = 20;
export const TAG_PATTERN = /^[a-z0-9-]{1,32}$/;

export const ZNoteBody = z
  .string()
  .trim()
  .min(1, "Write something.")
  .max(MAX_NOTE_CHARS, `At most ${MAX_NOTE_CHARS.toLocaleString("en")} characters.`);
export const ZTag = z
  .string()
  .trim()
  .toLowerCase()
  .regex(TAG_PATTERN, "Lowercase letters, digits and dashes, at most 32 characters (vip, refund-2026).");
export const ZTags = z.array(ZTag).max(MAX_TAGS_PER_PLAYER, `At most ${MAX_TAGS_PER_PLAYER} tags per player.`);
