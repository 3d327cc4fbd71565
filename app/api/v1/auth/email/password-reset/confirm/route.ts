import { defineRoute, methods } from "@/server/http/define-route";
import { confirmPasswordResetEndpoint } from "@/server/http/endpoints/auth";
import { clientInfo } from "@/server/identity/client-info";
import { confirmPasswordReset } from "@/server/services/auth/account-email";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(confirmPasswordResetEndpoint, ({ req, caller, body }) =>
    confirmPasswordReset({ projectId: caller.projectId, ip: caller.ip, ...body, client: clientInfo(req.headers) }),
  ),
});
