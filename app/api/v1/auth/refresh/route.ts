import { defineRoute, methods } from "@/server/http/define-route";
import { refreshSessionEndpoint } from "@/server/http/endpoints/auth";
import { clientInfo } from "@/server/identity/client-info";
import { refreshSession } from "@/server/services/auth/refresh";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(refreshSessionEndpoint, ({ req, caller, body }) =>
    refreshSession({ projectId: caller.projectId, refreshToken: body.refreshToken, client: clientInfo(req.headers) }),
  ),
});
