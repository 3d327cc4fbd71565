import { z } from "zod";
import { MAX_REMOVE_ENTRIES, ZRemoveEntriesReason, ZScoreCorrection } from "../../services/leaderboards/board-schemas";
import {
  createBoardAs,
  deleteBoardAs,
  removeEntriesAs,
  removeEntryAs,
  resetBoardAs,
  setScoreAs,
  updateBoardAs,
} from "../../services/leaderboards/commands";
import {
  boardAs,
  boardEntriesAs,
  hiddenEntriesAs,
  listBoardsAs,
  listPeriodsAs,
  searchEntriesAs,
  topLeaderboardsAs,
} from "../../services/leaderboards/operator";
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
    .query(({ ctx, input }) => listBoardsAs(ctx, input)),

  get: projectProcedure("VIEWER")
    .input(input(ZBoard))
    .query(({ ctx, input }) => boardAs(ctx, input)),

  /** The project's boards by entries in their current period (the overview). */
  top: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId, limit: z.number().int().min(1).max(50).default(5) })))
    .query(({ ctx, input }) => topLeaderboardsAs(ctx, input)),

  /** A page of the current period, or of `period` when given (an archived one). */
  entries: projectProcedure("VIEWER")
    .input(input(ZBoard.extend({ period: ZPeriod.optional(), ...ZPaging })))
    .query(({ ctx, input }) => boardEntriesAs(ctx, input)),

  /** Entries by player id or any part of a display name, with their ranks. */
  search: projectProcedure("VIEWER")
    .input(
      input(ZBoard.extend({ period: ZPeriod.optional(), query: z.string().max(200), limit: z.number().int().min(1).max(50).default(25) })),
    )
    .query(({ ctx, input }) => searchEntriesAs(ctx, input)),

  /** Entries a ban hides from the current period (or `period`), best first, with the ban's reason. */
  hidden: projectProcedure("VIEWER")
    .input(input(ZBoard.extend({ period: ZPeriod.optional(), limit: z.number().int().min(1).max(100).default(100) })))
    .query(({ ctx, input }) => hiddenEntriesAs(ctx, input)),

  periods: projectProcedure("VIEWER")
    .input(input(ZBoard))
    .query(({ ctx, input }) => listPeriodsAs(ctx, input)),

  create: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, board: ZCreateLeaderboard })))
    .mutation(({ ctx, input }) => createBoardAs(ctx, input)),

  /** Name, bounds, schedule and client writability; sort order and operator are fixed after creation. */
  update: projectProcedure("ADMIN")
    .input(input(ZBoard.extend({ patch: ZUpdateLeaderboard })))
    .mutation(({ ctx, input }) => updateBoardAs(ctx, input)),

  delete: projectProcedure("ADMIN")
    .input(input(ZBoard))
    .mutation(({ ctx, input }) => deleteBoardAs(ctx, input)),

  /** Archives the current period now; the next submit starts an empty one. */
  reset: projectProcedure("ADMIN")
    .input(input(ZBoard))
    .mutation(({ ctx, input }) => resetBoardAs(ctx, input)),

  /** Removes one player's entry from the current period (or `period`); the ranks below move up. */
  removeEntry: projectProcedure("ADMIN")
    .input(input(ZBoard.extend({ playerId: z.string().uuid(), period: ZPeriod.optional() })))
    .mutation(({ ctx, input }) => removeEntryAs(ctx, input)),

  /** Removes the entries (visible or hidden) of up to 100 players from one period, with a reason; one audit row. */
  removeEntries: projectProcedure("ADMIN")
    .input(
      input(
        ZBoard.extend({
          playerIds: z.array(z.string().uuid()).min(1).max(MAX_REMOVE_ENTRIES),
          reason: ZRemoveEntriesReason,
          period: ZPeriod.optional(),
        }),
      ),
    )
    .mutation(({ ctx, input }) => removeEntriesAs(ctx, input)),

  /** Sets or corrects a player's score in the current period (within the bounds), with a reason for the audit log. */
  setScore: projectProcedure("ADMIN")
    .input(input(ZBoard.extend({ playerId: z.string().uuid(), ...ZScoreCorrection.shape })))
    .mutation(({ ctx, input }) => setScoreAs(ctx, input)),
});
