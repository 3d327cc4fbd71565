import { z } from "zod";
import { zLabel } from "../labels";

/** Client-safe (zod only): the dashboard's member form validates with the same schemas as the procedures. */
export const ZMemberRole = z.enum(["OWNER", "ADMIN", "VIEWER"]);
/** At most 254 characters, as for players (RFC 5321's path limit): a longer one is refused before it reaches invites or the audit log. */
export const ZMemberEmail = z.string().trim().toLowerCase().max(254, "At most 254 characters.").pipe(z.email("Enter an e-mail address."));

export const ZAddMember = z.strictObject({ email: ZMemberEmail, role: ZMemberRole });

/** An operator's name as colleagues read it in member lists and the audit log: no control or bidi characters. */
export const ZOperatorName = zLabel(100);
