import { defineRoute, methods } from "@/server/http/define-route";
import { registerWithEmailEndpoint } from "@/server/http/endpoints/auth";
import { registerWithEmail } from "@/server/services/auth/email";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(registerWithEmailEndpoint, ({ caller, player, body }) =>
    registerWithEmail({ projectId: caller.projectId, playerId: player?.playerId ?? null, ip: caller.ip, ...body }),
  ),
});
