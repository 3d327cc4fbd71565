import { z } from "zod";

export const ZSession = z
  .object({
    playerId: z.string().uuid(),
    accessToken: z.string().meta({ description: "JWT (HS256) for `Authorization: Bearer`." }),
    refreshToken: z.string().meta({ description: "Opaque; exchange at /auth/refresh. Valid 30 days, rotates on every use." }),
    expiresIn: z.number().int().meta({ description: "Seconds until the access token expires." }),
    tokenType: z.literal("Bearer"),
    created: z.boolean().meta({ description: "True when this call created the player." }),
  })
  .meta({ id: "Session" });
export type SessionDto = z.infer<typeof ZSession>;

/** `POST /auth/anonymous` takes no body or `{}`. */
export const ZAnonymousBody = z.strictObject({}).optional().meta({ id: "AnonymousBody" });
