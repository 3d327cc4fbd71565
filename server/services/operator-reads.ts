import { playerEmailFor } from "../email-privacy";
import type { MemberRole } from "../generated/prisma/enums";
import { auditOperators, listAudit } from "./audit";
import type { AuditFilters } from "./audit-schemas";
import { authorize, type OperatorContext } from "./command";
import { exportConfig } from "./config";
import { listCurrencies, listItems, listPurchases } from "./economy/definitions";
import { currencyTotals, holdersAbove, playerHoldings, playerLedger } from "./economy/operator";
import { loadLeaderboard, toDto } from "./leaderboards/definitions";
import { currentPeriod, getLeaderboardPage, getPeriodPage, listPeriods } from "./leaderboards/entries";
import { listBoards, searchEntries, topLeaderboards } from "./leaderboards/operator";
import { playerDetail } from "./players/admin";
import { countPlayers, searchPlayers } from "./players/search";
import { listApiKeys } from "./projects";
import { getSave } from "./saves";

/**
 * The dashboard's project reads as operator services: each checks its caller as a command does
 * (`authorize`: a member of the project, viewers and up, within a token's scope; a project the
 * caller cannot see is NOT_FOUND, nobody signed in MISSING_TOKEN), then reads. The functions they
 * call take a bare project id because the game API, the exports and the config import share
 * them; only these wrappers are for operators. tRPC procedures call these, one line each.
 */
function viewerRead<I extends { projectId: string }, T>(run: (input: I) => Promise<T>) {
  return async (ctx: OperatorContext, input: I): Promise<T> => {
    await authorize(ctx, input.projectId, "VIEWER");
    return run(input);
  };
}

export const listCurrenciesAs = viewerRead(listCurrencies);
export const listItemsAs = viewerRead(listItems);
export const listPurchasesAs = viewerRead(listPurchases);
export const currencyTotalsAs = viewerRead(currencyTotals);
export const holdersAboveAs = viewerRead(holdersAbove);
export const playerHoldingsAs = viewerRead(playerHoldings);
export const playerLedgerAs = viewerRead((o: { projectId: string; playerId: string; cursor?: string | null; limit: number }) =>
  playerLedger({ projectId: o.projectId, playerId: o.playerId, cursor: o.cursor ?? undefined, limit: o.limit }),
);

export const listBoardsAs = viewerRead(listBoards);
export const topLeaderboardsAs = viewerRead(topLeaderboards);
export const searchEntriesAs = viewerRead((o: { projectId: string; id: string; query: string; period?: string; limit: number }) =>
  searchEntries({ projectId: o.projectId, leaderboardId: o.id, query: o.query, period: o.period, limit: o.limit }),
);
export const listPeriodsAs = viewerRead((o: { projectId: string; id: string }) =>
  listPeriods({ projectId: o.projectId, leaderboardId: o.id }),
);

/** A board's definition with its current period and when that ends. */
export const boardAs = viewerRead(async (o: { projectId: string; id: string }) => {
  const board = await loadLeaderboard(o.projectId, o.id);
  const { period, resetsAt } = currentPeriod(board);
  return { ...toDto(board), period, resetsAt: resetsAt ? resetsAt.toISOString() : null };
});

/** A page of the current period, or of `period` when given (an archived one). */
export const boardEntriesAs = viewerRead(async (o: { projectId: string; id: string; period?: string; offset: number; limit: number }) => {
  if (o.period) {
    const page = await getPeriodPage({ projectId: o.projectId, leaderboardId: o.id, period: o.period, offset: o.offset, limit: o.limit });
    return { period: page.period, total: page.total, offset: page.offset, limit: page.limit, entries: page.entries };
  }
  const page = await getLeaderboardPage({ projectId: o.projectId, leaderboardId: o.id, offset: o.offset, limit: o.limit });
  const board = await loadLeaderboard(o.projectId, o.id);
  return { period: currentPeriod(board).period, total: page.total, offset: page.offset, limit: page.limit, entries: page.entries };
});

/** Player reads with players' addresses as the caller's role may see them (`mayReadPlayerEmails`: viewers see them masked). */
function roleRead<I extends { projectId: string; role: MemberRole }, T>(run: (input: I) => Promise<T>) {
  return async (ctx: OperatorContext, input: Omit<I, "role">): Promise<T> => {
    const actor = await authorize(ctx, input.projectId, "VIEWER");
    return run({ ...input, role: actor.role } as I);
  };
}

export const searchPlayersAs = roleRead(searchPlayers);
export const countPlayersAs = roleRead(countPlayers);
export const playerDetailAs = roleRead(async (o: { projectId: string; playerId: string; role: MemberRole }) => {
  const detail = await playerDetail(o);
  return { ...detail, email: playerEmailFor(o.role, detail.email) };
});
export const playerSaveAs = viewerRead((o: { projectId: string; playerId: string; key: string }) =>
  getSave({ owner: { projectId: o.projectId, playerId: o.playerId }, key: o.key }),
);

export const listAuditAs = viewerRead((o: AuditFilters & { projectId: string; cursor?: string | null; limit: number }) =>
  listAudit({ ...o, cursor: o.cursor ?? undefined }),
);
export const auditOperatorsAs = viewerRead(auditOperators);
export const listApiKeysAs = viewerRead(listApiKeys);
export const exportConfigAs = viewerRead(exportConfig);
