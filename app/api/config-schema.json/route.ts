import { requestIdFrom } from "@/server/http/headers";
import { configJsonSchema } from "@/server/services/config/schemas";

/** The JSON Schema of configuration documents (`$schema` of every export); equal to server/services/config/config-schema.json. */
export const dynamic = "force-dynamic";

export function GET(req: Request): Response {
  return Response.json(configJsonSchema(), {
    headers: { "Cache-Control": "public, max-age=300", "X-Request-Id": requestIdFrom(req) },
  });
}
