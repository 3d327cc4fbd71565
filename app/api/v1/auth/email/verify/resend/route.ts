import { actorOf, defineRoute, methods } from "@/server/http/define-route";
import { resendVerificationEndpoint } from "@/server/http/endpoints/auth";
import { accepted } from "@/server/http/respond";
import { resendVerification } from "@/server/services/auth/account-email";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(resendVerificationEndpoint, async ({ caller, player }) => {
    await resendVerification({ actor: actorOf(caller, player), ip: caller.ip });
    return accepted();
  }),
});
