import { actorOf, defineRoute, methods } from "@/server/http/define-route";
import { submitScoreEndpoint } from "@/server/http/endpoints/leaderboards";
import { submitScore } from "@/server/services/leaderboards/entries";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(submitScoreEndpoint, ({ caller, player, params, body }) =>
    submitScore({ actor: actorOf(caller, player), leaderboardId: params.id, ...body }),
  ),
});
