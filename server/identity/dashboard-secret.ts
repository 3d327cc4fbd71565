import { createHmac } from "node:crypto";
import { env } from "../env";

/** next-auth's secret for operator sessions, derived from JWT_SECRET (also read by `proxy.ts`, so it imports nothing heavy). */
export function dashboardSecret(): string {
  return createHmac("sha256", env().JWT_SECRET ?? "")
    .update("operator-dashboard-session")
    .digest("base64url");
}
