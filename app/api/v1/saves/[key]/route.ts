import { actorOf, defineRoute, methods } from "@/server/http/define-route";
import { deleteSaveEndpoint, getSaveEndpoint, putSaveEndpoint } from "@/server/http/endpoints/saves";
import { etag, preconditionFrom } from "@/server/http/preconditions";
import { noContent, Reply } from "@/server/http/respond";
import { deleteSave, getSave, putSave } from "@/server/services/saves";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  GET: defineRoute(getSaveEndpoint, async ({ caller, player, params }) => {
    const save = await getSave({ owner: actorOf(caller, player), key: params.key });
    return new Reply(200, save, { ETag: etag(save.version) });
  }),
  PUT: defineRoute(putSaveEndpoint, async ({ req, caller, player, params, body }) => {
    const precondition = preconditionFrom(req);
    const { metadata, created } = await putSave({ owner: actorOf(caller, player), key: params.key, ...body, precondition });
    return new Reply(created ? 201 : 200, metadata, { ETag: etag(metadata.version) });
  }),
  DELETE: defineRoute(deleteSaveEndpoint, async ({ req, caller, player, params }) => {
    await deleteSave({ owner: actorOf(caller, player), key: params.key, precondition: preconditionFrom(req) });
    return noContent();
  }),
});
