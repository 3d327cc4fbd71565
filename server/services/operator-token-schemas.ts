import { z } from "zod";
import { zLabel } from "./labels";

/**
 * What creating an operator access token takes (the tRPC router's input and the dashboard's
 * form). Client-safe: imports nothing but zod.
 */
export const TOKEN_ROLES = ["VIEWER", "ADMIN", "OWNER"] as const;
export const MAX_TOKEN_PROJECTS = 100;
export const MAX_TOKEN_DAYS = 3650;

export const ZCreateOperatorToken = z.strictObject({
  name: zLabel(100, "Name the token."),
  role: z.enum(TOKEN_ROLES),
  projectIds: z.array(z.string().uuid()).max(MAX_TOKEN_PROJECTS).nullable(),
  instanceAdmin: z.boolean().default(false),
  expiresInDays: z
    .number()
    .int("Whole days.")
    .min(1, "At least 1 day.")
    .max(MAX_TOKEN_DAYS, `At most ${MAX_TOKEN_DAYS} days.`)
    .nullable()
    .optional(),
});
export type CreateOperatorToken = z.output<typeof ZCreateOperatorToken>;
