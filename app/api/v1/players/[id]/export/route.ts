import { actorOf, defineRoute, methods, playerRef } from "@/server/http/define-route";
import { exportAccountEndpoint } from "@/server/http/endpoints/players";
import { exportOwnData } from "@/server/services/players/lifecycle";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  GET: defineRoute(exportAccountEndpoint, ({ caller, player, params }) =>
    exportOwnData({ actor: actorOf(caller, player), playerId: playerRef(params.id, player) }),
  ),
});
