import { actorOf, defineRoute, methods, playerRef } from "@/server/http/define-route";
import { listPlayerData, patchPlayerData } from "@/server/services/player-data";
import { ZDataParams, ZPatchDataBody } from "@/server/services/player-data/schemas";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  GET: defineRoute({ auth: "player", params: ZDataParams }, ({ caller, player, params }) =>
    listPlayerData({ actor: actorOf(caller, player), playerId: playerRef(params.id, player) }),
  ),
  PATCH: defineRoute({ auth: "player", params: ZDataParams, body: ZPatchDataBody }, ({ caller, player, params, body }) =>
    patchPlayerData({ actor: actorOf(caller, player), playerId: playerRef(params.id, player), body }),
  ),
});
