// What a start with MIGRATIONS=check makes of the database's migrations (server/migrate.ts,
// migrationStatus). Plain JavaScript: the launcher decides before it starts anything, and the
// app's bootstrap decides again the same way (server/schema-at-start.ts).
//
// An instance in check mode never changes the schema; `migrate` (npm run migrate, the image's
// `migrate` command) does, as its own step before the new version's instances start. So:
// - a migration of this version missing, failed or changed since it ran: refuse to start, in one
//   line naming them and the fix — this code would meet a schema it was not written for;
// - migrations the database has and this version does not know: start, with a warning naming them.
//   They are a newer version's, applied while this one still runs (a rolling upgrade). That is
//   safe because a release's migrations only expand the schema compatibly (new tables, nullable or
//   defaulted columns, new indexes); what they make obsolete is dropped by a later release, once
//   no older instance runs (expand, then contract).

/** @typedef {{ pending: string[], failed: string[], changed: string[], unknown: string[] }} MigrationStatus */

/** At most this many names in a line; more are shown as the first and the last. */
const NAMED = 5;

/** @param {string[]} names */
function named(names) {
  if (names.length <= NAMED) return names.join(", ");
  return `${names.length} migrations, ${names[0]} … ${names[names.length - 1]}`;
}

/**
 * @param {MigrationStatus} status
 * @returns {{ refuse: string } | { warn: string } | { ok: string }}
 */
export function schemaVerdict(status) {
  const problems = [
    status.pending.length ? `not applied: ${named(status.pending)}` : "",
    status.failed.length ? `failed and not resolved: ${named(status.failed)}` : "",
    status.changed.length ? `applied from a different file (checksum mismatch): ${named(status.changed)}` : "",
  ].filter((p) => p !== "");
  if (problems.length > 0) {
    const fix = status.pending.length
      ? "run this version's migrate first (npm run migrate; the image: docker run <image> migrate)"
      : "resolve them in the database first (migrate refuses them too)";
    return { refuse: `MIGRATIONS=check: the database schema is not this version's (${problems.join("; ")}): ${fix}` };
  }
  if (status.unknown.length > 0) {
    return {
      warn: `MIGRATIONS=check: the database has migrations this version does not know (${named(status.unknown)}): a newer version migrated it; starting on its expanded schema`,
    };
  }
  return { ok: "MIGRATIONS=check: every migration of this version is applied" };
}
