import { getOnly } from "@/server/http/get-only";
import { checkHealth, mayObserve, OBSERVER_HEADER } from "@/server/probes";

export const dynamic = "force-dynamic";

/** The status for anyone (load balancers); the full report for local probes and METRICS_TOKEN holders. */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = getOnly(async (req) => {
  const health = await checkHealth();
  return Response.json(mayObserve(req.headers.get(OBSERVER_HEADER)) ? health : { status: health.status }, {
    status: health.status === "down" ? 503 : 200,
    headers: { "Cache-Control": "no-store", ...(health.status === "down" ? { "Retry-After": "5" } : {}) },
  });
});
