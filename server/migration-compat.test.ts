import { describe, expect, it } from "vitest";
import { readMigrations } from "./migrate";

/**
 * Rolling upgrades run two versions side by side on one schema: the new version's migrations
 * run first (the `migrate` step), and the old version's instances keep serving until they are
 * replaced. So a migration may only add (expand); what the old code still reads or writes is
 * removed or tightened a release later (contract), in a migration that says so with a line
 * `-- contract: <why the release before no longer needs it>`. docs/operating/deployment.md
 * ("Upgrades") is the rule for people; this is the rule for the files.
 *
 * The migrations up to the first release with the image (issue 52) ran before the rule and are
 * not checked.
 */
const LAST_BEFORE_THE_RULE = "20261215020000_store_instance_once_and_retention";

/** Statements that break the version before: each with what it does to that version's code. */
const BREAKING: Array<[RegExp, string]> = [
  [/\bDROP\s+TABLE\b/i, "drops a table the version before may still use"],
  [/\bDROP\s+COLUMN\b/i, "drops a column the version before may still read or write"],
  [/\bRENAME\s+(COLUMN\s+)?\S+\s+TO\b/i, "renames what the version before still names"],
  [/\bRENAME\s+TO\b/i, "renames a table the version before still names"],
  [/\bALTER\s+COLUMN\s+\S+\s+(SET\s+DATA\s+)?TYPE\b/i, "changes a column's type under the version before"],
  [/\bALTER\s+COLUMN\s+\S+\s+SET\s+NOT\s+NULL\b/i, "makes a column required that the version before may leave empty"],
  [
    /\bADD\s+COLUMN\s+(IF\s+NOT\s+EXISTS\s+)?("[^"]+"|\w+)\s+[^,;]*\bNOT\s+NULL\b(?![^,;]*\bDEFAULT\b)/i,
    "adds a required column without a default, which the version before's inserts leave out",
  ],
];

/** The SQL without comments, so a comment that mentions DROP TABLE does not count. */
const withoutComments = (sql: string) => sql.replace(/--[^\n]*/g, "").replace(/\/\*[\s\S]*?\*\//g, "");

function breakingStatements(sql: string): string[] {
  if (/^\s*--\s*contract:/im.test(sql)) return [];
  const code = withoutComments(sql);
  return BREAKING.filter(([pattern]) => pattern.test(code)).map(([, why]) => why);
}

describe("migrations after the rule only expand the schema", () => {
  it("no migration since the rule drops, renames or tightens without a contract line", async () => {
    const checked = (await readMigrations()).filter((m) => m.name > LAST_BEFORE_THE_RULE);
    const found = checked.flatMap((m) => breakingStatements(m.sql).map((why) => `${m.name}: ${why}`));
    expect(found).toEqual([]);
  });
});

describe("what counts as breaking the version before", () => {
  it.each([
    ['ALTER TABLE "players" DROP COLUMN "name";', "drops a column"],
    ['DROP TABLE "usage_minutes";', "drops a table"],
    ['ALTER TABLE "players" RENAME COLUMN "name" TO "display_name";', "renames"],
    ['ALTER TABLE "players" RENAME TO "accounts";', "renames a table"],
    ['ALTER TABLE "players" ALTER COLUMN "level" TYPE BIGINT;', "changes a column's type"],
    ['ALTER TABLE "players" ALTER COLUMN "level" SET NOT NULL;', "makes a column required"],
    ['ALTER TABLE "players" ADD COLUMN "level" INTEGER NOT NULL;', "adds a required column without a default"],
  ])("%s is found (%s)", (sql, why) => {
    expect(breakingStatements(sql).join("; ")).toContain(why);
  });

  it.each([
    ['ALTER TABLE "players" ADD COLUMN "level" INTEGER NOT NULL DEFAULT 1;'],
    ['ALTER TABLE "players" ADD COLUMN "nickname" TEXT;'],
    ['CREATE INDEX "players_level_idx" ON "players" ("level");'],
    ["-- The old table is dropped a release later (DROP TABLE usage_minutes).\nCREATE TABLE t (id INT);"],
    ['-- contract: 0.3 reads request_stats only\nDROP TABLE "usage_minutes";'],
  ])("%s is not", (sql) => {
    expect(breakingStatements(sql)).toEqual([]);
  });
});
