import { z } from "zod";
import { listAudit } from "../../services/audit";
import { ZJsonValue } from "../../services/json-value";
import { getPlayerData } from "../../services/player-data";
import { ZKey } from "../../services/player-data/schemas";
import { playerDetail, searchPlayers } from "../../services/players/admin";
import {
  banPlayerAs,
  deletePlayerAs,
  exportPlayerAs,
  resendVerificationAs,
  revokePlayerSessionsAs,
  sendResetCodeAs,
  setPlayerDataAs,
  unbanPlayerAs,
} from "../../services/players/commands";
import { ZBanReason, ZBanUntil } from "../../services/players/schemas";
import { input, projectProcedure, router } from "../init";

const ZProjectId = z.string().uuid();
const ZPlayer = z.strictObject({ projectId: ZProjectId, playerId: z.string().uuid() });

const playersProcedures = {
  search: projectProcedure("VIEWER")
    .input(
      input(
        z.strictObject({
          projectId: ZProjectId,
          query: z.string().max(200).default(""),
          limit: z.number().int().min(1).max(100).default(25),
          offset: z.number().int().min(0).max(100_000).default(0),
          sort: z.enum(["newest", "oldest", "name"]).default("newest"),
        }),
      ),
    )
    .query(({ input }) => searchPlayers(input)),

  get: projectProcedure("VIEWER")
    .input(input(ZPlayer))
    .query(({ input }) => playerDetail(input)),

  ban: projectProcedure("ADMIN")
    .input(input(ZPlayer.extend({ reason: ZBanReason, until: ZBanUntil })))
    .mutation(({ ctx, input }) => banPlayerAs(ctx, input)),

  unban: projectProcedure("ADMIN")
    .input(input(ZPlayer))
    .mutation(({ ctx, input }) => unbanPlayerAs(ctx, input)),

  revokeSessions: projectProcedure("ADMIN")
    .input(input(ZPlayer))
    .mutation(({ ctx, input }) => revokePlayerSessionsAs(ctx, input)),
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
    .query(({ ctx, input }) => getPlayerData({ actor: ctx.actor, playerId: input.playerId, key: input.key })),
};

export const playersRouter = router({ ...playersProcedures, ...playerAdminRouter });

export const auditRouter = router({
  list: projectProcedure("VIEWER")
    .input(
      input(
        z.strictObject({
          projectId: ZProjectId,
          action: z.string().max(100).optional(),
          cursor: z.string().uuid().nullish(),
          /** Sent by tRPC's infinite queries; pages only go to older entries. */
          direction: z.enum(["forward", "backward"]).optional(),
          limit: z.number().int().min(1).max(100).default(50),
        }),
      ),
    )
    .query(({ input }) =>
      listAudit({ projectId: input.projectId, action: input.action, cursor: input.cursor ?? undefined, limit: input.limit }),
    ),
});
