import { z } from "zod";
import { ZDataKeyParams, ZDataParams, ZDataRecord, ZPatchDataBody, ZPutDataBody } from "../../services/player-data/schemas";
import { endpoint } from "../endpoint";
import { ZConditionalHeaders, ZIfMatchHeader } from "../preconditions";

const tags = ["player data"];
const WRITE_ERRORS = ["CLIENT_WRITE_FORBIDDEN", "VERSION_CONFLICT", "LIMIT_EXCEEDED"] as const;

export const listPlayerDataEndpoint = endpoint({
  method: "GET",
  path: "/players/{id}/data",
  auth: "player",
  params: ZDataParams,
  doc: {
    operationId: "listPlayerData",
    tags,
    summary: "List a player's data records, sorted by key",
    description: "The owner sees every key; another player of the project sees only `public` keys.",
    ok: { status: 200, description: "The records.", schema: z.array(ZDataRecord) },
  },
});

export const patchPlayerDataEndpoint = endpoint({
  method: "PATCH",
  path: "/players/{id}/data",
  auth: "player",
  params: ZDataParams,
  body: ZPatchDataBody,
  doc: {
    operationId: "patchPlayerData",
    tags,
    summary: "Set and delete up to 100 keys, all or nothing",
    description:
      "Owner only. `version` per set key is the expected current version (0: must not exist). Any mismatch answers 412 " +
      "listing every conflict and changes nothing. Deleting an absent key is not an error. Limits are checked for the whole batch.",
    ok: { status: 200, description: "The records written, sorted by key.", schema: z.array(ZDataRecord) },
    errors: [...WRITE_ERRORS],
  },
});

export const getPlayerDataEndpoint = endpoint({
  method: "GET",
  path: "/players/{id}/data/{key}",
  auth: "player",
  params: ZDataKeyParams,
  doc: {
    operationId: "getPlayerData",
    tags,
    summary: "Read one record",
    description: "A key the caller may not read answers 404 KEY_NOT_FOUND, like an absent one.",
    ok: { status: 200, description: "The record.", schema: ZDataRecord, etag: true },
    errors: ["KEY_NOT_FOUND"],
  },
});

export const putPlayerDataEndpoint = endpoint({
  method: "PUT",
  path: "/players/{id}/data/{key}",
  auth: "player",
  params: ZDataKeyParams,
  body: ZPutDataBody,
  doc: {
    operationId: "putPlayerData",
    tags,
    summary: "Create or replace one record",
    description:
      "Owner only (another player's data: 403 FORBIDDEN). `protected` keys are written only by a server key acting as the owner " +
      "(403 CLIENT_WRITE_FORBIDDEN). Value ≤ 1 MiB serialised (413); ≤ 2,000 keys and ≤ 5 MiB per player (422 LIMIT_EXCEEDED).",
    headers: ZConditionalHeaders,
    ok: { status: 200, description: "Updated.", schema: ZDataRecord, etag: true },
    alsoOk: [{ status: 201, description: "Created.", schema: ZDataRecord, etag: true }],
    errors: [...WRITE_ERRORS],
  },
});

export const deletePlayerDataEndpoint = endpoint({
  method: "DELETE",
  path: "/players/{id}/data/{key}",
  auth: "player",
  params: ZDataKeyParams,
  doc: {
    operationId: "deletePlayerData",
    tags,
    summary: "Delete one record",
    headers: ZIfMatchHeader,
    ok: { status: 204, description: "Deleted." },
    errors: ["KEY_NOT_FOUND", "CLIENT_WRITE_FORBIDDEN", "VERSION_CONFLICT"],
  },
});

export const playerDataEndpoints = [
  listPlayerDataEndpoint,
  patchPlayerDataEndpoint,
  getPlayerDataEndpoint,
  putPlayerDataEndpoint,
  deletePlayerDataEndpoint,
];
