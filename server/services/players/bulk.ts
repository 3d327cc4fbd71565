import { uuidv7Floor } from "../../crypto";
import { pool, transaction } from "../../db";
import { AppError } from "../../errors";
import { authorize, type OperatorContext } from "../command";
import { adjustPlayerAs } from "../economy/commands";
import { banPlayerAs } from "./commands";

/**
 * Bulk actions on selected players: one reason for all, and for each player the single action's
 * own service (banPlayerAs: sessions ended; adjustPlayerAs: a ledger row), so each player gets
 * exactly what a single ban or grant gives them and an audit row of their own, in a transaction
 * of their own: one player's refusal (gone, over a currency's maximum) does not undo the others.
 *
 * Idempotent per player: the caller names the batch (a fresh uuid per submit) and a retry of the
 * same batch skips each player whose audit row of this batch exists (looked up among the last
 * day's entries: a range of the (project, id) index, as ids start with their time). An advisory
 * lock on (batch, player) makes two concurrent retries wait for each other.
 */
export const MAX_BULK_PLAYERS = 100;
const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;

export type BulkOutcome = { playerId: string; outcome: "done" | "already" | "failed"; code?: string; message?: string };

type Bulk = { projectId: string; playerIds: string[]; batch: string; reason: string };

export function banPlayersAs(ctx: OperatorContext, o: Bulk & { until?: string | null; removeEntries?: boolean }): Promise<BulkOutcome[]> {
  return eachPlayer(ctx, o, "player.ban", (playerId) =>
    banPlayerAs(ctx, {
      projectId: o.projectId,
      playerId,
      reason: o.reason,
      until: o.until,
      batch: o.batch,
      removeEntries: o.removeEntries,
    }),
  );
}

export function grantPlayersAs(
  ctx: OperatorContext,
  o: Bulk & { currencies: Array<{ currencyId: string; amount: number }> },
): Promise<BulkOutcome[]> {
  return eachPlayer(ctx, o, "economy.grant", (playerId) =>
    adjustPlayerAs(ctx, {
      projectId: o.projectId,
      playerId,
      direction: "grant",
      currencies: o.currencies,
      items: [],
      reason: o.reason,
      batch: o.batch,
    }),
  );
}

async function eachPlayer(
  ctx: OperatorContext,
  o: Bulk,
  action: string,
  act: (playerId: string) => Promise<unknown>,
): Promise<BulkOutcome[]> {
  await authorize(ctx, o.projectId, "ADMIN");
  const since = uuidv7Floor(Date.now() - RETRY_WINDOW_MS);
  const outcomes: BulkOutcome[] = [];
  for (const playerId of [...new Set(o.playerIds)]) {
    try {
      const outcome = await transaction(async () => {
        await pool().query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`bulk:${o.batch}:${playerId}`]);
        const { rowCount } = await pool().query(
          `SELECT 1 FROM audit_log a WHERE a.project_id = $1 AND a.id >= $2::uuid AND a.action = $3 AND a.target = $4 AND a.after->>'batch' = $5 LIMIT 1`,
          [o.projectId, since, action, playerId, o.batch],
        );
        if (rowCount) return "already" as const;
        await act(playerId);
        return "done" as const;
      });
      outcomes.push({ playerId, outcome });
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      outcomes.push({ playerId, outcome: "failed", code: error.code, message: error.message });
    }
  }
  return outcomes;
}
