import { z } from "zod";
import { ZAuditFilters } from "../audit-schemas";
import { ZPlayerFilters } from "../players/filter-schemas";

/**
 * The dashboard's exports (client-safe: zod only), one schema per kind for the query string.
 * Players and a player's ledger hold personal data (e-mails, purchases): admins and owners only;
 * a leaderboard's entries and the audit log are what a viewer already reads on the dashboard.
 * Experiment assignments name players by id and what they were shown: admins and owners.
 */
export const EXPORT_KINDS = [
  "players",
  "ledger",
  "leaderboard",
  "audit",
  "finance-ledger",
  "store-transactions",
  "experiment-assignments",
] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
export const EXPORT_MINIMUM = {
  players: "ADMIN",
  ledger: "ADMIN",
  leaderboard: "VIEWER",
  audit: "VIEWER",
  "finance-ledger": "ADMIN",
  "store-transactions": "ADMIN",
  "experiment-assignments": "ADMIN",
} as const satisfies Record<ExportKind, "VIEWER" | "ADMIN">;

const ZFormat = z.enum(["csv", "json"]).default("csv");

/** The longest range a finance export covers: a year, leap day included. */
export const FINANCE_MAX_DAYS = 366;
const DAY_MS = 86_400_000;
const ZDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "A date is YYYY-MM-DD.")
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), "No such date.");
/**
 * A range of whole UTC days, both ends included; `bom=1` starts a CSV with a byte-order mark, so
 * that Excel reads it as UTF-8 (accents in names and reasons) instead of the system's code page.
 */
const ZFinanceQuery = z
  .strictObject({ format: ZFormat, from: ZDay, to: ZDay, bom: z.enum(["0", "1"]).default("0") })
  .superRefine((q, ctx) => {
    const days = (Date.parse(q.to) - Date.parse(q.from)) / DAY_MS + 1;
    if (days < 1) ctx.addIssue({ code: "custom", path: ["to"], message: "The end date is before the start date." });
    else if (days > FINANCE_MAX_DAYS)
      ctx.addIssue({ code: "custom", path: ["to"], message: `A range is at most ${FINANCE_MAX_DAYS} days.` });
  });
export type FinanceQuery = z.output<typeof ZFinanceQuery>;

export const ZExportQuery = {
  players: ZPlayerFilters.extend({ format: ZFormat }),
  ledger: z.strictObject({ format: ZFormat, playerId: z.string().uuid() }),
  leaderboard: z.strictObject({ format: ZFormat, leaderboardId: z.string().min(1).max(64), period: z.string().min(1).max(200).optional() }),
  audit: ZAuditFilters.extend({ format: ZFormat }),
  "finance-ledger": ZFinanceQuery,
  "store-transactions": ZFinanceQuery,
  "experiment-assignments": z.strictObject({ format: ZFormat, experimentId: z.string().min(1).max(64).optional() }),
} satisfies Record<ExportKind, z.ZodType>;
