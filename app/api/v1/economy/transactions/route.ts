import { defineRoute, methods } from "@/server/http/define-route";
import { transactionsEndpoint } from "@/server/http/endpoints/economy";
import { listTransactions } from "@/server/services/economy/wallet";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  GET: defineRoute(transactionsEndpoint, ({ caller, player, query }) =>
    listTransactions({ projectId: caller.projectId, playerId: player.playerId, ...query }),
  ),
});
