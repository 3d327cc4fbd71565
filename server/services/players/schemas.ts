import { z } from "zod";
import { ZTransaction } from "../economy/schemas";
import { ZJsonValue } from "../json-value";
import { ZDataRecord } from "../player-data/schemas";
import { ZSave } from "../saves/schemas";

export const ZPlayerParams = z.strictObject({
  id: z.union([z.literal("me"), z.string().uuid()]).meta({ description: "A player id, or `me` for the caller.", example: "me" }),
});

/** An operator's ban: the reason is shown to the player; no end means until unbanned. */
export const ZBanReason = z.string().trim().min(1, "Give a reason (the player sees it).").max(500, "At most 500 characters.");
export const ZBanUntil = z.iso.datetime().nullable().optional();

/** DELETE /players/me: the password of a player who has one; none (or `{}`) for one who has none. */
export const ZDeleteAccountBody = z
  .strictObject({
    password: z
      .string()
      .max(1024)
      .optional()
      .meta({ description: "The player's password: required when the player has one (an e-mail account); ignored otherwise." }),
  })
  .optional()
  .meta({ id: "DeleteAccountBody" });

const ZExportEntry = z.object({
  leaderboardId: z.string(),
  period: z.string().meta({ description: "The period's key; archived periods are those not `current`." }),
  current: z.boolean().meta({ description: "The board's current period (false: archived by a reset)." }),
  score: z.number(),
  metadata: z.record(z.string(), ZJsonValue).nullable(),
  updatedAt: z.iso.datetime(),
  hidden: z
    .boolean()
    .optional()
    .meta({ description: "true: hidden from the board by the player's ban (back on it when the ban ends); absent otherwise." }),
});

export const ZPlayerExport = z
  .object({
    exportedAt: z.iso.datetime(),
    profile: z.object({
      playerId: z.string().uuid(),
      displayName: z.string().nullable(),
      email: z.string().nullable(),
      emailVerifiedAt: z.iso.datetime().nullable().meta({ description: "When the player confirmed the address with an e-mailed code." }),
      createdAt: z.iso.datetime(),
      updatedAt: z.iso.datetime(),
      lastLoginAt: z.iso.datetime().nullable(),
      ban: z
        .object({ bannedAt: z.iso.datetime(), until: z.iso.datetime().nullable(), reason: z.string().nullable() })
        .nullable()
        .meta({ description: "The last ban an operator set, while it is recorded." }),
    }),
    identities: z.array(
      z.object({
        provider: z.string(),
        subject: z.string().meta({ description: "The provider's id of the account (OIDC `sub`)." }),
        createdAt: z.iso.datetime(),
      }),
    ),
    deviceCredential: z
      .object({ createdAt: z.iso.datetime() })
      .nullable()
      .meta({ description: "The device secret anonymous sign-in recognises this player by, if any (never the secret or its hash)." }),
    data: z.array(ZDataRecord).meta({ description: "Every key of every visibility, with its value." }),
    saves: z.array(ZSave).meta({ description: "Every save with its data, newest first." }),
    leaderboardEntries: z.array(ZExportEntry).meta({ description: "Entries of current and archived periods of every board." }),
    balances: z.array(z.object({ currencyId: z.string(), balance: z.number().int(), updatedAt: z.iso.datetime() })),
    inventory: z.array(z.object({ itemId: z.string(), quantity: z.number().int(), updatedAt: z.iso.datetime() })),
    ledger: z
      .array(ZTransaction.extend({ quantity: z.number().int().nullable(), reason: z.string().nullable() }))
      .meta({ description: "Every balance and inventory change, newest first." }),
    sessions: z
      .array(
        z.object({
          id: z.string().uuid(),
          createdAt: z.iso.datetime(),
          expiresAt: z.iso.datetime(),
          revokedAt: z.iso.datetime().nullable(),
          revokedReason: z.string().nullable(),
        }),
      )
      .meta({ description: "Every sign-in the project still records, newest first; never a token or its hash." }),
    activeDays: z.array(z.iso.date()).meta({ description: "UTC days with a request by the player (kept 32 days, for usage counts)." }),
    knownSignInAddresses: z
      .number()
      .int()
      .meta({ description: "How many addresses an e-mail sign-in succeeded from are remembered (as keyed hashes, not shown)." }),
    emails: z
      .array(
        z.object({
          template: z.string(),
          to: z.string(),
          subject: z.string(),
          status: z.enum(["QUEUED", "SENT", "FAILED", "OUTBOX"]),
          createdAt: z.iso.datetime(),
          sentAt: z.iso.datetime().nullable(),
        }),
      )
      .meta({ description: "E-mail sent (or queued) to the player, newest first; not the bodies, which hold one-time codes." }),
    experimentAssignments: z
      .array(
        z.object({
          experimentId: z.string(),
          experimentName: z.string(),
          variant: z.string().meta({ description: "The variant's id." }),
          assignedAt: z.iso.datetime().meta({ description: "When GET /config first answered with this variant." }),
        }),
      )
      .meta({ description: "The experiments the player takes part in, with their variant, oldest first." }),
  })
  .meta({
    id: "PlayerExport",
    description: "Everything the project holds about the player. No password hash, token, refresh-token hash or key is ever included.",
  });
export type PlayerExport = z.infer<typeof ZPlayerExport>;
