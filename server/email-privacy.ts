import type { MemberRole } from "./generated/prisma/enums";

/**
 * The one rule for players' e-mail addresses on the operator side (player search, a player's
 * page, the e-mail log, exports): admins and owners read them; viewers see them masked. One-time
 * codes are no one's to read: they are masked in every stored message (see mailer/templates.ts).
 */
export function mayReadPlayerEmails(role: MemberRole): boolean {
  return role === "ADMIN" || role === "OWNER";
}

/** `jane@example.com` → `j•••@example.com`: enough to tell players apart on a support call, not to write to them. */
export function maskEmail(address: string): string {
  const at = address.lastIndexOf("@");
  if (at < 1) return "•••";
  return `${address.slice(0, 1)}•••${address.slice(at)}`;
}

/** The address as `role` may see it (null stays null). */
export function playerEmailFor(role: MemberRole, address: string | null): string | null {
  if (address === null) return null;
  return mayReadPlayerEmails(role) ? address : maskEmail(address);
}
