import { actorOf, defineRoute, methods, playerRef } from "@/server/http/define-route";
import { listPlayerDataEndpoint, patchPlayerDataEndpoint } from "@/server/http/endpoints/player-data";
import { listPlayerData, patchPlayerData } from "@/server/services/player-data";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  GET: defineRoute(listPlayerDataEndpoint, ({ caller, player, params }) =>
    listPlayerData({ actor: actorOf(caller, player), playerId: playerRef(params.id, player) }),
  ),
  PATCH: defineRoute(patchPlayerDataEndpoint, ({ caller, player, params, body }) =>
    patchPlayerData({ actor: actorOf(caller, player), playerId: playerRef(params.id, player), body }),
  ),
});
