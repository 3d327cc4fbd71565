import { actorOf, defineRoute, methods, playerRef } from "@/server/http/define-route";
import { getProfileEndpoint, updateProfileEndpoint } from "@/server/http/endpoints/players";
import { getProfile, updateProfile } from "@/server/services/players/profile";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  GET: defineRoute(getProfileEndpoint, ({ caller, player, params }) =>
    getProfile({ actor: actorOf(caller, player), playerId: playerRef(params.id, player) }),
  ),
  PATCH: defineRoute(updateProfileEndpoint, ({ caller, player, params, body }) =>
    updateProfile({ actor: actorOf(caller, player), playerId: playerRef(params.id, player), displayName: body.displayName }),
  ),
});
