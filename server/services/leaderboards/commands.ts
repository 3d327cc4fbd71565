import { AppError } from "../../errors";
import { type OperatorContext, runCommand } from "../command";
import {
  createLeaderboard,
  deleteLeaderboard,
  invalidateLeaderboard,
  loadLeaderboard,
  resetLeaderboard,
  toDto,
  updateLeaderboard,
} from "./definitions";
import { currentPeriod, rankAfterWrite, removeEntry, setEntryScore } from "./entries";
import { removeEntriesOf, syncRankIndex } from "./moderation";
import { entryOfPlayer } from "./operator";
import type { CreateLeaderboard, Entry, LeaderboardDto, UpdateLeaderboard } from "./schemas";

/**
 * Leaderboard definitions changed by operators (admins and owners), through runCommand: the
 * role check, one transaction with the "before" read and the audit row, and the board's
 * definition cache forgotten afterwards (committed or not: the change may have filled it).
 */
type Board = { projectId: string; id: string };
const forget = (o: Board) => () => invalidateLeaderboard(o.projectId, o.id);

export function createBoardAs(ctx: OperatorContext, o: { projectId: string; board: CreateLeaderboard }): Promise<LeaderboardDto> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "leaderboard.create",
    target: (board) => board.id,
    after: (board) => board,
    run: () => createLeaderboard({ projectId: o.projectId, input: o.board }),
    invalidate: forget({ projectId: o.projectId, id: o.board.id }),
  });
}

/** Name, bounds, schedule and client writability; sort order and operator are fixed after creation. */
export function updateBoardAs(ctx: OperatorContext, o: Board & { patch: UpdateLeaderboard }): Promise<LeaderboardDto> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "leaderboard.update",
    target: o.id,
    before: async () => toDto(await loadLeaderboard(o.projectId, o.id)),
    after: (board) => board,
    run: () => updateLeaderboard({ projectId: o.projectId, id: o.id, input: o.patch }),
    invalidate: forget(o),
  });
}

export function deleteBoardAs(ctx: OperatorContext, o: Board): Promise<{ deleted: true }> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "leaderboard.delete",
    target: o.id,
    before: async () => toDto(await loadLeaderboard(o.projectId, o.id)),
    run: async () => {
      await deleteLeaderboard(o);
      return { deleted: true as const };
    },
    invalidate: forget(o),
  });
}

/** Archives the current period now; the next submit starts an empty one. */
export function resetBoardAs(ctx: OperatorContext, o: Board): Promise<{ archived: string; period: string }> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "leaderboard.reset",
    target: o.id,
    before: async () => ({ period: currentPeriod(await loadLeaderboard(o.projectId, o.id)).period }),
    run: async (_actor, before) => {
      await resetLeaderboard(o);
      return { archived: before.period, period: currentPeriod(await loadLeaderboard(o.projectId, o.id)).period };
    },
    after: (result) => ({ period: result.period }),
    invalidate: forget(o),
  });
}

/**
 * Removes one player's entry from the current period (or `period`); the ranks below move up. The
 * audit row is written first: the removal also changes the Redis rank index, which no rollback
 * undoes.
 */
export function removeEntryAs(ctx: OperatorContext, o: Board & { playerId: string; period?: string }): Promise<{ removed: true }> {
  const ref = { projectId: o.projectId, leaderboardId: o.id, playerId: o.playerId, period: o.period };
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "leaderboard.entry.remove",
    target: `${o.id}/${o.playerId}`,
    before: () => entryOfPlayer(ref),
    auditFirst: true,
    run: async (_actor, before) => {
      await removeEntry({ ...ref, period: before.period });
      return { removed: true as const };
    },
    invalidate: forget(o),
  });
}

/** The player's entry in the current period before a correction (locked until the command ends), or null when there is none. */
const entryOrNull = (ref: { projectId: string; leaderboardId: string; playerId: string }) =>
  entryOfPlayer({ ...ref, lock: true }).catch((error: unknown) => {
    if (error instanceof AppError && error.code === "ENTRY_NOT_FOUND") return null;
    throw error;
  });

/**
 * Sets (or corrects) one player's score in the current period, whatever the board's operator,
 * within its bounds: the write a player's submit makes (ranks, counts and ties kept the same
 * way), audited with the reason and the score before and after. A player submitting meanwhile
 * waits for the row or is waited for; the last write wins in Postgres and in the rank index, which
 * is told after the commit.
 */
export async function setScoreAs(
  ctx: OperatorContext,
  o: Board & { playerId: string; score: number; reason: string },
): Promise<Entry & { period: string; previous: number | null }> {
  const ref = { projectId: o.projectId, leaderboardId: o.id, playerId: o.playerId };
  const written = await runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "leaderboard.entry.set",
    target: `${o.id}/${o.playerId}`,
    before: () => entryOrNull(ref),
    run: async (_actor, before) => ({ ...(await setEntryScore({ ...ref, score: o.score })), previous: before?.score ?? null }),
    after: ({ period, row }) => ({ period, score: row.score, reason: o.reason }),
  });
  const entry = await rankAfterWrite(o.projectId, written.board, written.period, written.row);
  return { ...entry, period: written.period, previous: written.previous };
}

/**
 * Removes the entries of up to 100 players from one period (the current one unless given) in one
 * command, visible or hidden by a ban, with a reason: one audit row naming every player and what
 * was removed. The rank index is told afterwards from what Postgres holds (committed or not).
 */
export function removeEntriesAs(
  ctx: OperatorContext,
  o: Board & { playerIds: string[]; reason: string; period?: string },
): Promise<{ period: string; removed: number; visible: string[]; hidden: string[] }> {
  // Read inside `run` only: the caller is checked before anything of the input is used.
  let playerIds: string[] = [];
  let period = o.period;
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "leaderboard.entries.remove",
    target: o.id,
    run: async () => {
      playerIds = [...new Set(o.playerIds.map((id) => id.toLowerCase()))];
      period ??= currentPeriod(await loadLeaderboard(o.projectId, o.id)).period;
      const removed = await removeEntriesOf({ projectId: o.projectId, leaderboardId: o.id, period, playerIds });
      return { period, removed: removed.visible.length + removed.hidden.length, ...removed };
    },
    after: (r) => ({ period: r.period, reason: o.reason, requested: playerIds, visible: r.visible, hidden: r.hidden }),
    invalidate: async () => {
      forget(o)();
      if (period) await syncRankIndex(o.projectId, playerIds, [{ leaderboardId: o.id, period }]);
    },
  });
}
