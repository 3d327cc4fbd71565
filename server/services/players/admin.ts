import { forgetSessions } from "../../auth/session-cache";
import { pool, transaction } from "../../db";
import { AppError } from "../../errors";
import { indexRemove } from "../leaderboards/rank-index";

/**
 * Operators' view of players. Search: a player id (primary key), an e-mail (the unique
 * (project, email) index), a linked identity's subject, or the start of a display name.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type PlayerRow = {
  id: string;
  displayName: string | null;
  email: string | null;
  createdAt: string;
  lastLoginAt: string | null;
  banned: boolean;
};

type Raw = { id: string; display_name: string | null; email: string | null; created_at: Date; last_login_at: Date | null; banned: boolean };
const toRow = (r: Raw): PlayerRow => ({
  id: r.id,
  displayName: r.display_name,
  email: r.email,
  createdAt: r.created_at.toISOString(),
  lastLoginAt: r.last_login_at ? r.last_login_at.toISOString() : null,
  banned: r.banned,
});
const COLUMNS = `p.id, p.display_name, p.email, p.created_at, p.last_login_at,
  (p.banned_at IS NOT NULL AND (p.banned_until IS NULL OR p.banned_until > now())) AS banned`;

/**
 * A page of a project's players (newest first, oldest first or by display name): all of them, or those matching `query` — a player
 * id (primary key), an e-mail (unique index), a linked identity's subject ((project, subject)
 * index), or any part of a display name (case-insensitive; a pg_trgm GIN index serves queries of
 * three or more characters).
 */
export type PlayerSort = "newest" | "oldest" | "name";
const ORDER: Record<PlayerSort, string> = {
  newest: "created_at DESC, id DESC",
  oldest: "created_at ASC, id ASC",
  name: "display_name ASC NULLS LAST, id ASC",
};

export async function searchPlayers(o: {
  projectId: string;
  query: string;
  limit: number;
  offset?: number;
  sort?: PlayerSort;
}): Promise<{ players: PlayerRow[]; hasMore: boolean }> {
  const q = o.query.trim();
  const offset = o.offset ?? 0;
  const order = ORDER[o.sort ?? "newest"];
  const page = (rows: Raw[]) => ({ players: rows.slice(0, o.limit).map(toRow), hasMore: rows.length > o.limit });
  if (q === "") {
    const { rows } = await pool().query<Raw>(
      `SELECT * FROM (SELECT ${COLUMNS} FROM players p WHERE p.project_id = $1) found ORDER BY ${order} OFFSET $2 LIMIT $3`,
      [o.projectId, offset, o.limit + 1],
    );
    return page(rows);
  }
  if (UUID.test(q)) {
    const { rows } = await pool().query<Raw>(`SELECT ${COLUMNS} FROM players p WHERE p.project_id = $1 AND p.id = $2::uuid`, [
      o.projectId,
      q,
    ]);
    return page(offset === 0 ? rows : []);
  }
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const { rows } = await pool().query<Raw>(
    `SELECT * FROM (
       SELECT ${COLUMNS} FROM players p WHERE p.project_id = $1 AND p.email = lower($2)
       UNION
       SELECT ${COLUMNS} FROM players p JOIN identities i ON i.player_id = p.id WHERE i.project_id = $1 AND i.subject = $2
       UNION
       SELECT ${COLUMNS} FROM players p WHERE p.project_id = $1 AND p.display_name ILIKE $3
     ) found ORDER BY ${order} OFFSET $4 LIMIT $5`,
    [o.projectId, q, pattern, offset, o.limit + 1],
  );
  return page(rows);
}

