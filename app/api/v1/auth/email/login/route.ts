import { defineRoute, methods } from "@/server/http/define-route";
import { loginWithEmailEndpoint } from "@/server/http/endpoints/auth";
import { clientInfo } from "@/server/identity/client-info";
import { loginWithEmail } from "@/server/services/auth/email";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(loginWithEmailEndpoint, ({ req, caller, body }) =>
    loginWithEmail({ projectId: caller.projectId, ip: caller.ip, ...body, client: clientInfo(req.headers) }),
  ),
});
