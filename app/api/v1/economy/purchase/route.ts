import { actorOf, defineRoute, methods } from "@/server/http/define-route";
import { purchaseEndpoint } from "@/server/http/endpoints/economy";
import { purchase } from "@/server/services/economy/wallet";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(purchaseEndpoint, ({ req, caller, player, body }) =>
    purchase({
      actor: actorOf(caller, player),
      purchaseId: body.purchaseId,
      quantity: body.quantity,
      context: { requestId: caller.requestId, idempotencyKey: req.headers.get("idempotency-key") ?? undefined },
    }),
  ),
});
