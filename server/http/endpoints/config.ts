import { z } from "zod";
import { ZConfigResponse } from "../../services/remote-config/schemas";
import { endpoint } from "../endpoint";

const tags = ["remote config"];

export const getConfigEndpoint = endpoint({
  method: "GET",
  path: "/config",
  auth: "player",
  doc: {
    operationId: "getConfig",
    tags,
    summary: "The signed-in player's remote config values and experiment assignments",
    description:
      "Every key's value for this player (defaults, overrides for the player's audiences and rollouts, running experiments' " +
      "variants). The first answer that shows a running experiment assigns the player to a variant for good. The `ETag` is a " +
      "hash of the answer: send it as `If-None-Match` to get `304` with no body while nothing changed. " +
      "`Cache-Control: private, no-cache`: cache it, revalidate every time.",
    ok: { status: 200, description: "The resolved config.", schema: ZConfigResponse, etag: "hash" },
    alsoOk: [{ status: 304, description: "Not modified: the If-None-Match ETag is still current (no body).", etag: "hash" }],
    headers: z.object({
      "if-none-match": z.string().optional().meta({ description: "The ETag of the config the client holds." }),
    }),
  },
});

export const configEndpoints = [getConfigEndpoint];
