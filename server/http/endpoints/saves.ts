import { z } from "zod";
import { ZPutSaveBody, ZSave, ZSaveMetadata, ZSaveParams } from "../../services/saves/schemas";
import { endpoint } from "../endpoint";
import { ZConditionalHeaders, ZIfMatchHeader } from "../preconditions";

const tags = ["cloud saves"];

export const listSavesEndpoint = endpoint({
  method: "GET",
  path: "/saves",
  auth: "player",
  doc: {
    operationId: "listSaves",
    tags,
    summary: "The caller's saves (metadata only), newest first",
    ok: { status: 200, description: "Save metadata.", schema: z.array(ZSaveMetadata) },
  },
});

export const getSaveEndpoint = endpoint({
  method: "GET",
  path: "/saves/{key}",
  auth: "player",
  params: ZSaveParams,
  doc: {
    operationId: "getSave",
    tags,
    summary: "One save with its data",
    ok: { status: 200, description: "The save.", schema: ZSave, etag: true },
    errors: ["SAVE_NOT_FOUND"],
  },
});

export const putSaveEndpoint = endpoint({
  method: "PUT",
  path: "/saves/{key}",
  auth: "player",
  params: ZSaveParams,
  body: ZPutSaveBody,
  doc: {
    operationId: "putSave",
    tags,
    summary: "Create or replace a save",
    description:
      "`data` ≤ 1 MiB serialised (413), `meta` ≤ 2 KiB (400), ≤ 50 saves per player (422 LIMIT_EXCEEDED). " +
      "A 412 carries the server copy's metadata in `details.current` so the game can offer keep cloud / keep local. " +
      "`meta` omitted on update keeps the stored meta.",
    headers: ZConditionalHeaders,
    ok: { status: 200, description: "Updated.", schema: ZSaveMetadata, etag: true },
    alsoOk: [{ status: 201, description: "Created.", schema: ZSaveMetadata, etag: true }],
    errors: ["VERSION_CONFLICT", "LIMIT_EXCEEDED"],
  },
});

export const deleteSaveEndpoint = endpoint({
  method: "DELETE",
  path: "/saves/{key}",
  auth: "player",
  params: ZSaveParams,
  doc: {
    operationId: "deleteSave",
    tags,
    summary: "Delete a save",
    headers: ZIfMatchHeader,
    ok: { status: 204, description: "Deleted." },
    errors: ["SAVE_NOT_FOUND", "VERSION_CONFLICT"],
  },
});

export const saveEndpoints = [listSavesEndpoint, getSaveEndpoint, putSaveEndpoint, deleteSaveEndpoint];
