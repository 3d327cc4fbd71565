import { z } from "zod";
import { toAppError } from "../error-normalisation";
import { AppError } from "../errors";
import { readJsonBody } from "./body";
import { requestIdFrom } from "./headers";
import { errorResponse, jsonResponse } from "./respond";

type Handler = (req: Request) => Response | Promise<Response>;
type Route = Record<"GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS", Handler>;

/**
 * Exports for a route outside /api/v1 that a third party POSTs JSON to (the stores' notification
 * URLs): the JSON body (bounded, 64 KiB) handed to `post`, its answer as JSON, errors in the one
 * error shape, and a JSON 405 with Allow for every other method.
 */
export function postOnly(
  post: (o: { req: Request; body: unknown; params: Record<string, string>; requestId: string }) => Promise<unknown>,
): Omit<Route, "POST"> & { POST: (req: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response> } {
  const notAllowed: Handler = (req) =>
    errorResponse(new AppError("METHOD_NOT_ALLOWED", { details: { allow: ["POST"] } }), {
      "X-Request-Id": requestIdFrom(req),
      Allow: "POST",
    });
  const POST = async (req: Request, context: { params: Promise<Record<string, string>> }) => {
    const requestId = requestIdFrom(req);
    try {
      const body = await readJsonBody(req, z.unknown(), 64 * 1024);
      const result = await post({ req, body, params: await context.params, requestId });
      return jsonResponse(200, result, { "X-Request-Id": requestId });
    } catch (error) {
      return errorResponse(toAppError(error, requestId), { "X-Request-Id": requestId });
    }
  };
  return { GET: notAllowed, POST, PUT: notAllowed, PATCH: notAllowed, DELETE: notAllowed, OPTIONS: notAllowed };
}
