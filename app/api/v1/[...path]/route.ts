import { notFoundRoute } from "@/server/http/define-route";

export { notFoundRoute as GET, notFoundRoute as POST, notFoundRoute as PUT, notFoundRoute as PATCH, notFoundRoute as DELETE };
