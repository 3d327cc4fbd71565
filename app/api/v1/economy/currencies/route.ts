import { actorOf, defineRoute, methods } from "@/server/http/define-route";
import { listBalancesEndpoint } from "@/server/http/endpoints/economy";
import { getBalances } from "@/server/services/economy/wallet";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  GET: defineRoute(listBalancesEndpoint, ({ caller, player }) => getBalances({ actor: actorOf(caller, player) })),
});
