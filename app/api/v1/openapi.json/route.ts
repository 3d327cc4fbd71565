import { env } from "@/server/env";
import { buildOpenApiDocument } from "@/server/openapi/document";

let cached: string | undefined;

/** The document with this deployment's absolute API URL (PUBLIC_URL, else the origin asked). */
export async function GET(req: Request): Promise<Response> {
  cached ??= JSON.stringify(buildOpenApiDocument(`${(env().PUBLIC_URL ?? new URL(req.url).origin).replace(/\/+$/, "")}/api/v1`));
  return new Response(cached, {
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Access-Control-Allow-Origin": "*",
      "Cache-Control": "public, max-age=300",
    },
  });
}
