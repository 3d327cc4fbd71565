import type pg from "pg";
import type { Env } from "./env";
import { MIGRATIONS_DIR, migrate, migrationStatus } from "./migrate";
import { schemaVerdict } from "./schema-verdict.mjs";

type Log = { info(object: object, message: string): void };

/**
 * The schema at an app process's start, by MIGRATIONS. `apply` (the default, `npm start`'s one
 * command): the pending migrations are applied here, under the lock. `check`: nothing is applied;
 * the launcher already refused a schema that is not this version's, or warned about a newer
 * version's migrations, before it started anything (server/schema-verdict.mjs says why). The
 * verdict is taken again here, and a refusal throws, for a process started some other way and a
 * worker replaced after the schema changed under it.
 */
export async function prepareSchema({
  mode,
  pool,
  log,
  first,
  dir = MIGRATIONS_DIR,
}: {
  mode: Env["MIGRATIONS"];
  pool: pg.Pool;
  log: Log;
  /** The single process or worker 0: says "up to date" (the others say only what they changed). */
  first: boolean;
  dir?: string;
}): Promise<void> {
  if (mode === "apply") {
    const applied = await migrate(pool, dir);
    if (first || applied.length > 0) {
      log.info({ applied }, `database migrated (${applied.length ? `applied ${applied.join(", ")}` : "up to date"})`);
    }
    return;
  }
  const verdict = schemaVerdict(await migrationStatus(pool, dir));
  if ("refuse" in verdict) throw new SchemaNotReadyError(verdict.refuse);
}

/** A start refused because the schema is not this version's; its message is the whole explanation. */
export class SchemaNotReadyError extends Error {
  override name = "SchemaNotReadyError";
}
