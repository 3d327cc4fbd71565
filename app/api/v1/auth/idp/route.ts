import { defineRoute, methods } from "@/server/http/define-route";
import { signInWithIdpEndpoint } from "@/server/http/endpoints/auth";
import { signInWithIdp } from "@/server/services/auth/idp";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(signInWithIdpEndpoint, ({ caller, player, body }) =>
    signInWithIdp({ projectId: caller.projectId, playerId: player?.playerId ?? null, ...body }),
  ),
});
