import { actorOf, defineRoute, methods } from "@/server/http/define-route";
import { getConfigEndpoint } from "@/server/http/endpoints/config";
import { JsonText, Reply } from "@/server/http/respond";
import { notModified, playerConfig } from "@/server/services/remote-config/player-config";

const CACHE = "private, no-cache";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({
  GET: defineRoute(getConfigEndpoint, async ({ req, caller, player }) => {
    const { text, etag } = await playerConfig({ actor: actorOf(caller, player) });
    const headers = { ETag: etag, "Cache-Control": CACHE };
    return notModified(req.headers.get("if-none-match"), etag)
      ? new Reply(304, null, headers)
      : new Reply(200, new JsonText(text), headers);
  }),
});
