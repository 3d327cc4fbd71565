import { actorOf, defineRoute, methods } from "@/server/http/define-route";
import { verifyEmailEndpoint } from "@/server/http/endpoints/auth";
import { verifyEmail } from "@/server/services/auth/account-email";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(verifyEmailEndpoint, ({ caller, player, body }) => verifyEmail({ actor: actorOf(caller, player), code: body.code })),
});
