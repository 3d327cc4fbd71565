import { defineRoute, methods } from "@/server/http/define-route";
import { signInWithIdp } from "@/server/services/auth/idp";
import { ZIdpBody } from "@/server/services/auth/schemas";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute({ auth: "optional-player", body: ZIdpBody }, ({ caller, player, body }) =>
    signInWithIdp({ projectId: caller.projectId, playerId: player?.playerId ?? null, ...body }),
  ),
});
