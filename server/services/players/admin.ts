import type pg from "pg";
import { afterTransaction, inTransaction, pool, transaction } from "../../db";
import { playerEmailFor } from "../../email-privacy";
import { AppError } from "../../errors";
import type { MemberRole } from "../../generated/prisma/enums";
import { forgetSessions } from "../../identity/session-cache";
import { roleRead, viewerRead } from "../command";
import { indexRemove } from "../leaderboards/rank-index";
import { getSave } from "../saves";
import { emitEvent } from "../webhooks/events";
import { PERSONAL_EVENT_FIELDS } from "../webhooks/payloads";
import { COLUMNS, type Raw, toRow } from "./search";

/** Operators' view of one player (the search is in ./search.ts). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function playerDetail(o: { projectId: string; playerId: string }) {
  if (!UUID.test(o.playerId)) throw new AppError("PLAYER_NOT_FOUND");
  const { rows } = await pool().query<Raw & { ban_reason: string | null; banned_until: Date | null; email_verified: boolean }>(
    `SELECT ${COLUMNS}, p.ban_reason, p.banned_until, p.email_verified_at IS NOT NULL AS email_verified
       FROM players p WHERE p.project_id = $1 AND p.id = $2::uuid`,
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
    emailVerified: row.email !== null && row.email_verified,
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

/** A player's page, checking its caller (`roleRead`, ../command.ts): the address as the role may see it. */
export const playerDetailAs = roleRead(async (o: { projectId: string; playerId: string; role: MemberRole }) => {
  const detail = await playerDetail(o);
  return { ...detail, email: playerEmailFor(o.role, detail.email) };
});
export const playerSaveAs = viewerRead((o: { projectId: string; playerId: string; key: string }) =>
  getSave({ owner: { projectId: o.projectId, playerId: o.playerId }, key: o.key }),
);

/** What a deletion removed (counts only: the audit row keeps no personal data). */
export type DeletedPlayer = {
  sessions: number;
  identities: number;
  dataKeys: number;
  saves: number;
  leaderboardEntries: number;
  wallets: number;
  inventoryItems: number;
  /** Ledger rows removed, or kept detached when `ledgerKept` (the project's keepLedgerOfDeletedPlayers). */
  ledgerRows: number;
  ledgerKept: boolean;
};

type Removed = DeletedPlayer & { periods: Array<{ leaderboard_id: string; period: string }> };

/**
 * Deletes a player and everything they own in one transaction (a savepoint of the caller's):
 * sessions and their refresh tokens, identities, data, saves, leaderboard entries of every
 * period (period counts and rank buckets corrected), wallets, inventory, idempotency records,
 * known sign-in addresses, active days, and the ledger — or, when the project keeps the ledger
 * of deleted players, the ledger rows stay detached: no player id, no idempotency key, no
 * request id. The rank indexes and session caches forget the player once it committed.
 *
 * Lock order, the same as every writer of a player's rows, so a write racing the deletion waits
 * instead of deadlocking: the player's row first (data and save writes take it FOR UPDATE, a
 * balance change FOR KEY SHARE, any other insert through its foreign key), then the player's own
 * rows. A write that was waiting for the player's row fails with PLAYER_NOT_FOUND afterwards
 * (see server/error-normalisation.ts); nothing it wrote survives, because it wrote nothing.
 *
 * `passwordHash`: the hash the caller verified a password against; a different one under the
 * lock (the password changed meanwhile) refuses the deletion with INVALID_CREDENTIALS.
 */
export async function deletePlayer(o: { projectId: string; playerId: string; passwordHash?: string | null }): Promise<DeletedPlayer> {
  if (!UUID.test(o.playerId)) throw new AppError("PLAYER_NOT_FOUND");
  const { periods, ...removed } = await transaction((client) => removePlayerRows(client, o));
  await forgetDeletedPlayer(o.projectId, o.playerId, periods);
  // Inside a caller's transaction the rows are gone only when it commits: a read in between
  // may have cached the session again, so forget once more then.
  if (inTransaction()) afterTransaction(() => void forgetDeletedPlayer(o.projectId, o.playerId, periods).catch(() => undefined));
  return removed;
}

