import { defineRoute, methods } from "@/server/http/define-route";
import { refreshSession } from "@/server/services/auth/refresh";
import { ZRefreshBody } from "@/server/services/auth/schemas";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute({ auth: "key", body: ZRefreshBody }, ({ caller, body }) =>
    refreshSession({ projectId: caller.projectId, refreshToken: body.refreshToken }),
  ),
});
