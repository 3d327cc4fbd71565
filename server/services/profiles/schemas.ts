import { z } from "zod";
import { HIDDEN_CHARACTERS_MESSAGE, hasHiddenCharacters } from "../labels";

/** 1–32 characters after trimming (code points), no control or format characters; not unique. */
export const ZDisplayName = z
  .string()
  .trim()
  .refine((s) => [...s].length >= 1 && [...s].length <= 32, "Must be 1–32 characters after trimming.")
  .refine((s) => !hasHiddenCharacters(s), HIDDEN_CHARACTERS_MESSAGE)
  .meta({
    description:
      "1–32 characters after trimming, no control characters and no Unicode format characters (bidi overrides and isolates, zero-width spaces; ZWJ and ZWNJ are allowed). Not unique.",
    example: "Ada",
  });

export const ZPublicProfile = z
  .object({
    playerId: z.string().uuid(),
    displayName: z.string().nullable(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: "PublicProfile", description: "A player as other players see them." });

export const ZOwnProfile = ZPublicProfile.extend({
  hasEmail: z.boolean(),
  emailVerified: z.boolean().meta({ description: "The player confirmed the address with an e-mailed code; false without an e-mail." }),
  providers: z.array(z.string()).meta({ description: "Identity providers linked to this player." }),
  lastLoginAt: z.iso.datetime().nullable(),
}).meta({ id: "OwnProfile", description: "The caller's own profile (or a server key's view with X-Player-Id)." });

export const ZPatchProfileBody = z
  .strictObject({ displayName: ZDisplayName.nullable().meta({ description: "`null` clears it." }) })
  .meta({ id: "PatchProfileBody" });

export type PublicProfile = z.infer<typeof ZPublicProfile>;
export type OwnProfile = z.infer<typeof ZOwnProfile>;
