import { z } from "zod";

/**
 * Which players a search or an export covers (client-safe: zod only). `query` is a prefix of an
 * e-mail or a player id, a linked identity's subject, or any part of a display name (all
 * case-insensitive); `provider` is "email" (an e-mail account), "anonymous" (no e-mail and no
 * linked identity) or an identity provider's id. Date ranges are inclusive of `from`, exclusive of `to`.
 */
export const ZPlayerFilters = z.strictObject({
  query: z.string().max(200).default(""),
  banned: z.enum(["any", "banned", "active"]).default("any"),
  email: z.enum(["any", "with", "without"]).default("any"),
  provider: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/)
    .optional(),
  createdFrom: z.iso.datetime().optional(),
  createdTo: z.iso.datetime().optional(),
  lastSeenFrom: z.iso.datetime().optional(),
  lastSeenTo: z.iso.datetime().optional(),
  /** Players carrying this support tag (./notes.ts). */
  tag: z
    .string()
    .regex(/^[a-z0-9-]{1,32}$/)
    .optional(),
});
export type PlayerFilters = z.output<typeof ZPlayerFilters>;
export type PlayerFiltersInput = z.input<typeof ZPlayerFilters>;
