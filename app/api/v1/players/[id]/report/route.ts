import { actorOf, defineRoute, methods, playerRef } from "@/server/http/define-route";
import { reportPlayerEndpoint } from "@/server/http/endpoints/reports";
import { Reply } from "@/server/http/respond";
import { reportPlayer } from "@/server/services/reports";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(reportPlayerEndpoint, async ({ caller, player, params, body }) => {
    const report = await reportPlayer({ actor: actorOf(caller, player), targetId: playerRef(params.id, player), ...body, ip: caller.ip });
    return new Reply(202, report);
  }),
});
