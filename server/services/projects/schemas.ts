import { z } from "zod";
import { zLabel } from "../labels";

/** Client-safe (zod only): the dashboard's forms validate with the same schemas as the procedures. */
export const ZProjectName = zLabel(100);
export const ZApiKeyKind = z.enum(["CLIENT", "SERVER"]);

export const ZProjectNameInput = z.strictObject({ name: ZProjectName });
export const ZCreateApiKey = z.strictObject({ kind: ZApiKeyKind, name: ZProjectName });

/** Like a webhook secret's rotation: the old key keeps working for the overlap (0: it stops at once). */
export const DEFAULT_KEY_OVERLAP_HOURS = 24;
export const ZRotateApiKey = z.strictObject({
  overlapHours: z.number().int().min(0, "At least 0 hours.").max(720, "At most 720 hours (30 days).").default(DEFAULT_KEY_OVERLAP_HOURS),
});

/** The instance's PROJECT_CREATORS: who creates projects besides instance admins. */
export type ProjectCreators = "allowed" | "everyone" | "admins";
