import { defineRoute, methods } from "@/server/http/define-route";
import { signInWithIdpEndpoint } from "@/server/http/endpoints/auth";
import { clientInfo } from "@/server/identity/client-info";
import { signInWithIdp } from "@/server/services/auth/idp";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(signInWithIdpEndpoint, ({ req, caller, player, body }) =>
    signInWithIdp({ projectId: caller.projectId, playerId: player?.playerId ?? null, ...body, client: clientInfo(req.headers) }),
  ),
});
