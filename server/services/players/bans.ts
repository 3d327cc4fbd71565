import { prisma } from "../../db";
import { AppError } from "../../errors";
import { forgetSessions } from "../../identity/session-cache";
import { revokeSessions } from "../auth/sessions";
import { withEvents } from "../webhooks/emit";
import { emitEvent } from "../webhooks/events";

export type BanDto = { playerId: string; bannedAt: Date | null; bannedUntil: Date | null; banReason: string | null };
const select = { id: true, bannedAt: true, bannedUntil: true, banReason: true } as const;

/** Bans a player (until a date, or until unbanned) and ends every session it has. */
export async function banPlayer(o: { projectId: string; playerId: string; reason: string; until?: Date | null }): Promise<BanDto> {
  const now = new Date();
  if (o.until && o.until <= now)
    throw new AppError("VALIDATION_ERROR", { details: { issues: [{ path: "until", message: "Must be in the future." }] } });
  await withEvents(o.projectId, async (emitting) => {
    const updated = await prisma().player.updateMany({
      where: { id: o.playerId, projectId: o.projectId },
      data: { bannedAt: now, bannedUntil: o.until ?? null, banReason: o.reason, banExpirySent: false },
    });
    if (updated.count === 0) throw new AppError("PLAYER_NOT_FOUND");
    if (!emitting) return;
    const data = { playerId: o.playerId, reason: o.reason, until: o.until ? o.until.toISOString() : null };
    await emitEvent({ projectId: o.projectId, type: "player.banned", playerId: o.playerId, data });
  });
  await revokeSessions({ projectId: o.projectId, playerId: o.playerId, reason: "banned" });
  const row = await prisma().player.findUniqueOrThrow({ where: { id: o.playerId }, select });
  return { playerId: row.id, bannedAt: row.bannedAt, bannedUntil: row.bannedUntil, banReason: row.banReason };
}

export async function unbanPlayer(o: { projectId: string; playerId: string }): Promise<BanDto> {
  await withEvents(o.projectId, async (emitting) => {
    const updated = await prisma().player.updateMany({
      where: { id: o.playerId, projectId: o.projectId },
      data: { bannedAt: null, bannedUntil: null, banReason: null },
    });
    if (updated.count === 0) throw new AppError("PLAYER_NOT_FOUND");
    if (emitting)
      await emitEvent({
        projectId: o.projectId,
        type: "player.unbanned",
        playerId: o.playerId,
        data: { playerId: o.playerId, expired: false },
      });
  });
  await forgetSessions({ playerId: o.playerId });
  return { playerId: o.playerId, bannedAt: null, bannedUntil: null, banReason: null };
}
