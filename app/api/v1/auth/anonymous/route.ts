import { defineRoute, methods } from "@/server/http/define-route";
import { signInAnonymously } from "@/server/services/auth/anonymous";
import { ZAnonymousBody } from "@/server/services/auth/schemas";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  POST: defineRoute({ auth: "key", body: ZAnonymousBody }, ({ caller }) => signInAnonymously({ projectId: caller.projectId })),
});
