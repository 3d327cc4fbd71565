import { z } from "zod";

/** Client-safe (zod only): the health view's inputs, shared by the procedures and the page. */
export const ZHealthRange = z.enum(["1h", "24h", "7d"]);
export type HealthRange = z.infer<typeof ZHealthRange>;

export const ZProjectHealthInput = z.strictObject({ projectId: z.string().uuid(), range: ZHealthRange.default("24h") });
export const ZInstanceHealthInput = z.strictObject({ range: ZHealthRange.default("24h") });
