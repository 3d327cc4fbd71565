import { actorOf, defineRoute, methods, playerRef } from "@/server/http/define-route";
import { etag, preconditionFrom } from "@/server/http/preconditions";
import { noContent, Reply } from "@/server/http/respond";
import { deletePlayerData, getPlayerData, putPlayerData } from "@/server/services/player-data";
import { ZDataKeyParams, ZPutDataBody } from "@/server/services/player-data/schemas";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  GET: defineRoute({ auth: "player", params: ZDataKeyParams }, async ({ caller, player, params }) => {
    const record = await getPlayerData({ actor: actorOf(caller, player), playerId: playerRef(params.id, player), key: params.key });
    return new Reply(200, record, { ETag: etag(record.version) });
  }),
  PUT: defineRoute({ auth: "player", params: ZDataKeyParams, body: ZPutDataBody }, async ({ req, caller, player, params, body }) => {
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
  DELETE: defineRoute({ auth: "player", params: ZDataKeyParams }, async ({ req, caller, player, params }) => {
    await deletePlayerData({
      actor: actorOf(caller, player),
      playerId: playerRef(params.id, player),
      key: params.key,
      precondition: preconditionFrom(req),
    });
    return noContent();
  }),
});
