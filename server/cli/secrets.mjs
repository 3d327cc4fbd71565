// The install's generated secrets (.data/secrets.json), shared by every launcher of one data directory.
import { randomBytes } from "node:crypto";
import { existsSync, linkSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Secrets generated once per install into .data/secrets.json, unless the environment has them.
 * Two launchers sharing a data directory may start at once: the file appears whole or not at all
 * (written beside it, then linked into place), and the first one to link it wins, so both run
 * with the same secrets.
 * @param {string} dataDir
 * @returns {{ jwtSecret: string, postgresPassword: string }}
 */
export function loadSecrets(dataDir) {
  const file = path.join(dataDir, "secrets.json");
  for (;;) {
    const existed = existsSync(file);
    /** @type {Record<string, unknown>} */
    const secrets = existed ? JSON.parse(readFileSync(file, "utf8")) : {};
    let changed = false;
    for (const name of ["jwtSecret", "postgresPassword"]) {
      if (!secrets[name]) {
        secrets[name] = randomBytes(32).toString("base64url");
        changed = true;
      }
    }
    if (!changed) return /** @type {{ jwtSecret: string, postgresPassword: string }} */ (secrets);
    const draft = `${file}.${process.pid}.tmp`;
    writeFileSync(draft, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
    try {
      if (existed) renameSync(draft, file);
      else linkSync(draft, file);
      return /** @type {{ jwtSecret: string, postgresPassword: string }} */ (secrets);
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== "EEXIST") throw error;
    } finally {
      rmSync(draft, { force: true });
    }
  }
}
