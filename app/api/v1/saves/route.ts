import { actorOf, defineRoute, methods } from "@/server/http/define-route";
import { listSavesEndpoint } from "@/server/http/endpoints/saves";
import { listSaves } from "@/server/services/saves";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  GET: defineRoute(listSavesEndpoint, ({ caller, player }) => listSaves({ owner: actorOf(caller, player) })),
});
