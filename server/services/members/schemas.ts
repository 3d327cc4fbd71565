import { z } from "zod";

/** Client-safe (zod only): the dashboard's member form validates with the same schemas as the procedures. */
export const ZMemberRole = z.enum(["OWNER", "ADMIN", "VIEWER"]);
export const ZMemberEmail = z.string().trim().toLowerCase().pipe(z.email("Enter an e-mail address."));

export const ZAddMember = z.strictObject({ email: ZMemberEmail, role: ZMemberRole });
