/**
 * Each plan's project budget (requests per minute). Client-safe (no imports): the dashboard names
 * the old and new limit when an instance admin changes a plan.
 */
export type PlanName = "FREE" | "PRO" | "ENTERPRISE";
export const PLAN_LIMITS: Record<PlanName, number> = { FREE: 100, PRO: 1_000, ENTERPRISE: 10_000 };
/** The highest custom limit an Enterprise project may be given. */
export const MAX_CUSTOM_RATE_LIMIT = 10_000_000;

export function projectLimit(plan: PlanName, customRateLimit: number | null): number {
  if (plan === "ENTERPRISE" && customRateLimit) return customRateLimit;
  return PLAN_LIMITS[plan];
}
