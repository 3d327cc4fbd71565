import { readFile } from "node:fs/promises";
import path from "node:path";

const INIT = `window.ui = SwaggerUIBundle({ url: "/api/v1/openapi.json", dom_id: "#swagger-ui", deepLinking: true });`;
// A Map, not an object literal: `constructor`, `toString` or `__proto__` must be "not found".
const FILES = new Map([
  ["swagger-ui.css", "text/css; charset=utf-8"],
  ["swagger-ui-bundle.js", "text/javascript; charset=utf-8"],
]);
const cache = new Map<string, Buffer>();

export async function GET(_req: Request, { params }: { params: Promise<{ file: string }> }): Promise<Response> {
  const { file } = await params;
  if (file === "init.js") return new Response(INIT, { headers: { "Content-Type": "text/javascript; charset=utf-8" } });
  const type = FILES.get(file);
  if (!type) return Response.json({ error: { code: "NOT_FOUND", message: "Not found.", details: {} } }, { status: 404 });
  let body = cache.get(file);
  if (!body) {
    body = await readFile(path.join(process.cwd(), "node_modules", "swagger-ui-dist", file));
    cache.set(file, body);
  }
  return new Response(new Uint8Array(body), { headers: { "Content-Type": type, "Cache-Control": "public, max-age=86400" } });
}
