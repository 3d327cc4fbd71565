import { actorOf, defineRoute, methods } from "@/server/http/define-route";
import { listPlayerData, patchPlayerData } from "@/server/services/player-data";
import { ZDataParams, ZPatchDataBody } from "@/server/services/player-data/schemas";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  GET: defineRoute({ auth: "player", params: ZDataParams }, ({ caller, player, params }) =>
    listPlayerData({ actor: actorOf(caller, player), id: params.id }),
  ),
  PATCH: defineRoute({ auth: "player", params: ZDataParams, body: ZPatchDataBody }, ({ caller, player, params, body }) =>
    patchPlayerData({ actor: actorOf(caller, player), id: params.id, body }),
  ),
});
