import { createHmac, randomInt, timingSafeEqual } from "node:crypto";
import { pool } from "../../db";
import { env } from "../../env";
import { AppError } from "../../errors";

/**
 * One-time codes sent by e-mail (password reset, e-mail verification): six digits, one live code
 * per player and purpose (a new one replaces the old), stored as an HMAC keyed with the server's
 * secret (six digits are a million candidates: a plain hash would be reversed at once), valid
 * CODE_TTL_SECONDS, single use, dead after MAX_TRIES tries.
 */
export type CodePurpose = "PASSWORD_RESET" | "EMAIL_VERIFICATION";
export const MAX_TRIES = 5;

const hashOf = (playerId: string, purpose: CodePurpose, code: string) =>
  createHmac("sha256", env().JWT_SECRET).update(`player-code:${playerId}:${purpose}:${code}`).digest();

/** A new code for the player (replacing a live one), sent to `email`. */
export async function issueCode(o: { playerId: string; purpose: CodePurpose; email: string }): Promise<string> {
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  await pool().query(
    `INSERT INTO player_codes (id, player_id, purpose, code_hash, email, expires_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, now() + make_interval(secs => $5))
     ON CONFLICT (player_id, purpose) DO UPDATE
       SET code_hash = EXCLUDED.code_hash, email = EXCLUDED.email, attempts = 0, expires_at = EXCLUDED.expires_at,
           used_at = NULL, created_at = now()`,
    [o.playerId, o.purpose, hashOf(o.playerId, o.purpose, code), o.email, env().CODE_TTL_SECONDS],
  );
  return code;
}

/**
 * Uses the player's live code if `code` is it, and returns the address it was sent to; else
 * 401 INVALID_CODE. Every try counts (one atomic UPDATE, so parallel guesses cannot get past
 * MAX_TRIES); the right code is marked used by the same kind of statement, so it works once.
 */
export async function consumeCode(o: { playerId: string; purpose: CodePurpose; code: string }): Promise<{ email: string }> {
  const tried = await pool().query<{ id: string; code_hash: Buffer; email: string }>(
    `UPDATE player_codes SET attempts = attempts + 1
      WHERE player_id = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now() AND attempts < $3
      RETURNING id, code_hash, email`,
    [o.playerId, o.purpose, MAX_TRIES],
  );
  const live = tried.rows[0];
  const expected = hashOf(o.playerId, o.purpose, o.code);
  if (!live || !timingSafeEqual(live.code_hash, expected)) throw new AppError("INVALID_CODE");
  const used = await pool().query("UPDATE player_codes SET used_at = now() WHERE id = $1 AND used_at IS NULL", [live.id]);
  if (used.rowCount !== 1) throw new AppError("INVALID_CODE");
  return { email: live.email };
}
