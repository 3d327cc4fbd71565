import { defineRoute, methods } from "@/server/http/define-route";
import { getPlayerEntryEndpoint } from "@/server/http/endpoints/leaderboards";
import { getPlayerEntry } from "@/server/services/leaderboards/entries";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  GET: defineRoute(getPlayerEntryEndpoint, ({ caller, player, params, query }) =>
    getPlayerEntry({ projectId: caller.projectId, leaderboardId: params.id, playerId: player.playerId, ...query }),
  ),
});
