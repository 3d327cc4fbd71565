import { z } from "zod";
import { ZScoreCorrection } from "../../services/leaderboards/board-schemas";
import { createBoard, deleteBoard, removeEntryAs, resetBoard, setScoreAs, updateBoard } from "../../services/leaderboards/commands";
import { loadLeaderboard, toDto } from "../../services/leaderboards/definitions";
import { currentPeriod, getLeaderboardPage, getPeriodPage, listPeriods } from "../../services/leaderboards/entries";
import { listBoards, searchEntries, topLeaderboards } from "../../services/leaderboards/operator";
import { ZCreateLeaderboard, ZLeaderboardId, ZUpdateLeaderboard } from "../../services/leaderboards/schemas";
import { input, projectProcedure, router } from "../init";

/**
 * Leaderboards for operators: reads for every member; changes (definitions, setting or removing an entry)
 * are services through runCommand (server/services/leaderboards/commands.ts).
 */
const ZProjectId = z.string().uuid();
const ZBoard = z.strictObject({ projectId: ZProjectId, id: ZLeaderboardId });
const ZPeriod = z.string().min(1).max(100);
const ZPaging = { offset: z.number().int().min(0).max(10_000_000).default(0), limit: z.number().int().min(1).max(100).default(25) };
export const leaderboardsRouter = router({
  /** The boards, each with when its current period ends. */
  list: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId })))
    .query(({ input }) => listBoards(input)),

  get: projectProcedure("VIEWER")
    .input(input(ZBoard))
    .query(async ({ input }) => {
      const board = await loadLeaderboard(input.projectId, input.id);
      const { period, resetsAt } = currentPeriod(board);
      return { ...toDto(board), period, resetsAt: resetsAt ? resetsAt.toISOString() : null };
    }),

  /** The project's boards by entries in their current period (the overview). */
  top: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId, limit: z.number().int().min(1).max(50).default(5) })))
    .query(({ input }) => topLeaderboards(input)),

  /** A page of the current period, or of `period` when given (an archived one). */
  entries: projectProcedure("VIEWER")
    .input(input(ZBoard.extend({ period: ZPeriod.optional(), ...ZPaging })))
    .query(async ({ input }) => {
      if (input.period) {
        const page = await getPeriodPage({
          projectId: input.projectId,
          leaderboardId: input.id,
          period: input.period,
          offset: input.offset,
          limit: input.limit,
        });
        return { period: page.period, total: page.total, offset: page.offset, limit: page.limit, entries: page.entries };
      }
      const page = await getLeaderboardPage({
        projectId: input.projectId,
        leaderboardId: input.id,
        offset: input.offset,
        limit: input.limit,
      });
      const board = await loadLeaderboard(input.projectId, input.id);
      return { period: currentPeriod(board).period, total: page.total, offset: page.offset, limit: page.limit, entries: page.entries };
    }),

  /** Entries by player id or any part of a display name, with their ranks. */
  search: projectProcedure("VIEWER")
    .input(
      input(ZBoard.extend({ period: ZPeriod.optional(), query: z.string().max(200), limit: z.number().int().min(1).max(50).default(25) })),
    )
    .query(({ input }) => searchEntries({ ...input, leaderboardId: input.id })),

  periods: projectProcedure("VIEWER")
    .input(input(ZBoard))
    .query(({ input }) => listPeriods({ projectId: input.projectId, leaderboardId: input.id })),

  create: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, board: ZCreateLeaderboard })))
    .mutation(({ ctx, input }) => createBoard(ctx, input)),

  /** Name, bounds, schedule and client writability; sort order and operator are fixed after creation. */
  update: projectProcedure("ADMIN")
    .input(input(ZBoard.extend({ patch: ZUpdateLeaderboard })))
    .mutation(({ ctx, input }) => updateBoard(ctx, input)),

  delete: projectProcedure("ADMIN")
    .input(input(ZBoard))
    .mutation(({ ctx, input }) => deleteBoard(ctx, input)),

  /** Archives the current period now; the next submit starts an empty one. */
  reset: projectProcedure("ADMIN")
    .input(input(ZBoard))
    .mutation(({ ctx, input }) => resetBoard(ctx, input)),

  /** Removes one player's entry from the current period (or `period`); the ranks below move up. */
  removeEntry: projectProcedure("ADMIN")
    .input(input(ZBoard.extend({ playerId: z.string().uuid(), period: ZPeriod.optional() })))
    .mutation(({ ctx, input }) => removeEntryAs(ctx, input)),

  /** Sets or corrects a player's score in the current period (within the bounds), with a reason for the audit log. */
  setScore: projectProcedure("ADMIN")
    .input(input(ZBoard.extend({ playerId: z.string().uuid(), ...ZScoreCorrection.shape })))
    .mutation(({ ctx, input }) => setScoreAs(ctx, input)),
});
