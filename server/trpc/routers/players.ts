import { z } from "zod";
import { transaction } from "../../db";
import { listAudit, recordAudit } from "../../services/audit";
import { revokeSessions } from "../../services/auth/sessions";
import { playerDetail, searchPlayers } from "../../services/players/admin";
import { banPlayer, unbanPlayer } from "../../services/players/bans";
import { input, projectProcedure, router } from "../init";

const ZProjectId = z.string().uuid();
const ZPlayer = z.strictObject({ projectId: ZProjectId, playerId: z.string().uuid() });

export const playersRouter = router({
  search: projectProcedure("VIEWER")
    .input(
      input(
        z.strictObject({
          projectId: ZProjectId,
          query: z.string().max(200).default(""),
          limit: z.number().int().min(1).max(100).default(25),
        }),
      ),
    )
    .query(({ input }) => searchPlayers(input)),

  get: projectProcedure("VIEWER")
    .input(input(ZPlayer))
    .query(({ input }) => playerDetail(input)),

  ban: projectProcedure("ADMIN")
    .input(input(ZPlayer.extend({ reason: z.string().trim().min(1).max(500), until: z.iso.datetime().nullable().optional() })))
    .mutation(({ ctx, input }) =>
      transaction(async () => {
        const ban = await banPlayer({ ...input, until: input.until ? new Date(input.until) : null });
        await recordAudit({
          actor: { operatorId: ctx.operator.id, requestId: ctx.requestId },
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
          actor: { operatorId: ctx.operator.id, requestId: ctx.requestId },
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
          actor: { operatorId: ctx.operator.id, requestId: ctx.requestId },
          projectId: input.projectId,
          action: "player.revoke-sessions",
          target: input.playerId,
          after: { revoked },
        });
        return { revoked };
      }),
    ),
});

export const auditRouter = router({
  list: projectProcedure("VIEWER")
    .input(
      input(
        z.strictObject({
          projectId: ZProjectId,
          action: z.string().max(100).optional(),
          cursor: z.string().uuid().optional(),
          limit: z.number().int().min(1).max(100).default(50),
        }),
      ),
    )
    .query(({ input }) => listAudit(input)),
});
