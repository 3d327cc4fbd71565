import { pool, prisma, transaction } from "../../db";
import { AppError } from "../../errors";
import { forgetSessions } from "../../identity/session-cache";
import { revokeSessions } from "../auth/sessions";
import { type BoardPeriod, deleteEntriesOf, hideEntriesOf, restoreEntriesOf, syncRankIndex } from "../leaderboards/moderation";
import { withEvents } from "../webhooks/emit";
import { emitEvent } from "../webhooks/events";

export type BanDto = { playerId: string; bannedAt: Date | null; bannedUntil: Date | null; banReason: string | null };
/** What a ban did to the player's leaderboard entries: hidden (moved off every board) or removed for good. */
export type BanEntries = { hidden: number; removed: number };
/** What an unban did: entries back on their boards, and hidden ones dropped for a better entry made meanwhile. */
export type UnbanEntries = { restored: number; keptNewer: number };
const select = { id: true, bannedAt: true, bannedUntil: true, banReason: true } as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The player's row locked for the ban's transaction: a submit inserting an entry waits for it
 * (the refusal trigger takes the row's key-share lock), so it sees the ban or is seen by it.
 */
async function lockPlayer(projectId: string, playerId: string): Promise<void> {
  const { rowCount } = UUID.test(playerId)
    ? await pool().query("SELECT 1 FROM players WHERE id = $1 AND project_id = $2 FOR UPDATE", [playerId, projectId])
    : { rowCount: 0 };
  if (!rowCount) throw new AppError("PLAYER_NOT_FOUND");
}

/**
 * Bans a player (until a date, or until unbanned), ends every session it has, and hides its
 * entries from every leaderboard (all periods) in the ban's transaction — or, with
 * `removeEntries`, deletes them for good, hidden ones included.
 */
export async function banPlayer(o: {
  projectId: string;
  playerId: string;
  reason: string;
  until?: Date | null;
  removeEntries?: boolean;
}): Promise<BanDto & { entries: BanEntries; boards: BoardPeriod[] }> {
  const now = new Date();
  if (o.until && o.until <= now)
    throw new AppError("VALIDATION_ERROR", { details: { issues: [{ path: "until", message: "Must be in the future." }] } });
  const { boards, entries } = await transaction(async () => {
    await lockPlayer(o.projectId, o.playerId);
    await withEvents(o.projectId, async (emitting) => {
      await prisma().player.updateMany({
        where: { id: o.playerId, projectId: o.projectId },
        data: { bannedAt: now, bannedUntil: o.until ?? null, banReason: o.reason, banExpirySent: false },
      });
      if (!emitting) return;
      const data = { playerId: o.playerId, reason: o.reason, until: o.until ? o.until.toISOString() : null };
      await emitEvent({ projectId: o.projectId, type: "player.banned", playerId: o.playerId, data });
    });
    const ref = { projectId: o.projectId, playerId: o.playerId };
    const hidden = await hideEntriesOf({ ...ref, reason: o.reason });
    if (!o.removeEntries) return { boards: hidden, entries: { hidden: hidden.length, removed: 0 } };
    const removed = await deleteEntriesOf(ref);
    return { boards: hidden, entries: { hidden: 0, removed: removed.visible + removed.hidden } };
  });
  await syncRankIndex(o.projectId, [o.playerId], boards);
  await revokeSessions({ projectId: o.projectId, playerId: o.playerId, reason: "banned" });
  const row = await prisma().player.findUniqueOrThrow({ where: { id: o.playerId }, select });
  return { playerId: row.id, bannedAt: row.bannedAt, bannedUntil: row.bannedUntil, banReason: row.banReason, entries, boards };
}

/** Lifts the ban and puts the player's hidden entries back on their boards (see restoreEntriesOf). */
export async function unbanPlayer(o: {
  projectId: string;
  playerId: string;
}): Promise<BanDto & { entries: UnbanEntries; boards: BoardPeriod[] }> {
  const restored = await transaction(async () => {
    await lockPlayer(o.projectId, o.playerId);
    await withEvents(o.projectId, async (emitting) => {
      await prisma().player.updateMany({
        where: { id: o.playerId, projectId: o.projectId },
        data: { bannedAt: null, bannedUntil: null, banReason: null },
      });
      if (emitting)
        await emitEvent({
          projectId: o.projectId,
          type: "player.unbanned",
          playerId: o.playerId,
          data: { playerId: o.playerId, expired: false },
        });
    });
    return restoreEntriesOf(o);
  });
  await syncRankIndex(o.projectId, [o.playerId], restored.boards);
  await forgetSessions({ playerId: o.playerId });
  return {
    playerId: o.playerId,
    bannedAt: null,
    bannedUntil: null,
    banReason: null,
    entries: { restored: restored.restored, keptNewer: restored.keptNewer },
    boards: restored.boards,
  };
}
