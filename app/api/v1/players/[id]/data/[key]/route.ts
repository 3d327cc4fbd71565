import { actorOf, defineRoute, methods, playerRef } from "@/server/http/define-route";
import { deletePlayerDataEndpoint, getPlayerDataEndpoint, putPlayerDataEndpoint } from "@/server/http/endpoints/player-data";
import { etag, preconditionFrom } from "@/server/http/preconditions";
import { noContent, Reply } from "@/server/http/respond";
import { deletePlayerData, getPlayerData, putPlayerData } from "@/server/services/player-data";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  GET: defineRoute(getPlayerDataEndpoint, async ({ caller, player, params }) => {
    const record = await getPlayerData({ actor: actorOf(caller, player), playerId: playerRef(params.id, player), key: params.key });
    return new Reply(200, record, { ETag: etag(record.version) });
  }),
  PUT: defineRoute(putPlayerDataEndpoint, async ({ req, caller, player, params, body }) => {
    const precondition = preconditionFrom(req);
    const { record, created } = await putPlayerData({
      actor: actorOf(caller, player),
      playerId: playerRef(params.id, player),
      key: params.key,
      ...body,
      precondition,
    });
    return new Reply(created ? 201 : 200, record, { ETag: etag(record.version) });
  }),
  DELETE: defineRoute(deletePlayerDataEndpoint, async ({ req, caller, player, params }) => {
    await deletePlayerData({
      actor: actorOf(caller, player),
      playerId: playerRef(params.id, player),
      key: params.key,
      precondition: preconditionFrom(req),
    });
    return noContent();
  }),
});
