import { defineRoute, methods } from "@/server/http/define-route";
import { refreshSessionEndpoint } from "@/server/http/endpoints/auth";
import { refreshSession } from "@/server/services/auth/refresh";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(refreshSessionEndpoint, ({ caller, body }) =>
    refreshSession({ projectId: caller.projectId, refreshToken: body.refreshToken }),
  ),
});
