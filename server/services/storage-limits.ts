import type pg from "pg";
import { AppError } from "../errors";

/** Shared by player data and cloud saves: what one JSON value costs, and the guards around it. */
export function serialise(value: unknown, limitBytes: number): { text: string; bytes: number } {
  const text = JSON.stringify(value);
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > limitBytes)
    throw new AppError("PAYLOAD_TOO_LARGE", { message: `The value is over ${limitBytes} bytes serialised.`, details: { limitBytes } });
  return { text, bytes };
}

/** `message`: says which limit and why (the default is the error table's). */
export function limitExceeded(limit: string, max: number, current: number, message?: string): AppError {
  return new AppError("LIMIT_EXCEEDED", { message, details: { limit, max, current } });
}

/**
 * Locks the player's row for the rest of the transaction: every write to one player's data or
 * saves runs one at a time, so limits hold under concurrency and batches cannot deadlock.
 */
export async function lockPlayer(client: pg.PoolClient, projectId: string, playerId: string): Promise<void> {
  const { rowCount } = await client.query("SELECT 1 FROM players WHERE id = $1 AND project_id = $2 FOR UPDATE", [playerId, projectId]);
  if (rowCount === 0) throw new AppError("PLAYER_NOT_FOUND");
}

/** The conditions of a write: `If-Match: "<version>"`, `If-None-Match: *`. */
export type Precondition = { ifMatch?: number; ifNoneMatch?: true };

export type VersionConflict = { key: string; expectedVersion: number | null; currentVersion: number | null };

export function versionConflict(conflicts: VersionConflict[], extra: Record<string, unknown> = {}): AppError {
  return new AppError("VERSION_CONFLICT", { details: { conflicts, ...extra } });
}

/**
 * The API error a storage function's SQLSTATE stands for (put_player_data, put_player_save; their
 * DETAIL is JSON): GB404 the player is gone, GB412 a precondition failed (`onConflict` builds
 * the 409 from the detail), GB422 a limit, and `own` the function's other codes. Any other error
 * is returned as it is.
 */
export function storageError(error: unknown, onConflict: (detail: string) => AppError, own: Record<string, () => AppError> = {}): unknown {
  const { code, detail = "{}" } = error as { code?: string; detail?: string };
  if (code === undefined) return error;
  if (own[code]) return own[code]();
  if (code === "GB404") return new AppError("PLAYER_NOT_FOUND");
  if (code === "GB412") return onConflict(detail);
  if (code !== "GB422") return error;
  const d = JSON.parse(detail) as { limit: string; max: number; current: number };
  return limitExceeded(d.limit, d.max, d.current);
}

/** If-Match / If-None-Match against the stored version (null: absent). */
export function checkPrecondition(key: string, current: number | null, p: Precondition): VersionConflict | null {
  if (p.ifNoneMatch && current !== null) return { key, expectedVersion: null, currentVersion: current };
  if (p.ifMatch !== undefined && current !== p.ifMatch) return { key, expectedVersion: p.ifMatch, currentVersion: current };
  return null;
}
