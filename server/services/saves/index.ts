import { createHash } from "node:crypto";
import type pg from "pg";
import type { PlayerActor } from "../../actor";
import { pool, transaction } from "../../db";
import { AppError } from "../../errors";
import { countEvent, countWrittenBytes } from "../../metrics";
import {
  checkPrecondition,
  lockPlayer,
  type Precondition,
  serialise,
  storageError,
  type VersionConflict,
  versionConflict,
} from "../storage-limits";
import { SAVE_LIMITS, type Save, type SaveMetadata } from "./schemas";

/** Cloud saves: slots that belong to the calling player only. */
/** Saves belong to the calling player. */
export type SaveOwner = Pick<PlayerActor, "projectId" | "playerId">;

type Row = {
  key: string;
  version: number;
  size_bytes: number;
  sha256: string;
  meta: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
};
const META_COLUMNS = "key, version, size_bytes, sha256, meta, created_at, updated_at";

function toMetadata(r: Row): SaveMetadata {
  return {
    key: r.key,
    version: r.version,
    sizeBytes: r.size_bytes,
    sha256: r.sha256,
    meta: r.meta as SaveMetadata["meta"],
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export async function listSaves(o: { owner: SaveOwner }): Promise<SaveMetadata[]> {
  const { rows } = await pool().query<Row>(
    `SELECT ${META_COLUMNS} FROM player_saves WHERE player_id = $1 AND project_id = $2 ORDER BY updated_at DESC, key`,
    [o.owner.playerId, o.owner.projectId],
  );
  return rows.map(toMetadata);
}

export async function getSave(o: { owner: SaveOwner; key: string }): Promise<Save> {
  const { rows } = await pool().query<Row & { data: unknown }>(
    `SELECT ${META_COLUMNS}, data FROM player_saves WHERE player_id = $1 AND project_id = $2 AND key = $3`,
    [o.owner.playerId, o.owner.projectId, o.key],
  );
  const row = rows[0];
  if (!row) throw new AppError("SAVE_NOT_FOUND");
  return { ...toMetadata(row), data: row.data as Save["data"] };
}

async function currentMetadata(client: pg.PoolClient, owner: SaveOwner, key: string): Promise<Row | undefined> {
  const { rows } = await client.query<Row>(
    `SELECT ${META_COLUMNS} FROM player_saves WHERE project_id = $1 AND player_id = $2 AND key = $3`,
    [owner.projectId, owner.playerId, key],
  );
  return rows[0];
}

/**
 * One round trip: put_player_save (prisma/migrations/*_put_player_save) locks the player's row,
 * reads the slot, checks the precondition and the slot limit and writes — the steps and order of
 * deleteSave's transaction, in one statement. A 412 carries the server copy's metadata, so a game
 * can offer "keep cloud / keep local".
 */
export async function putSave(o: {
  owner: SaveOwner;
  key: string;
  data: unknown;
  meta?: Record<string, unknown>;
  precondition: Precondition;
}): Promise<{ metadata: SaveMetadata; created: boolean }> {
  const { text, bytes } = serialise(o.data, SAVE_LIMITS.dataBytes);
  const sha256 = createHash("sha256").update(text).digest("hex");
  const written = await pool()
    .query<Row & { created: boolean }>({
      name: "save-put",
      text: `SELECT ${META_COLUMNS}, created FROM put_player_save($1, $2, $3, $4::json, $5::jsonb, $6, $7, $8, $9, $10)`,
      values: [
        o.owner.playerId,
        o.owner.projectId,
        o.key,
        text,
        o.meta === undefined ? null : JSON.stringify(o.meta),
        bytes,
        sha256,
        o.precondition.ifMatch ?? null,
        o.precondition.ifNoneMatch === true,
        SAVE_LIMITS.savesPerPlayer,
      ],
    })
    .catch((error: unknown) => {
      throw storageError(error, saveConflict);
    });
  const row = written.rows[0];
  if (!row) throw new Error("put_player_save returned no row");
  countEvent("save_write");
  countWrittenBytes("save", bytes);
  return { metadata: toMetadata(row), created: row.created };
}

/** A 409 for the save PUT: the server copy's whole metadata beside the conflict ("keep cloud / keep local"). */
function saveConflict(detail: string): AppError {
  const d = JSON.parse(detail) as {
    conflict: VersionConflict;
    current: (Omit<Row, "created_at" | "updated_at"> & { created_at: string; updated_at: string }) | null;
  };
  const current = d.current
    ? toMetadata({ ...d.current, created_at: new Date(d.current.created_at), updated_at: new Date(d.current.updated_at) })
    : null;
  return versionConflict([d.conflict], { current });
}

export async function deleteSave(o: { owner: SaveOwner; key: string; precondition: Precondition }): Promise<void> {
  await transaction(async (client) => {
    await lockPlayer(client, o.owner.projectId, o.owner.playerId);
    const existing = await currentMetadata(client, o.owner, o.key);
    if (!existing) throw new AppError("SAVE_NOT_FOUND");
    const conflict = checkPrecondition(o.key, existing.version, o.precondition);
    if (conflict) throw versionConflict([conflict], { current: toMetadata(existing) });
    await client.query("DELETE FROM player_saves WHERE project_id = $1 AND player_id = $2 AND key = $3", [
      o.owner.projectId,
      o.owner.playerId,
      o.key,
    ]);
  });
}
