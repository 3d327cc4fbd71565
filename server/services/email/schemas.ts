import { z } from "zod";
import { HIDDEN_CHARACTERS_MESSAGE, hasHiddenCharacters } from "../labels";

/**
 * A project's e-mail settings as operators edit them (client-safe: the dashboard's form validates
 * with the same rules). An empty sender name or address means the default: the project's name,
 * and the instance's EMAIL_FROM.
 */
const optional = <T extends z.ZodType<string | null>>(schema: T) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? null : v), schema);

export const ZEmailSettingsInput = z.strictObject({
  fromName: optional(
    z
      .string()
      .trim()
      .max(100, "At most 100 characters.")
      .refine((s) => !hasHiddenCharacters(s), HIDDEN_CHARACTERS_MESSAGE)
      .nullable(),
  ),
  fromAddress: optional(
    z.string().trim().max(254, "At most 254 characters.").email("Enter an e-mail address, such as game@studio.com.").nullable(),
  ),
  /** Players must verify their address before they may sign in with it (default: no). */
  requireVerifiedEmail: z.boolean(),
  /** Password reset codes go to addresses that were never verified too (default: no). */
  resetUnverifiedEmail: z.boolean(),
});
export type EmailSettingsInput = z.infer<typeof ZEmailSettingsInput>;
