import { z } from "zod";
import { ZOwnProfile, ZPatchProfileBody, ZPlayerParams, ZPublicProfile } from "../../services/players/schemas";
import { endpoint } from "../endpoint";

const tags = ["players"];

export const getProfileEndpoint = endpoint({
  method: "GET",
  path: "/players/{id}",
  auth: "player",
  params: ZPlayerParams,
  doc: {
    operationId: "getPlayerProfile",
    tags,
    summary: "A player's profile: the caller's own (`me`) in full, another player's as others see it",
    description: "Another project's player, or an unknown id, is 404 PLAYER_NOT_FOUND.",
    ok: { status: 200, description: "The profile.", schema: z.union([ZOwnProfile, ZPublicProfile]) },
  },
});

export const updateProfileEndpoint = endpoint({
  method: "PATCH",
  path: "/players/{id}",
  auth: "player",
  params: ZPlayerParams,
  body: ZPatchProfileBody,
  doc: {
    operationId: "updatePlayerProfile",
    tags,
    summary: "Set or clear the caller's display name",
    description: "Only the caller's own profile (`me` or their id); another player's is 403 FORBIDDEN.",
    ok: { status: 200, description: "The caller's profile after the change.", schema: ZOwnProfile },
  },
});

export const playerEndpoints = [getProfileEndpoint, updateProfileEndpoint];
