import { defineRoute, methods } from "@/server/http/define-route";
import { logoutEndpoint } from "@/server/http/endpoints/auth";
import { noContent } from "@/server/http/respond";
import { logout } from "@/server/services/auth/logout";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(logoutEndpoint, async ({ caller, player }) => {
    await logout({ projectId: caller.projectId, playerId: player.playerId, sessionId: player.sessionId });
    return noContent();
  }),
});
