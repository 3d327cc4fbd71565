import { defineRoute, methods } from "@/server/http/define-route";
import { signInAnonymouslyEndpoint } from "@/server/http/endpoints/auth";
import { clientInfo } from "@/server/identity/client-info";
import { signInAnonymously } from "@/server/services/auth/anonymous";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute(signInAnonymouslyEndpoint, ({ req, caller, body }) =>
    signInAnonymously({ projectId: caller.projectId, deviceSecret: body?.deviceSecret, client: clientInfo(req.headers) }),
  ),
});
