import { actorOf, defineRoute, methods } from "@/server/http/define-route";
import { receiptEndpoint } from "@/server/http/endpoints/economy";
import { redeemReceipt } from "@/server/services/store/receipts";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(receiptEndpoint, ({ caller, player, body }) =>
    redeemReceipt({ actor: actorOf(caller, player), body, requestId: caller.requestId }),
  ),
});
