import { checkHealth } from "@/server/health";
import { getOnly } from "@/server/http/get-only";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = getOnly(async () => {
  const health = await checkHealth();
  return Response.json(health, {
    status: health.status === "down" ? 503 : 200,
    headers: { "Cache-Control": "no-store", ...(health.status === "down" ? { "Retry-After": "5" } : {}) },
  });
});
