import { defineRoute, methods } from "@/server/http/define-route";
import { loginWithEmail } from "@/server/services/auth/email";
import { ZLoginBody } from "@/server/services/auth/schemas";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute({ auth: "key", credential: true, body: ZLoginBody }, ({ caller, body }) =>
    loginWithEmail({ projectId: caller.projectId, ip: caller.ip, ...body }),
  ),
});
