import { dictionary } from "@zxcvbn-ts/language-common";

/**
 * Password rules (NIST SP 800-63B §3.1.1.2): 8–128 characters (checked by the schemas), not one
 * of the commonly used passwords, not the account's own e-mail or its local part, not blank.
 * The list is `@zxcvbn-ts/language-common`'s, ranked by frequency in breach corpora (49,000+
 * entries), compared case-insensitively. Used for players and operators.
 */
let common: ReadonlySet<string> | undefined;
function commonPasswords(): ReadonlySet<string> {
  common ??= new Set(dictionary["passwords-common"].map((p) => p.toLowerCase()));
  return common;
}

/** Local parts shorter than this are too common a substring to refuse ("jo@…"). */
const MIN_LOCAL_PART = 4;

/** Why the password is refused, or null when it is acceptable. */
export function passwordProblem(password: string, email: string): string | null {
  if (password.trim() === "") return "The password may not be only spaces.";
  const lower = password.toLowerCase();
  if (commonPasswords().has(lower)) return "This password is too common; choose one that is not on lists of leaked passwords.";
  const address = email.trim().toLowerCase();
  const local = address.split("@")[0] ?? "";
  if (lower === address || (local.length >= MIN_LOCAL_PART && lower.includes(local))) {
    return "The password may not contain your e-mail address or its name part.";
  }
  return null;
}
