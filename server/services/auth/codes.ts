import { createHmac, randomInt, timingSafeEqual } from "node:crypto";
import { pool, transaction } from "../../db";
import { env } from "../../env";
import { AppError } from "../../errors";
import { queueEmail } from "../../mailer";

/**
 * One-time codes sent by e-mail (password reset, e-mail verification): six digits, one live code
 * per player and purpose (a new one replaces the old), stored as an HMAC keyed with the server's
 * secret (six digits are a million candidates: a plain hash would be reversed at once), valid
 * CODE_TTL_SECONDS, single use, dead after MAX_TRIES tries.
 *
 * Wrong guesses are also counted per (project, address, purpose) across codes (code_guesses): a
 * new code does not reset that count, nor does deleting the account and registering the address
 * again. After CODE_GUESS_LIMIT wrong guesses every guess is refused for a back-off
 * (CODE_GUESS_BACKOFF_SECONDS, doubling with each trip up to CODE_GUESS_BACKOFF_MAX_SECONDS), the
 * live code dies and the owner is told by mail. The lock stops guesses only: once it ends, a new
 * code requested from the mailbox works, and a right code resets the count.
 *
 * So that a guesser cannot keep the owner out by tripping the lock again and again, the lock mail
 * carries a recovery code: 16 characters of Crockford's base32 (80 bits), stored as an HMAC on
 * the address's code_guesses row. It works while guesses are locked, is not counted as a guess
 * (nobody guesses 2^80), is not replaced by a new six-digit code, and dies when used, when the
 * next lock mails a new one, or after RECOVERY_TTL_SECONDS.
 */
export type CodePurpose = "PASSWORD_RESET" | "EMAIL_VERIFICATION";
export const MAX_TRIES = 5;

const hashOf = (playerId: string, purpose: CodePurpose, code: string) =>
  createHmac("sha256", env().JWT_SECRET).update(`player-code:${playerId}:${purpose}:${code}`).digest();

const RECOVERY_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const RECOVERY_TTL_SECONDS = 7 * 24 * 3600;
const RECOVERY_FORMAT = /^[0-9A-Z]{16}$/;
/** A recovery code as typed (any case, dashes or none) in its canonical form, or null if it is none. */
const recoveryForm = (code: string): string | null => {
  const canonical = code.toUpperCase().replace(/-/g, "");
  return RECOVERY_FORMAT.test(canonical) ? canonical : null;
};
const recoveryHashOf = (g: Guess, canonical: string) =>
  createHmac("sha256", env().JWT_SECRET)
    .update(`recovery-code:${g.projectId}:${g.address.toLowerCase()}:${g.purpose}:${canonical}`)
    .digest();
const newRecoveryCode = (): string => {
  const chars = Array.from({ length: 16 }, () => RECOVERY_ALPHABET[randomInt(0, RECOVERY_ALPHABET.length)]).join("");
  return chars.replace(/(.{4})(?=.)/g, "$1-");
};

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

type Guess = { projectId: string; address: string; purpose: CodePurpose };

/**
 * Counts a guess before it is checked (one atomic statement, so parallel guesses cannot slip past
 * the cap): its number since the last lock, or null while a lock lasts.
 */
async function reserveGuess(g: Guess): Promise<number | null> {
  const { rows } = await pool().query<{ wrong: number }>(
    `INSERT INTO code_guesses (project_id, address, purpose, wrong) VALUES ($1, $2, $3, 1)
     ON CONFLICT (project_id, address, purpose) DO UPDATE SET wrong = code_guesses.wrong + 1, updated_at = now()
       WHERE code_guesses.locked_until IS NULL OR code_guesses.locked_until <= now()
     RETURNING wrong`,
    [g.projectId, g.address.toLowerCase(), g.purpose],
  );
  return rows[0]?.wrong ?? null;
}

