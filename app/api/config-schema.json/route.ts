import { getOnly } from "@/server/http/get-only";
import { requestIdFrom } from "@/server/http/headers";
import { configJsonSchema } from "@/server/services/config/schemas";

/** The JSON Schema of configuration documents (`$schema` of every export); equal to server/services/config/config-schema.json. */
export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = getOnly((req) =>
  Response.json(configJsonSchema(), {
    headers: { "Cache-Control": "public, max-age=300", "X-Request-Id": requestIdFrom(req) },
  }),
);
