import { z } from "zod";

/**
 * Which audit entries a list or an export covers (client-safe: zod only): an action prefix
 * ("player." or "player.ban"), one operator, a target (a prefix: a player's id also finds their
 * data keys, "id/key"; "purchase:buy-potion" finds that purchase's dashboard edits and the config
 * imports that changed it, plain "buy-potion" whatever is named so), one config import (its id:
 * the summary and a row per definition it changed), and a time range (`from` inclusive, `to` exclusive).
 */
export const ZAuditFilters = z.strictObject({
  action: z.string().max(100).optional(),
  operatorId: z.string().uuid().optional(),
  target: z.string().trim().max(200).optional(),
  importId: z.string().uuid().optional(),
  from: z.iso.datetime().optional(),
  to: z.iso.datetime().optional(),
});
export type AuditFilters = z.output<typeof ZAuditFilters>;
