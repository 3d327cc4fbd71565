import { checkHealth } from "@/server/health";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const health = await checkHealth();
  return Response.json(health, {
    status: health.status === "down" ? 503 : 200,
    headers: { "Cache-Control": "no-store", ...(health.status === "down" ? { "Retry-After": "5" } : {}) },
  });
}
