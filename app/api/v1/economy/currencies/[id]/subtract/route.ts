import { actorOf, defineRoute, methods } from "@/server/http/define-route";
import { subtractCurrencyEndpoint } from "@/server/http/endpoints/economy";
import { changeBalance } from "@/server/services/economy/wallet";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(subtractCurrencyEndpoint, ({ req, caller, player, params, body }) =>
    changeBalance({
      actor: actorOf(caller, player),
      currencyId: params.id,
      amount: body.amount,
      direction: "subtract",
      context: { requestId: caller.requestId, idempotencyKey: req.headers.get("idempotency-key") ?? undefined },
    }),
  ),
});
