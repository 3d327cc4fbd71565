import { z } from "zod";
import { ZAuditFilters } from "../audit-schemas";
import { ZPlayerFilters } from "../players/filter-schemas";

/**
 * The dashboard's exports (client-safe: zod only), one schema per kind for the query string.
 * Players and a player's ledger hold personal data (e-mails, purchases): admins and owners only;
 * a leaderboard's entries and the audit log are what a viewer already reads on the dashboard.
 */
export const EXPORT_KINDS = ["players", "ledger", "leaderboard", "audit"] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
export const EXPORT_MINIMUM = { players: "ADMIN", ledger: "ADMIN", leaderboard: "VIEWER", audit: "VIEWER" } as const satisfies Record<
  ExportKind,
  "VIEWER" | "ADMIN"
>;

const ZFormat = z.enum(["csv", "json"]).default("csv");

export const ZExportQuery = {
  players: ZPlayerFilters.extend({ format: ZFormat }),
  ledger: z.strictObject({ format: ZFormat, playerId: z.string().uuid() }),
  leaderboard: z.strictObject({ format: ZFormat, leaderboardId: z.string().min(1).max(64), period: z.string().min(1).max(200).optional() }),
  audit: ZAuditFilters.extend({ format: ZFormat }),
} satisfies Record<ExportKind, z.ZodType>;