async function removePlayerRows(
  client: pg.PoolClient,
  o: { projectId: string; playerId: string; passwordHash?: string | null },
): Promise<Removed> {
  const locked = await client.query<{ password_hash: string | null; keep_ledger: boolean }>(
    `SELECT p.password_hash, pr.keep_ledger_of_deleted_players AS keep_ledger
       FROM players p JOIN projects pr ON pr.id = p.project_id
      WHERE p.project_id = $1 AND p.id = $2::uuid FOR UPDATE OF p`,
    [o.projectId, o.playerId],
  );
  const player = locked.rows[0];
  if (!player) throw new AppError("PLAYER_NOT_FOUND");
  if (o.passwordHash !== undefined && player.password_hash !== o.passwordHash) throw new AppError("INVALID_CREDENTIALS");
  // Counted after the lock (a new statement, a new snapshot): what is removed below.
  const counted = await client.query<Omit<DeletedPlayer, "leaderboardEntries" | "ledgerKept">>(
    `SELECT (SELECT count(*)::int FROM sessions WHERE player_id = $1) AS sessions,
            (SELECT count(*)::int FROM identities WHERE player_id = $1) AS identities,
            (SELECT count(*)::int FROM player_data WHERE player_id = $1) AS "dataKeys",
            (SELECT count(*)::int FROM player_saves WHERE player_id = $1) AS saves,
            (SELECT count(*)::int FROM wallets WHERE player_id = $1) AS wallets,
            (SELECT count(*)::int FROM inventory WHERE player_id = $1) AS "inventoryItems",
            (SELECT count(*)::int FROM economy_transactions WHERE player_id = $1) AS "ledgerRows"`,
    [o.playerId],
  );
  // The periods the player has entries in, locked in one order (period rows before entry rows
  // before rank buckets, as a score submit and an operator's entry removal take them) and only
  // FOR NO KEY UPDATE: a submit that updates the player's entry may add a rank bucket, whose
  // foreign key takes the period's key-share lock while the submit holds the entry (FOR UPDATE
  // here deadlocked with it). Then one
  // statement removes the entries, takes one off each period's count (one entry per board and
  // period), and its delete trigger corrects the rank buckets.
  await client.query(
    `SELECT 1 FROM leaderboard_periods p
      WHERE p.project_id = $1
        AND EXISTS (SELECT 1 FROM leaderboard_entries e
                     WHERE e.project_id = p.project_id AND e.leaderboard_id = p.leaderboard_id AND e.period = p.period AND e.player_id = $2::uuid)
      ORDER BY p.leaderboard_id, p.period FOR NO KEY UPDATE`,
    [o.projectId, o.playerId],
  );
  const { rows: periods } = await client.query<{ leaderboard_id: string; period: string }>(
    `WITH gone AS (
       DELETE FROM leaderboard_entries WHERE project_id = $1 AND player_id = $2::uuid RETURNING leaderboard_id, period
     ), counted AS (
       UPDATE leaderboard_periods p SET entries = p.entries - 1 FROM gone
        WHERE p.project_id = $1 AND p.leaderboard_id = gone.leaderboard_id AND p.period = gone.period
     )
     SELECT leaderboard_id, period FROM gone ORDER BY leaderboard_id, period`,
    [o.projectId, o.playerId],
  );
  if (player.keep_ledger) {
    await client.query(
      `UPDATE economy_transactions
          SET player_id = NULL, idempotency_key = NULL, request_id = NULL,
              actor_id = CASE WHEN actor_kind IN ('player', 'server-key') THEN NULL ELSE actor_id END
        WHERE project_id = $1 AND player_id = $2::uuid`,
      [o.projectId, o.playerId],
    );
  }
  // No foreign key (usage flushes must not fail): removed here; the flush skips deleted players.
  await client.query("DELETE FROM player_active_days WHERE project_id = $1 AND player_id = $2::uuid", [o.projectId, o.playerId]);
  await forgetPlayerEvents(client, o.projectId, o.playerId);
  // A receiver hears of the deletion, in the same commit (after the player's pending events).
  await emitEvent({ projectId: o.projectId, type: "player.deleted", playerId: o.playerId, data: { playerId: o.playerId } });
  // Everything else goes through the foreign keys' ON DELETE CASCADE.
  await client.query("DELETE FROM players WHERE project_id = $1 AND id = $2::uuid", [o.projectId, o.playerId]);
  const c = counted.rows[0];
  if (!c) throw new Error("the count of a locked player's rows returned nothing");
  return { ...c, leaderboardEntries: periods.length, ledgerKept: player.keep_ledger, periods };
}

/**
 * The player's webhook events (no foreign key: the outbox is the studio's, not the player's).
 * Those with no pending delivery are deleted — delivered, finally failed, or never to be
 * delivered (stored for a disabled endpoint): a later replay does not send a deleted player's
 * events. Those still pending keep the player id, so the studio's services still learn what
 * happened before the deletion, but lose the personal fields (PERSONAL_EVENT_FIELDS become null).
 */
async function forgetPlayerEvents(client: pg.PoolClient, projectId: string, playerId: string): Promise<void> {
  await client.query(
    `DELETE FROM webhook_events e WHERE e.project_id = $1 AND e.player_id = $2::uuid
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'PENDING')`,
    [projectId, playerId],
  );
  await client.query(
    `UPDATE webhook_events
        SET data = data || (SELECT jsonb_object_agg(k, 'null'::jsonb) FROM unnest($3::text[]) AS k WHERE data ? k)
      WHERE project_id = $1 AND player_id = $2::uuid AND data ?| $3::text[]`,
    [projectId, playerId, PERSONAL_EVENT_FIELDS],
  );
}

/** Session caches on every worker and the rank index of every period the player had an entry in. */
async function forgetDeletedPlayer(projectId: string, playerId: string, periods: Array<{ leaderboard_id: string; period: string }>) {
  await forgetSessions({ playerId });
  await Promise.all(periods.map((e) => indexRemove(projectId, e.leaderboard_id, e.period, playerId)));
}
