import { defineRoute, methods } from "@/server/http/define-route";
import { registerWithEmail } from "@/server/services/auth/email";
import { ZRegisterBody } from "@/server/services/auth/schemas";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute({ auth: "optional-player", credential: true, body: ZRegisterBody }, ({ caller, player, body }) =>
    registerWithEmail({ projectId: caller.projectId, playerId: player?.playerId ?? null, ip: caller.ip, ...body }),
  ),
});
