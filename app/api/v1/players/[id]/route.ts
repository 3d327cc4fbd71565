import { actorOf, defineRoute, methods, playerRef } from "@/server/http/define-route";
import { deleteAccountEndpoint, getProfileEndpoint, updateProfileEndpoint } from "@/server/http/endpoints/players";
import { noContent } from "@/server/http/respond";
import { deleteOwnAccount } from "@/server/services/players/lifecycle";
import { getProfile, updateProfile } from "@/server/services/profiles";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  GET: defineRoute(getProfileEndpoint, ({ caller, player, params }) =>
    getProfile({ actor: actorOf(caller, player), playerId: playerRef(params.id, player) }),
  ),
  PATCH: defineRoute(updateProfileEndpoint, ({ caller, player, params, body }) =>
    updateProfile({ actor: actorOf(caller, player), playerId: playerRef(params.id, player), displayName: body.displayName }),
  ),
  DELETE: defineRoute(deleteAccountEndpoint, async ({ caller, player, params, body }) => {
    await deleteOwnAccount({
      actor: actorOf(caller, player),
      playerId: playerRef(params.id, player),
      password: body?.password,
      ip: caller.ip,
      requestId: caller.requestId,
    });
    return noContent();
  }),
});
