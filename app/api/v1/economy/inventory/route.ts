import { actorOf, defineRoute, methods } from "@/server/http/define-route";
import { inventoryEndpoint } from "@/server/http/endpoints/economy";
import { getInventory } from "@/server/services/economy/wallet";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  GET: defineRoute(inventoryEndpoint, ({ caller, player }) => getInventory({ actor: actorOf(caller, player) })),
});
