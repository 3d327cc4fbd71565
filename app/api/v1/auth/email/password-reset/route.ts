import { defineRoute, methods } from "@/server/http/define-route";
import { requestPasswordResetEndpoint } from "@/server/http/endpoints/auth";
import { accepted } from "@/server/http/respond";
import { requestPasswordReset } from "@/server/services/auth/account-email";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(requestPasswordResetEndpoint, async ({ caller, body }) => {
    await requestPasswordReset({ projectId: caller.projectId, ip: caller.ip, email: body.email });
    return accepted();
  }),
});
