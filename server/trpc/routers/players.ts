import { z } from "zod";
import { auditOperatorsAs, listAuditAs } from "../../services/audit-reads";
import { ZAuditFilters } from "../../services/audit-schemas";
import { ZAdjustReason, ZAmount, ZEconomyId } from "../../services/economy/schemas";
import { ZJsonValue } from "../../services/json-value";
import { ZKey } from "../../services/player-data/schemas";
import { playerDetailAs, playerSaveAs } from "../../services/players/admin";
import { banPlayersAs, grantPlayersAs, MAX_BULK_PLAYERS } from "../../services/players/bulk";
import {
  banPlayerAs,
  deletePlayerAs,
  exportPlayerAs,
  playerDataAs,
  resendVerificationAs,
  revokePlayerSessionsAs,
  sendResetCodeAs,
  setDisplayNameAs,
  setPlayerDataAs,
  unbanPlayerAs,
} from "../../services/players/commands";
import { ZPlayerFilters } from "../../services/players/filter-schemas";
import { ZBanReason, ZBanUntil } from "../../services/players/schemas";
import { countPlayersAs, searchPlayersAs } from "../../services/players/search";
import { ZDisplayName } from "../../services/profiles/schemas";
import { input, projectProcedure, router } from "../init";

const ZProjectId = z.string().uuid();
const ZPlayer = z.strictObject({ projectId: ZProjectId, playerId: z.string().uuid() });

const playersProcedures = {
  search: projectProcedure("VIEWER")
    .input(
      input(
        ZPlayerFilters.extend({
          projectId: ZProjectId,
          limit: z.number().int().min(1).max(100).default(25),
          offset: z.number().int().min(0).max(100_000).default(0),
          sort: z.enum(["newest", "oldest", "name"]).default("newest"),
        }),
      ),
    )
    .query(({ ctx, input }) => searchPlayersAs(ctx, input)),

  /** How many players the search's filters match (its own query, so paging does not recount). */
  count: projectProcedure("VIEWER")
    .input(input(ZPlayerFilters.extend({ projectId: ZProjectId })))
    .query(({ ctx, input }) => countPlayersAs(ctx, input)),

  get: projectProcedure("VIEWER")
    .input(input(ZPlayer))
    .query(({ ctx, input }) => playerDetailAs(ctx, input)),

  ban: projectProcedure("ADMIN")
    .input(input(ZPlayer.extend({ reason: ZBanReason, until: ZBanUntil, removeEntries: z.boolean().optional() })))
    .mutation(({ ctx, input }) => banPlayerAs(ctx, input)),

  unban: projectProcedure("ADMIN")
    .input(input(ZPlayer))
    .mutation(({ ctx, input }) => unbanPlayerAs(ctx, input)),

  revokeSessions: projectProcedure("ADMIN")
    .input(input(ZPlayer))
    .mutation(({ ctx, input }) => revokePlayerSessionsAs(ctx, input)),

  /** The player's display name, with the API's rules; null clears it. Audited with before and after. */
  setDisplayName: projectProcedure("ADMIN")
    .input(input(ZPlayer.extend({ displayName: ZDisplayName.nullable() })))
    .mutation(({ ctx, input }) => setDisplayNameAs(ctx, input)),

  /** One cloud save with its contents (read-only). */
  save: projectProcedure("VIEWER")
    .input(input(ZPlayer.extend({ key: ZKey })))
    .query(({ ctx, input }) => playerSaveAs(ctx, input)),
};

const ZBulk = z.strictObject({
  projectId: ZProjectId,
  playerIds: z.array(z.string().uuid()).min(1).max(MAX_BULK_PLAYERS),
  /** A fresh uuid per submit: a retry of the same submit skips players it already reached. */
  batch: z.string().uuid(),
});

/** Bulk actions on selected players: one reason, each player through the single action's service and audited on its own. */
const bulkProcedures = {
  bulkBan: projectProcedure("ADMIN")
    .input(input(ZBulk.extend({ reason: ZBanReason, until: ZBanUntil, removeEntries: z.boolean().optional() })))
    .mutation(({ ctx, input }) => banPlayersAs(ctx, input)),

  bulkGrant: projectProcedure("ADMIN")
    .input(
      input(
        ZBulk.extend({
          reason: ZAdjustReason,
          currencies: z
            .array(z.strictObject({ currencyId: ZEconomyId, amount: ZAmount }))
            .min(1)
            .max(20),
        }),
      ),
    )
    .mutation(({ ctx, input }) => grantPlayersAs(ctx, input)),
};

export const playerAdminRouter = {
  /** Owner or admin, with "delete" typed as confirmation: the player and everything they own. */
  delete: projectProcedure("ADMIN")
    .input(input(ZPlayer.extend({ confirm: z.literal("delete") })))
    .mutation(({ ctx, input }) => deletePlayerAs(ctx, input)),

  /** Everything the project holds about the player (the player's own export), audited as player.export. */
  export: projectProcedure("ADMIN")
    .input(input(ZPlayer))
    .mutation(({ ctx, input }) => exportPlayerAs(ctx, input)),

  /** Mails the player a password reset code (any address, verified or not), audited. */
  sendResetCode: projectProcedure("ADMIN")
    .input(input(ZPlayer))
    .mutation(({ ctx, input }) => sendResetCodeAs(ctx, input)),

  /** Mails the player a new verification code when the address is not verified yet, audited. */
  resendVerification: projectProcedure("ADMIN")
    .input(input(ZPlayer))
    .mutation(({ ctx, input }) => resendVerificationAs(ctx, input)),

  /** Edits one data key as JSON with the API's version check (If-Match), as a trusted writer. */
  setData: projectProcedure("ADMIN")
    .input(input(ZPlayer.extend({ key: ZKey, value: ZJsonValue, version: z.number().int().min(1) })))
    .mutation(({ ctx, input }) => setPlayerDataAs(ctx, input)),

  data: projectProcedure("VIEWER")
    .input(input(ZPlayer.extend({ key: ZKey })))
    .query(({ ctx, input }) => playerDataAs(ctx, input)),
};

export const playersRouter = router({ ...playersProcedures, ...bulkProcedures, ...playerAdminRouter });

export const auditRouter = router({
  list: projectProcedure("VIEWER")
    .input(
      input(
        ZAuditFilters.extend({
          projectId: ZProjectId,
          cursor: z.string().uuid().nullish(),
          /** Sent by tRPC's infinite queries; pages only go to older entries. */
          direction: z.enum(["forward", "backward"]).optional(),
          limit: z.number().int().min(1).max(100).default(50),
        }),
      ),
    )
    .query(({ ctx, input: { direction: _direction, ...rest } }) => listAuditAs(ctx, rest)),

  /** The operators who appear in the project's log: the operator filter's choices. */
  operators: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId })))
    .query(({ ctx, input }) => auditOperatorsAs(ctx, input)),
});
