import { AppError } from "../../errors";
import type { MemberRole } from "../../generated/prisma/enums";
import { parseWith } from "../../validation";
import { auditExport } from "../audit";
import { type OperatorContext, runCommand } from "../command";
import { playersExport } from "../players/search";
import { financeLedgerExport, ledgerColumns, shortfallColumns, storeTransactionsExport } from "./finance";
import type { ExportFormat } from "./format";
import { EXPORT_KINDS, EXPORT_MINIMUM, type ExportKind, ZExportQuery } from "./schemas";
import { assertExperiment, assertPlayer, boardPeriod, experimentAssignmentsExport, leaderboardExport, ledgerExport } from "./sources";
import { exportStream } from "./stream";

/**
 * An export, checked and audited like any operator command (runCommand: not a member →
 * NOT_FOUND, too low a role → FORBIDDEN; an audit row `export.<kind>` with the filters, never
 * their personal values), then streamed after the check's transaction has committed.
 */
export type PreparedExport = { stream: ReadableStream<Uint8Array>; filename: string; contentType: string };

/** `open` starts the stream: only once the audit row has committed. */
type Prepared = { format: ExportFormat; open: () => ReadableStream<Uint8Array>; target?: string; filters: Record<string, unknown> };

export async function exportAs(
  ctx: OperatorContext,
  o: { projectId: string; kind: string; query: Record<string, string> },
): Promise<PreparedExport> {
  const kind = EXPORT_KINDS.find((k) => k === o.kind);
  if (!kind) throw new AppError("NOT_FOUND", { message: "No such export." });
  const prepared = await runCommand(ctx, {
    projectId: o.projectId,
    minimum: EXPORT_MINIMUM[kind],
    action: `export.${kind}`,
    target: (p: Prepared) => p.target,
    run: (actor) => prepare(o.projectId, kind, o.query, actor.role),
    after: (p) => p.filters,
  });
  const format = prepared.format;
  const date = new Date().toISOString().slice(0, 10);
  return {
    stream: prepared.open(),
    filename: `${kind}${prepared.target ? `-${prepared.target}` : ""}-${date}.${format}`.replace(/[^\w.-]/g, "_"),
    contentType: format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
  };
}

async function prepare(projectId: string, kind: ExportKind, raw: Record<string, string>, role: MemberRole): Promise<Prepared> {
  switch (kind) {
    case "players": {
      const { query, ...rest } = parseWith(ZExportQuery.players, raw, "query");
      // The search text may be part of an e-mail: the audit row records only that there was one.
      return {
        format: rest.format,
        open: () => exportStream(playersExport(projectId, { query, ...rest }, role), rest.format),
        filters: { ...rest, ...(query.trim() ? { search: "(text)" } : {}) },
      };
    }
    case "ledger": {
      const query = parseWith(ZExportQuery.ledger, raw, "query");
      await assertPlayer(projectId, query.playerId);
      return {
        format: query.format,
        open: () => exportStream(ledgerExport(projectId, query.playerId), query.format),
        target: query.playerId,
        filters: { format: query.format },
      };
    }
    case "leaderboard": {
      const query = parseWith(ZExportQuery.leaderboard, raw, "query");
      const period = await boardPeriod(projectId, query.leaderboardId, query.period);
      return {
        format: query.format,
        open: () => exportStream(leaderboardExport(projectId, query.leaderboardId, period), query.format),
        target: query.leaderboardId,
        filters: { format: query.format, period },
      };
    }
    case "audit": {
      const query = parseWith(ZExportQuery.audit, raw, "query");
      return { format: query.format, open: () => exportStream(auditExport(projectId, query), query.format), filters: query };
    }
    // The columns (one per currency and item) are known before the first row is written: read here,
    // before the download starts, so a failure is the product's error rather than a cut-off file.
    case "finance-ledger": {
      const query = parseWith(ZExportQuery["finance-ledger"], raw, "query");
      const columns = await ledgerColumns(projectId, query);
      return {
        format: query.format,
        open: () => exportStream(financeLedgerExport(projectId, query, columns), query.format, undefined, { bom: query.bom === "1" }),
        target: `${query.from}_${query.to}`,
        filters: query,
      };
    }
    case "experiment-assignments": {
      const query = parseWith(ZExportQuery["experiment-assignments"], raw, "query");
      if (query.experimentId !== undefined) await assertExperiment(projectId, query.experimentId);
      return {
        format: query.format,
        open: () => exportStream(experimentAssignmentsExport(projectId, query.experimentId), query.format),
        target: query.experimentId,
        filters: query,
      };
    }
    case "store-transactions": {
      const query = parseWith(ZExportQuery["store-transactions"], raw, "query");
      const shortfall = await shortfallColumns(projectId, query);
      return {
        format: query.format,
        open: () => exportStream(storeTransactionsExport(projectId, query, shortfall), query.format, undefined, { bom: query.bom === "1" }),
        target: `${query.from}_${query.to}`,
        filters: query,
      };
    }
  }
}