/** The cap tripped: guesses stop for the back-off, the live code dies, the owner is told and given a recovery code. */
async function lockGuesses(g: Guess & { playerId: string }): Promise<void> {
  const recovery = newRecoveryCode();
  await transaction(async () => {
    const { rows } = await pool().query<{ locked_until: Date }>(
      `UPDATE code_guesses
          SET wrong = 0, trips = trips + 1, updated_at = now(),
              locked_until = now() + make_interval(secs => least($4::float8 * power(2, least(trips, 30)), $5::float8)),
              recovery_hash = $7, recovery_expires_at = now() + make_interval(secs => $8)
        WHERE project_id = $1 AND address = $2 AND purpose = $3 AND wrong >= $6
        RETURNING locked_until`,
      [
        g.projectId,
        g.address.toLowerCase(),
        g.purpose,
        env().CODE_GUESS_BACKOFF_SECONDS,
        env().CODE_GUESS_BACKOFF_MAX_SECONDS,
        env().CODE_GUESS_LIMIT,
        recoveryHashOf(g, recoveryForm(recovery) ?? ""),
        RECOVERY_TTL_SECONDS,
      ],
    );
    const lock = rows[0];
    if (!lock) return;
    await pool().query("UPDATE player_codes SET used_at = now() WHERE player_id = $1 AND purpose = $2 AND used_at IS NULL", [
      g.playerId,
      g.purpose,
    ]);
    await queueEmail({
      projectId: g.projectId,
      playerId: g.playerId,
      template: "code_guesses_locked",
      to: g.address,
      code: recovery,
      until: lock.locked_until,
    });
  });
}

/**
 * Uses the player's live code if `code` is it, and returns the address it was sent to; else
 * 401 INVALID_CODE (the same answer while guesses are locked: a lock tells a guesser nothing).
 * Every try counts, per code (MAX_TRIES) and per address (CODE_GUESS_LIMIT); the right code is
 * marked used by one conditional statement, so it works once. `address` is where the player's
 * codes go (their e-mail).
 */
export async function consumeCode(o: {
  projectId: string;
  playerId: string;
  purpose: CodePurpose;
  code: string;
  address: string;
}): Promise<{ email: string }> {
  const guess = { projectId: o.projectId, address: o.address, purpose: o.purpose };
  const recovery = recoveryForm(o.code);
  if (recovery) return redeemRecoveryCode({ ...guess, playerId: o.playerId }, recovery);
  const n = await reserveGuess(guess);
  if (n === null || n > env().CODE_GUESS_LIMIT) throw new AppError("INVALID_CODE");
  const tried = await pool().query<{ id: string; code_hash: Buffer; email: string }>(
    `UPDATE player_codes SET attempts = attempts + 1
      WHERE player_id = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now() AND attempts < $3
      RETURNING id, code_hash, email`,
    [o.playerId, o.purpose, MAX_TRIES],
  );
  const live = tried.rows[0];
  const expected = hashOf(o.playerId, o.purpose, o.code);
  if (!live || !timingSafeEqual(live.code_hash, expected)) {
    if (n === env().CODE_GUESS_LIMIT) await lockGuesses({ ...guess, playerId: o.playerId });
    throw new AppError("INVALID_CODE");
  }
  const used = await pool().query("UPDATE player_codes SET used_at = now() WHERE id = $1 AND used_at IS NULL", [live.id]);
  if (used.rowCount !== 1) throw new AppError("INVALID_CODE");
  await pool().query("DELETE FROM code_guesses WHERE project_id = $1 AND address = $2 AND purpose = $3", [
    o.projectId,
    o.address.toLowerCase(),
    o.purpose,
  ]);
  return { email: live.email };
}

/**
 * The recovery code from the lock mail: one statement ends the lock and uses the code (so it
 * works once, also against parallel tries); the player's live six-digit code dies with it.
 */
async function redeemRecoveryCode(g: Guess & { playerId: string }, canonical: string): Promise<{ email: string }> {
  const used = await pool().query(
    `DELETE FROM code_guesses
      WHERE project_id = $1 AND address = $2 AND purpose = $3 AND recovery_hash = $4 AND recovery_expires_at > now()`,
    [g.projectId, g.address.toLowerCase(), g.purpose, recoveryHashOf(g, canonical)],
  );
  if (used.rowCount !== 1) throw new AppError("INVALID_CODE");
  await pool().query("UPDATE player_codes SET used_at = now() WHERE player_id = $1 AND purpose = $2 AND used_at IS NULL", [
    g.playerId,
    g.purpose,
  ]);
  return { email: g.address };
}
