import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { AppError } from "@/server/errors";
import { boundedRequest, MAX_BODY_BYTES } from "@/server/http/body";
import { requestIdFrom } from "@/server/http/headers";
import { operatorContext } from "@/server/http/operator-context";
import { errorResponse } from "@/server/http/respond";
import type { OperatorContext } from "@/server/services/command";
import { appRouter } from "@/server/trpc/router";

/**
 * The dashboard's tRPC endpoint. The caller (session cookie or `Authorization: Bearer gbo_…`) and
 * the cross-site rule are `operatorContext`'s, as on every operator door.
 * The caller is resolved first (headers only), then the body is
 * read under a cap while streaming, before tRPC parses it: 16 KiB for a caller who is not signed in
 * (the few public procedures take a token or a password), 2 MiB signed in (an operator's edit of a
 * player's 1 MiB data value fits), 16 MiB for a config import and its dry run (a project's whole
 * definition). A batch holds at most MAX_BATCH_CALLS calls.
 */
const ANONYMOUS_BODY_LIMIT_BYTES = 16 * 1024;
const TRPC_BODY_LIMIT_BYTES = MAX_BODY_BYTES;
const CONFIG_IMPORT_BODY_LIMIT_BYTES = 16 * 1024 * 1024;
const MAX_BATCH_CALLS = 20;
const LARGE_BODY_PROCEDURES = new Set(["config.import", "config.dryRun"]);

function bodyLimit(procedures: string[], signedIn: boolean): number {
  if (!signedIn) return ANONYMOUS_BODY_LIMIT_BYTES;
  return procedures.length === 1 && LARGE_BODY_PROCEDURES.has(procedures[0] ?? "") ? CONFIG_IMPORT_BODY_LIMIT_BYTES : TRPC_BODY_LIMIT_BYTES;
}

async function handler(incoming: Request): Promise<Response> {
  const requestId = requestIdFrom(incoming);
  const procedures = new URL(incoming.url).pathname.slice("/api/trpc/".length).split(",");
  if (procedures.length > MAX_BATCH_CALLS) {
    const refusal = new AppError("VALIDATION_ERROR", {
      message: `A batch may hold at most ${MAX_BATCH_CALLS} calls; this one holds ${procedures.length}.`,
      details: { maxBatchCalls: MAX_BATCH_CALLS, calls: procedures.length },
    });
    return errorResponse(refusal, { "X-Request-Id": requestId });
  }
  let ctx: OperatorContext;
  try {
    ctx = await operatorContext(incoming, requestId);
  } catch (error) {
    if (error instanceof AppError) return errorResponse(error, { "X-Request-Id": requestId });
    throw error;
  }
  const req = await boundedRequest(incoming, bodyLimit(procedures, ctx.operator !== null));
  if (req instanceof Response) return req;
  const response = await fetchRequestHandler({ endpoint: "/api/trpc", req, router: appRouter, createContext: async () => ctx });
  response.headers.set("X-Request-Id", requestId);
  return response;
}

export { handler as GET, handler as POST };