export async function playerDetail(o: { projectId: string; playerId: string }) {
  if (!UUID.test(o.playerId)) throw new AppError("PLAYER_NOT_FOUND");
  const { rows } = await pool().query<Raw & { ban_reason: string | null; banned_until: Date | null }>(
    `SELECT ${COLUMNS}, p.ban_reason, p.banned_until FROM players p WHERE p.project_id = $1 AND p.id = $2::uuid`,
    [o.projectId, o.playerId],
  );
  const row = rows[0];
  if (!row) throw new AppError("PLAYER_NOT_FOUND");
  // One after another: inside a transaction() (deletePlayer reads this as its audit "before")
  // every query shares the transaction's one connection, which runs one query at a time.
  const identities = await pool().query<{ provider: string; subject: string }>(
    "SELECT provider, subject FROM identities WHERE player_id = $1 ORDER BY provider",
    [o.playerId],
  );
  const data = await pool().query<{ key: string; visibility: string; version: number; size_bytes: number; updated_at: Date }>(
    "SELECT key, visibility, version, size_bytes, updated_at FROM player_data WHERE player_id = $1 AND project_id = $2 ORDER BY key",
    [o.playerId, o.projectId],
  );
  const saves = await pool().query<{ key: string; version: number; size_bytes: number; updated_at: Date }>(
    "SELECT key, version, size_bytes, updated_at FROM player_saves WHERE player_id = $1 AND project_id = $2 ORDER BY updated_at DESC",
    [o.playerId, o.projectId],
  );
  const sessions = await pool().query<{ id: string; created_at: Date; expires_at: Date }>(
    "SELECT id, created_at, expires_at FROM sessions WHERE player_id = $1 AND project_id = $2 AND revoked_at IS NULL AND expires_at > now() ORDER BY created_at DESC LIMIT 50",
    [o.playerId, o.projectId],
  );
  return {
    ...toRow(row),
    banReason: row.banned ? row.ban_reason : null,
    bannedUntil: row.banned && row.banned_until ? row.banned_until.toISOString() : null,
    identities: identities.rows,
    data: data.rows.map((d) => ({
      key: d.key,
      visibility: d.visibility.toLowerCase(),
      version: d.version,
      sizeBytes: d.size_bytes,
      updatedAt: d.updated_at.toISOString(),
    })),
    saves: saves.rows.map((s) => ({ key: s.key, version: s.version, sizeBytes: s.size_bytes, updatedAt: s.updated_at.toISOString() })),
    sessions: sessions.rows.map((s) => ({ id: s.id, createdAt: s.created_at.toISOString(), expiresAt: s.expires_at.toISOString() })),
  };
}

/**
 * Deletes a player and everything they own (sessions, data, saves, identities, leaderboard
 * entries, wallets, inventory, ledger, idempotency records) in one transaction; leaderboard
 * period counts are corrected and the rank indexes told afterwards.
 */
export async function deletePlayer(o: { projectId: string; playerId: string }): Promise<{ entries: number }> {
  if (!UUID.test(o.playerId)) throw new AppError("PLAYER_NOT_FOUND");
  const entries = await transaction(async (client) => {
    const { rows } = await client.query<{ leaderboard_id: string; period: string }>(
      `WITH mine AS (SELECT leaderboard_id, period FROM leaderboard_entries WHERE project_id = $1 AND player_id = $2::uuid),
            counted AS (UPDATE leaderboard_periods p SET entries = p.entries - 1 FROM mine
                         WHERE p.project_id = $1 AND p.leaderboard_id = mine.leaderboard_id AND p.period = mine.period)
       SELECT leaderboard_id, period FROM mine`,
      [o.projectId, o.playerId],
    );
    const deleted = await client.query("DELETE FROM players WHERE project_id = $1 AND id = $2::uuid", [o.projectId, o.playerId]);
    if (deleted.rowCount === 0) throw new AppError("PLAYER_NOT_FOUND");
    return rows;
  });
  await forgetSessions({ playerId: o.playerId });
  await Promise.all(entries.map((e) => indexRemove(o.projectId, e.leaderboard_id, e.period, o.playerId)));
  return { entries: entries.length };
}
