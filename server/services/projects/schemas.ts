import { z } from "zod";
import { zLabel } from "../labels";

/** Client-safe (zod only): the dashboard's forms validate with the same schemas as the procedures. */
export const ZProjectName = zLabel(100);
export const ZApiKeyKind = z.enum(["CLIENT", "SERVER"]);

export const ZProjectNameInput = z.strictObject({ name: ZProjectName });
export const ZCreateApiKey = z.strictObject({ kind: ZApiKeyKind, name: ZProjectName });

/** The instance's PROJECT_CREATORS: who creates projects besides instance admins. */
export type ProjectCreators = "allowed" | "everyone" | "admins";
