import { getOnly } from "@/server/http/get-only";
import { checkLiveness } from "@/server/probes";

export const dynamic = "force-dynamic";

/** Liveness for a load balancer or Kubernetes: 200 while the process answers (docs/operating/observability.md). */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = getOnly(() =>
  Response.json(checkLiveness(), { headers: { "Cache-Control": "no-store" } }),
);
