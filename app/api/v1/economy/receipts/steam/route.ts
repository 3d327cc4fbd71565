import { actorOf, defineRoute, methods } from "@/server/http/define-route";
import { steamOrderEndpoint } from "@/server/http/endpoints/economy";
import { startSteamOrder } from "@/server/services/store/receipts";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(steamOrderEndpoint, ({ caller, player, body }) =>
    startSteamOrder({
      actor: actorOf(caller, player),
      productId: body.productId,
      steamId: body.steamId,
      language: body.language,
      ip: caller.ip,
    }),
  ),
});
