import { defineRoute, methods } from "@/server/http/define-route";
import { confirmPasswordResetEndpoint } from "@/server/http/endpoints/auth";
import { confirmPasswordReset } from "@/server/services/auth/account-email";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(confirmPasswordResetEndpoint, ({ caller, body }) =>
    confirmPasswordReset({ projectId: caller.projectId, ip: caller.ip, ...body }),
  ),
});
