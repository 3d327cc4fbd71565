import { z } from "zod";

/** Client-safe (zod only): the dashboard's forms validate with the same schemas as the procedures. */
export const ZProjectName = z.string().trim().min(1, "Enter a name.").max(100, "At most 100 characters.");
export const ZApiKeyKind = z.enum(["CLIENT", "SERVER"]);

export const ZProjectNameInput = z.strictObject({ name: ZProjectName });
export const ZCreateApiKey = z.strictObject({ kind: ZApiKeyKind, name: ZProjectName });
