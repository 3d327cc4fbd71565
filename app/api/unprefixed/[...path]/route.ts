import { unprefixedRoute } from "@/server/http/define-route";

export { unprefixedRoute as GET, unprefixedRoute as POST, unprefixedRoute as PUT, unprefixedRoute as PATCH, unprefixedRoute as DELETE };
