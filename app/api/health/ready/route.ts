import { getOnly } from "@/server/http/get-only";
import { checkReadiness } from "@/server/probes";

export const dynamic = "force-dynamic";

/** Readiness: 503 while draining or while the database is unreachable (docs/operating/observability.md). */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = getOnly(async () => {
  const readiness = await checkReadiness();
  const ready = readiness.status === "ready";
  return Response.json(readiness, {
    status: ready ? 200 : 503,
    headers: { "Cache-Control": "no-store", ...(ready ? {} : { "Retry-After": "5" }) },
  });
});
