import type pg from "pg";
import { isTrusted, type OperatorActor, type PlayerActor } from "../../actor";
import { pool, transaction } from "../../db";
import { AppError } from "../../errors";
import { countEvent, countWrittenBytes } from "../../metrics";
import {
  checkPrecondition,
  limitExceeded,
  type Precondition,
  serialise,
  storageError,
  type VersionConflict,
  versionConflict,
} from "../storage-limits";
import { type DataRecord, LIMITS, type PatchDataBody, type Visibility } from "./schemas";

/**
 * Per-player key/value data. Owners read everything; other players read only public keys, and
 * a key they may not read does not exist for them (404, never 403). Owners write private and
 * public keys; protected keys only a server key acting as the owner writes.
 */

type Row = { key: string; value: unknown; version: number; visibility: string; size_bytes: number; created_at: Date; updated_at: Date };
const COLUMNS = "key, value, version, visibility, size_bytes, created_at, updated_at";

const toVisibility = (v: string) => v.toLowerCase() as Visibility;
const toDb = (v: Visibility) => v.toUpperCase();

function toRecord(r: Row): DataRecord {
  return {
    key: r.key,
    value: r.value as DataRecord["value"],
    version: r.version,
    visibility: toVisibility(r.visibility),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/** The edge has resolved `me`; the target is the caller's own data when the ids match. */
/**
 * Who reads or writes player data: the player (their own; others' public keys), a studio's
 * server key acting for a player (as that player, trusted), or an operator from the dashboard
 * (every player's keys, private ones too, trusted; the player must exist).
 */
export type DataActor = PlayerActor | OperatorActor;

/** `own`: the actor sees and writes every key of this player (the player themself, or an operator). */
function targetOf(actor: DataActor, playerId: string): { playerId: string; own: boolean } {
  return { playerId, own: actor.kind === "operator" || playerId === actor.playerId };
}

async function assertPlayerExists(projectId: string, playerId: string): Promise<void> {
  const { rowCount } = await pool().query({
    name: "player-exists",
    text: "SELECT 1 FROM players WHERE id = $1 AND project_id = $2",
    values: [playerId, projectId],
  });
  if (rowCount === 0) throw new AppError("PLAYER_NOT_FOUND");
}

export async function listPlayerData(o: { actor: DataActor; playerId: string }): Promise<DataRecord[]> {
  const target = targetOf(o.actor, o.playerId);
  if (!target.own || o.actor.kind === "operator") await assertPlayerExists(o.actor.projectId, target.playerId);
  const { rows } = await pool().query<Row>(
    `SELECT ${COLUMNS} FROM player_data WHERE player_id = $1 AND project_id = $2 ${target.own ? "" : "AND visibility = 'PUBLIC'"} ORDER BY key`,
    [target.playerId, o.actor.projectId],
  );
  return rows.map(toRecord);
}

export async function getPlayerData(o: { actor: DataActor; playerId: string; key: string }): Promise<DataRecord> {
  const target = targetOf(o.actor, o.playerId);
  const { rows } = await pool().query<Row>({
    name: "player-data-get",
    text: `SELECT ${COLUMNS} FROM player_data WHERE player_id = $1 AND project_id = $2 AND key = $3`,
    values: [target.playerId, o.actor.projectId, o.key],
  });
  const row = rows[0];
  if (!row || (!target.own && row.visibility !== "PUBLIC")) throw new AppError("KEY_NOT_FOUND");
  return toRecord(row);
}

function assertOwner(target: { own: boolean }): void {
  if (!target.own) throw new AppError("FORBIDDEN", { message: "Players write only their own data." });
}

function assertMayWrite(actor: DataActor, visibilities: Array<string | undefined>): void {
  if (isTrusted(actor)) return;
  if (visibilities.some((v) => v?.toUpperCase() === "PROTECTED")) {
    throw new AppError("CLIENT_WRITE_FORBIDDEN", { message: "Protected keys are written only with a server key." });
  }
}

type Usage = { keys: number; bytes: number };

/**
 * Takes the player's write lock and reads their usage counters (players.data_keys/data_bytes,
 * kept by every write below under this lock). The counters sit on the locked row, so they are
 * read fresh after the lock is granted; other rows must be read by a later statement (a row
 * joined into the locking statement would come from the snapshot taken before the wait).
 */
async function lockUsage(client: pg.PoolClient, actor: DataActor, playerId: string): Promise<Usage> {
  const { rows } = await client.query<{ data_keys: number; data_bytes: string }>(
    "SELECT data_keys, data_bytes FROM players WHERE id = $1 AND project_id = $2 FOR UPDATE",
    [playerId, actor.projectId],
  );
  const found = rows[0];
  if (!found) throw new AppError("PLAYER_NOT_FOUND");
  return { keys: found.data_keys, bytes: Number(found.data_bytes) };
}

/** Moves the counters by what a write changed (same transaction, same lock). */
function countUsage(client: pg.PoolClient, projectId: string, playerId: string, delta: Usage) {
  if (delta.keys === 0 && delta.bytes === 0) return Promise.resolve();
  return client.query("UPDATE players SET data_keys = data_keys + $3, data_bytes = data_bytes + $4 WHERE id = $1 AND project_id = $2", [
    playerId,
    projectId,
    delta.keys,
    delta.bytes,
  ]);
}

function assertWithinLimits(after: { keys: number; bytes: number }, before: { keys: number; bytes: number }): void {
  if (after.keys > LIMITS.keysPerPlayer && after.keys > before.keys)
    throw limitExceeded("keysPerPlayer", LIMITS.keysPerPlayer, before.keys);
  if (after.bytes > LIMITS.bytesPerPlayer && after.bytes > before.bytes)
    throw limitExceeded("bytesPerPlayer", LIMITS.bytesPerPlayer, before.bytes);
}

/** Takes the player's write lock, reads the usage and then the key; refuses clients on a protected key. */
async function lockAndRead(
  client: pg.PoolClient,
  actor: DataActor,
  playerId: string,
  key: string,
): Promise<{ usage: Usage; row: Row | undefined }> {
  const usage = await lockUsage(client, actor, playerId);
  const { rows } = await client.query<Row>(`SELECT ${COLUMNS} FROM player_data WHERE project_id = $1 AND player_id = $2 AND key = $3`, [
    actor.projectId,
    playerId,
    key,
  ]);
  assertMayWrite(actor, [rows[0]?.visibility]);
  return { usage, row: rows[0] };
}

/**
 * One round trip: put_player_data (prisma/migrations/*_put_player_data) locks the player's row,
 * reads the key, checks the client's right, the precondition and the limits, writes the key and
 * moves the usage counters — the steps and order of deletePlayerData's transaction, in one
 * statement that commits on its own (or joins the caller's transaction).
 */
export async function putPlayerData(o: {
  actor: DataActor;
  playerId: string;
  key: string;
  value: unknown;
  visibility?: Visibility;
  precondition: Precondition;
}): Promise<{ record: DataRecord; created: boolean }> {
  const target = targetOf(o.actor, o.playerId);
  assertOwner(target);
  assertMayWrite(o.actor, [o.visibility]);
  const { text, bytes } = serialise(o.value, LIMITS.valueBytes);
  const written = await pool()
    .query<Row & { created: boolean }>({
      name: "player-data-put",
      text: `SELECT ${COLUMNS}, created FROM put_player_data($1, $2, $3, $4::jsonb, $5, $6::"DataVisibility", $7, $8, $9, $10, $11)`,
      values: [
        target.playerId,
        o.actor.projectId,
        o.key,
        text,
        bytes,
        o.visibility ? toDb(o.visibility) : null,
        isTrusted(o.actor),
        o.precondition.ifMatch ?? null,
        o.precondition.ifNoneMatch === true,
        LIMITS.keysPerPlayer,
        LIMITS.bytesPerPlayer,
      ],
    })
    .catch((error: unknown) => {
      throw storageError(error, dataConflict, { GB403: protectedKey });
    });
  const row = written.rows[0];
  if (!row) throw new Error("put_player_data returned no row");
  countEvent("data_write");
  countWrittenBytes("data", bytes);
  return { record: toRecord(row), created: row.created };
}

/** put_player_data's 409 and its own GB403 (protected key), for storageError. */
const dataConflict = (detail: string) => versionConflict([JSON.parse(detail) as VersionConflict]);
const protectedKey = () => new AppError("CLIENT_WRITE_FORBIDDEN", { message: "Protected keys are written only with a server key." });

export async function deletePlayerData(o: { actor: DataActor; playerId: string; key: string; precondition: Precondition }): Promise<void> {
  const target = targetOf(o.actor, o.playerId);
  assertOwner(target);
  await transaction(async (client) => {
    const { row: existing } = await lockAndRead(client, o.actor, target.playerId, o.key);
    if (!existing) throw new AppError("KEY_NOT_FOUND");
    const conflict = checkPrecondition(o.key, existing.version, o.precondition);
    if (conflict) throw versionConflict([conflict]);
    await client.query(
      `WITH counted AS (UPDATE players SET data_keys = data_keys - 1, data_bytes = data_bytes - $4 WHERE id = $2 AND project_id = $1)
       DELETE FROM player_data WHERE project_id = $1 AND player_id = $2 AND key = $3`,
      [o.actor.projectId, target.playerId, o.key, existing.size_bytes],
    );
  });
}

/**
 * Sets and deletes up to 100 keys, all or nothing. Every version mismatch is reported at once
 * and nothing changes. Deleting an absent key is not an error.
 */
export async function patchPlayerData(o: { actor: DataActor; playerId: string; body: PatchDataBody }): Promise<DataRecord[]> {
  const target = targetOf(o.actor, o.playerId);
  assertOwner(target);
  const sets = Object.entries(o.body.set).sort(([a], [b]) => (a < b ? -1 : 1));
  assertMayWrite(
    o.actor,
    sets.map(([, s]) => s.visibility),
  );
  const serialised = sets.map(([key, s]) => ({ key, ...s, ...serialise(s.value, LIMITS.valueBytes) }));
  const keys = [...sets.map(([k]) => k), ...o.body.delete].sort();
  return transaction(async (client) => {
    const before = await lockUsage(client, o.actor, target.playerId);
    const { rows } = await client.query<Row>(
      `SELECT ${COLUMNS} FROM player_data WHERE project_id = $1 AND player_id = $2 AND key = ANY($3::text[]) ORDER BY key FOR UPDATE`,
      [o.actor.projectId, target.playerId, keys],
    );
    const existing = new Map(rows.map((r) => [r.key, r]));
    assertMayWrite(
      o.actor,
      rows.map((r) => r.visibility),
    );
    const conflicts: VersionConflict[] = [];
    for (const s of serialised) {
      if (s.version === undefined) continue;
      const current = existing.get(s.key)?.version ?? null;
      if ((s.version === 0 && current !== null) || (s.version > 0 && current !== s.version)) {
        conflicts.push({ key: s.key, expectedVersion: s.version === 0 ? null : s.version, currentVersion: current });
      }
    }
    if (conflicts.length) throw versionConflict(conflicts);
    let after = { ...before };
    for (const s of serialised) {
      const old = existing.get(s.key);
      after = { keys: after.keys + (old ? 0 : 1), bytes: after.bytes - (old?.size_bytes ?? 0) + s.bytes };
    }
    for (const key of o.body.delete) {
      const old = existing.get(key);
      if (old) after = { keys: after.keys - 1, bytes: after.bytes - old.size_bytes };
    }
    assertWithinLimits(after, before);
    await countUsage(client, o.actor.projectId, target.playerId, { keys: after.keys - before.keys, bytes: after.bytes - before.bytes });
    if (o.body.delete.length) {
      await client.query("DELETE FROM player_data WHERE project_id = $1 AND player_id = $2 AND key = ANY($3::text[])", [
        o.actor.projectId,
        target.playerId,
        o.body.delete,
      ]);
    }
    if (!serialised.length) return [];
    const written = await client.query<Row>(
      `INSERT INTO player_data (player_id, project_id, key, value, visibility, size_bytes, written_by_server)
       SELECT $1, $2, t.key, t.value::jsonb, t.visibility::"DataVisibility", t.size, $7
         FROM unnest($3::text[], $4::text[], $5::text[], $6::int[]) AS t(key, value, visibility, size)
       ON CONFLICT (player_id, key) DO UPDATE
         SET value = EXCLUDED.value, visibility = EXCLUDED.visibility, size_bytes = EXCLUDED.size_bytes,
             written_by_server = EXCLUDED.written_by_server, version = player_data.version + 1, updated_at = now()
       RETURNING ${COLUMNS}`,
      [
        target.playerId,
        o.actor.projectId,
        serialised.map((s) => s.key),
        serialised.map((s) => s.text),
        serialised.map((s) => (s.visibility ? toDb(s.visibility) : (existing.get(s.key)?.visibility ?? "PRIVATE"))),
        serialised.map((s) => s.bytes),
        isTrusted(o.actor),
      ],
    );
    return written.rows.map(toRecord).sort((a, b) => (a.key < b.key ? -1 : 1));
  });
}
