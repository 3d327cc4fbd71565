import { defineRoute, methods } from "@/server/http/define-route";
import { registerWithEmailEndpoint } from "@/server/http/endpoints/auth";
import { clientInfo } from "@/server/identity/client-info";
import { registerWithEmail } from "@/server/services/auth/email";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(registerWithEmailEndpoint, ({ req, caller, player, body }) =>
    registerWithEmail({
      projectId: caller.projectId,
      playerId: player?.playerId ?? null,
      ip: caller.ip,
      ...body,
      client: clientInfo(req.headers),
    }),
  ),
});
