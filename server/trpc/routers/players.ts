import { z } from "zod";
import { auditActorFor } from "../../auth/operator";
import { transaction } from "../../db";
import { listAudit, recordAudit } from "../../services/audit";
import { revokeSessions } from "../../services/auth/sessions";
import { ZJsonValue } from "../../services/json-value";
import { getPlayerData, putPlayerData } from "../../services/player-data";
import { ZKey } from "../../services/player-data/schemas";
import { deletePlayer, playerDetail, searchPlayers } from "../../services/players/admin";
import { banPlayer, unbanPlayer } from "../../services/players/bans";
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
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        const ban = await banPlayer({ ...input, until: input.until ? new Date(input.until) : null });
        await recordAudit({
          actor: auditActorFor(ctx.operator, ctx.requestId),
          projectId: input.projectId,
          action: "player.ban",
          target: input.playerId,
          after: { reason: ban.banReason, until: ban.bannedUntil },
        });
        return ban;
      }),
    ),

  unban: projectProcedure("ADMIN")
    .input(input(ZPlayer))
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        const ban = await unbanPlayer(input);
        await recordAudit({
          actor: auditActorFor(ctx.operator, ctx.requestId),
          projectId: input.projectId,
          action: "player.unban",
          target: input.playerId,
        });
        return ban;
      }),
    ),

  revokeSessions: projectProcedure("ADMIN")
    .input(input(ZPlayer))
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        const revoked = await revokeSessions({ ...input, reason: "operator" });
        await recordAudit({
          actor: auditActorFor(ctx.operator, ctx.requestId),
          projectId: input.projectId,
          action: "player.revoke-sessions",
          target: input.playerId,
          after: { revoked },
        });
        return { revoked };
      }),
    ),
};

export const playerAdminRouter = {
  /** Owner or admin, with "delete" typed as confirmation: the player and everything they own. */
  delete: projectProcedure("ADMIN")
    .input(input(ZPlayer.extend({ confirm: z.literal("delete") })))
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        const before = await playerDetail(input);
        const removed = await deletePlayer(input);
        await recordAudit({
          actor: auditActorFor(ctx.operator, ctx.requestId),
          projectId: input.projectId,
          action: "player.delete",
          target: input.playerId,
          before: { displayName: before.displayName, email: before.email, dataKeys: before.data.length, saves: before.saves.length },
          after: { leaderboardEntries: removed.entries },
        });
        return removed;
      }),
    ),

  /** Edits one data key as JSON with the API's version check (If-Match), as a trusted writer. */
  setData: projectProcedure("ADMIN")
    .input(input(ZPlayer.extend({ key: ZKey, value: ZJsonValue, version: z.number().int().min(1) })))
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        const before = await getPlayerData({ actor: ctx.actor, playerId: input.playerId, key: input.key });
        const { record } = await putPlayerData({
          actor: ctx.actor,
          playerId: input.playerId,
          key: input.key,
          value: input.value,
          precondition: { ifMatch: input.version },
        });
        await recordAudit({
          actor: auditActorFor(ctx.operator, ctx.requestId),
          projectId: input.projectId,
          action: "player.data",
          target: `${input.playerId}/${input.key}`,
          before: { version: before.version, value: before.value },
          after: { version: record.version, value: record.value },
        });
        return record;
      }),
    ),

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
