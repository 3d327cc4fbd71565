import { defineRoute, methods } from "@/server/http/define-route";
import { noContent } from "@/server/http/respond";
import { logout } from "@/server/services/auth/logout";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute({ auth: "player" }, async ({ caller, player }) => {
    await logout({ projectId: caller.projectId, playerId: player.playerId, sessionId: player.sessionId });
    return noContent();
  }),
});
