import { buildOpenApiDocument } from "@/server/openapi/document";

let cached: string | undefined;

export async function GET(): Promise<Response> {
  cached ??= JSON.stringify(buildOpenApiDocument());
  return new Response(cached, {
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Access-Control-Allow-Origin": "*",
      "Cache-Control": "public, max-age=300",
    },
  });
}
