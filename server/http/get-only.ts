import { AppError } from "../errors";
import { requestIdFrom } from "./headers";
import { errorResponse } from "./respond";

type Handler = (req: Request) => Response | Promise<Response>;

/**
 * Exports for a route outside /api/v1 that only reads (health probes, the config schema): the
 * GET handler, and a JSON 405 with Allow for every other method — Next's own 405 has no body.
 */
export function getOnly(get: Handler): Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS", Handler> {
  const notAllowed: Handler = (req) =>
    errorResponse(new AppError("METHOD_NOT_ALLOWED", { details: { allow: ["GET", "OPTIONS"] } }), {
      "X-Request-Id": requestIdFrom(req),
      Allow: "GET, OPTIONS",
    });
  const options: Handler = (req) =>
    new Response(null, { status: 204, headers: { "X-Request-Id": requestIdFrom(req), Allow: "GET, OPTIONS" } });
  return { GET: get, POST: notAllowed, PUT: notAllowed, PATCH: notAllowed, DELETE: notAllowed, OPTIONS: options };
}
