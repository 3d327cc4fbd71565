import { actorOf, defineRoute, methods } from "@/server/http/define-route";
import { listSaves } from "@/server/services/saves";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  GET: defineRoute({ auth: "player" }, ({ caller, player }) => listSaves({ owner: actorOf(caller, player) })),
});
