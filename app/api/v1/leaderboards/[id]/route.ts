import { defineRoute, methods } from "@/server/http/define-route";
import { getLeaderboardEndpoint } from "@/server/http/endpoints/leaderboards";
import { getLeaderboardPage } from "@/server/services/leaderboards/entries";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  GET: defineRoute(getLeaderboardEndpoint, ({ caller, params, query }) =>
    getLeaderboardPage({ projectId: caller.projectId, leaderboardId: params.id, ...query }),
  ),
});
