import { pool } from "../../db";
import { AppError } from "../../errors";
import type { ExportSource } from "../export-source";
import { loadLeaderboard } from "../leaderboards/definitions";
import { currentPeriod } from "../leaderboards/entries";

/** A player's ledger, a leaderboard period's entries and experiment assignments as export sources (keyset-paged, tenant-scoped). */

type LedgerRaw = {
  id: string;
  created_at: Date;
  kind: string;
  purchase_id: string | null;
  quantity: number | null;
  currencies: unknown;
  items: unknown;
  reason: string | null;
  actor_kind: string;
  actor_id: string | null;
  operator_email: string | null;
  request_id: string | null;
};

export async function assertPlayer(projectId: string, playerId: string): Promise<void> {
  if (!/^[0-9a-f-]{36}$/i.test(playerId)) throw new AppError("PLAYER_NOT_FOUND");
  const { rowCount } = await pool().query("SELECT 1 FROM players WHERE id = $1::uuid AND project_id = $2", [playerId, projectId]);
  if (!rowCount) throw new AppError("PLAYER_NOT_FOUND");
}

/** Oldest first; an operator's change names the operator by e-mail (as the player page does). */
export function ledgerExport(projectId: string, playerId: string): ExportSource<LedgerRaw, string> {
  return {
    columns: ["id", "createdAt", "kind", "purchaseId", "quantity", "currencies", "items", "reason", "actorKind", "actor", "requestId"],
    page: async (cursor, limit) =>
      (
        await pool().query<LedgerRaw>(
          `SELECT t.id, t.created_at, t.kind, t.purchase_id, t.quantity, t.currencies, t.items, t.reason, t.actor_kind, t.actor_id,
                  op.email AS operator_email, t.request_id
             FROM economy_transactions t
             LEFT JOIN operators op ON t.actor_kind = 'operator' AND op.id::text = t.actor_id
            WHERE t.project_id = $1 AND t.player_id = $2::uuid AND ($3::uuid IS NULL OR t.id > $3::uuid)
            ORDER BY t.id LIMIT $4`,
          [projectId, playerId, cursor, limit],
        )
      ).rows,
    cursorOf: (r) => r.id,
    cells: (r) => [
      r.id,
      r.created_at,
      r.kind.toLowerCase(),
      r.purchase_id,
      r.quantity,
      r.currencies,
      r.items,
      r.reason,
      r.actor_kind,
      r.actor_kind === "operator" ? (r.operator_email ?? "deleted operator") : r.actor_id,
      r.request_id,
    ],
  };
}

type EntryRaw = {
  player_id: string;
  display_name: string | null;
  score: number;
  sort_key: number;
  seq: string;
  metadata: unknown;
  updated_at: Date;
};

/** The period named (default: the current one) exists, or LEADERBOARD_NOT_FOUND / NOT_FOUND. */
export async function boardPeriod(projectId: string, leaderboardId: string, period?: string): Promise<string> {
  const board = await loadLeaderboard(projectId, leaderboardId);
  const current = currentPeriod(board).period;
  if (period === undefined || period === current) return current;
  const { rowCount } = await pool().query(
    "SELECT 1 FROM leaderboard_periods WHERE project_id = $1 AND leaderboard_id = $2 AND period = $3",
    [projectId, leaderboardId, period],
  );
  if (!rowCount) throw new AppError("NOT_FOUND", { message: "This leaderboard has no such period." });
  return period;
}

/** Best first (the rank index's order: sort key, then who reached the score first); rank counts from 1. */
export function leaderboardExport(
  projectId: string,
  leaderboardId: string,
  period: string,
): ExportSource<EntryRaw, { sortKey: number; seq: string }> {
  return {
    columns: ["rank", "playerId", "displayName", "score", "metadata", "updatedAt", "period"],
    page: async (cursor, limit) =>
      (
        await pool().query<EntryRaw>(
          `SELECT e.player_id, p.display_name, e.score, e.sort_key, e.seq::text AS seq, e.metadata, e.updated_at
             FROM leaderboard_entries e JOIN players p ON p.id = e.player_id AND p.project_id = e.project_id
            WHERE e.project_id = $1 AND e.leaderboard_id = $2 AND e.period = $3
              AND ($4::float8 IS NULL OR (e.sort_key, e.seq) > ($4::float8, $5::bigint))
            ORDER BY e.sort_key, e.seq LIMIT $6`,
          [projectId, leaderboardId, period, cursor?.sortKey ?? null, cursor?.seq ?? null, limit],
        )
      ).rows,
    cursorOf: (r) => ({ sortKey: r.sort_key, seq: r.seq }),
    cells: (r, index) => [index + 1, r.player_id, r.display_name, r.score, r.metadata, r.updated_at, period],
  };
}

type AssignmentRaw = { experiment_id: string; experiment_name: string; variant: string; player_id: string; assigned_at: Date };

/** The experiment named exists in the project, or NOT_FOUND. */
export async function assertExperiment(projectId: string, experimentId: string): Promise<void> {
  const { rowCount } = await pool().query("SELECT 1 FROM experiments WHERE project_id = $1 AND id = $2", [projectId, experimentId]);
  if (!rowCount) throw new AppError("NOT_FOUND", { message: "This project has no such experiment." });
}

/** Every stored assignment (first exposures), of one experiment or all: by experiment, then player. */
export function experimentAssignmentsExport(
  projectId: string,
  experimentId: string | undefined,
): ExportSource<AssignmentRaw, { experimentId: string; playerId: string }> {
  return {
    columns: ["experimentId", "experimentName", "variant", "playerId", "assignedAt"],
    page: async (cursor, limit) =>
      (
        await pool().query<AssignmentRaw>(
          `SELECT a.experiment_id, e.name AS experiment_name, a.variant, a.player_id, a.assigned_at
             FROM experiment_assignments a JOIN experiments e ON e.project_id = a.project_id AND e.id = a.experiment_id
            WHERE a.project_id = $1 AND ($2::text IS NULL OR a.experiment_id = $2)
              AND ($3::text IS NULL OR (a.experiment_id, a.player_id) > ($3::text, $4::uuid))
            ORDER BY a.experiment_id, a.player_id LIMIT $5`,
          [projectId, experimentId ?? null, cursor?.experimentId ?? null, cursor?.playerId ?? null, limit],
        )
      ).rows,
    cursorOf: (r) => ({ experimentId: r.experiment_id, playerId: r.player_id }),
    cells: (r) => [r.experiment_id, r.experiment_name, r.variant, r.player_id, r.assigned_at],
  };
}
