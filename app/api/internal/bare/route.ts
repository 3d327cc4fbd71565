import { env } from "@/server/env";
import { notFoundRoute } from "@/server/http/define-route";

/**
 * The benchmark's baseline: a route handler that does no work, so `npm run bench` can state
 * every scenario as a share of what Next itself can serve on this machine. Off (the JSON 404)
 * unless BENCH_BARE_ROUTE=1, which only the bench (and the cluster test) sets. It names the
 * process that served it, so a test can tell the launcher's workers apart.
 */
type NextContext = Parameters<typeof notFoundRoute>[1];

export function GET(req: Request, ctx: NextContext): Response | Promise<Response> {
  if (!env().BENCH_BARE_ROUTE) return notFoundRoute(req, ctx);
  return Response.json({ ok: true, pid: process.pid });
}
