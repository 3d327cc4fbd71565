import type { OperatorActor, PlayerActor } from "../../actor";
import { inTransaction, pool, transaction } from "../../db";
import { AppError } from "../../errors";
import { dummyPasswordHash, verifyPassword } from "../../passwords";
import { beginLoginAttempt, passwordConfirmed } from "../../ratelimit/login";
import { player, runCommand } from "../command";
import type { TransactionDto } from "../economy/schemas";
import { loadLeaderboard } from "../leaderboards/definitions";
import { currentPeriod } from "../leaderboards/entries";
import { deletePlayer } from "./admin";
import type { PlayerExport } from "./schemas";

/**
 * A player's own account: deleting it (DELETE /players/me) and exporting everything the project
 * holds about it (GET /players/me/export; operators get the same export through exportPlayerAs).
 */

/**
 * Deletes the caller's account and everything it owns (see deletePlayer), with an audit row that
 * names the player by id only: its action `player.delete`, no operator, `after` the counts of
 * what was removed and who asked (`player` or `server-key`). No e-mail, no display name.
 *
 * A player with a password (an e-mail account) must send it: missing or wrong is
 * INVALID_CREDENTIALS, and nothing changes. A player without one sends none (one sent is
 * ignored). A server key acting as the player (X-Player-Id) is trusted and needs no password.
 * Wrong passwords count against the e-mail login's failure budgets (per account and address,
 * per address, per account): a stolen access token cannot be used to guess the password here
 * faster than at the login.
 */
export async function deleteOwnAccount(o: {
  actor: PlayerActor;
  playerId: string;
  password?: string;
  ip: string;
  requestId?: string;
}): Promise<void> {
  if (o.playerId !== o.actor.playerId) throw new AppError("FORBIDDEN", { message: "Players delete only their own account." });
  const { rows } = await pool().query<{ password_hash: string | null; email: string | null }>(
    "SELECT password_hash, email FROM players WHERE project_id = $1 AND id = $2::uuid",
    [o.actor.projectId, o.playerId],
  );
  const found = rows[0];
  if (!found) throw new AppError("PLAYER_NOT_FOUND");
  const hash = found.password_hash;
  if (hash !== null && o.actor.via === "token") {
    const attempt = found.email ? await beginLoginAttempt({ projectId: o.actor.projectId, email: found.email, ip: o.ip }) : null;
    // A missing password costs the same verification as a wrong one.
    const valid = await verifyPassword(o.password === undefined ? await dummyPasswordHash() : hash, o.password ?? "");
    if (!valid || o.password === undefined) throw new AppError("INVALID_CREDENTIALS");
    if (attempt) await passwordConfirmed(attempt);
  }
  await runCommand(null, {
    authorization: player(o.actor, o.requestId),
    action: "player.delete",
    target: o.playerId,
    after: (removed) => ({ by: o.actor.via === "server-key" ? "server-key" : "player", ...removed }),
    run: () => deletePlayer({ projectId: o.actor.projectId, playerId: o.playerId, passwordHash: hash }),
  });
}

/** The caller's own export (a server key acting as the player gets the same). */
export function exportOwnData(o: { actor: PlayerActor; playerId: string }): Promise<PlayerExport> {
  if (o.playerId !== o.actor.playerId) throw new AppError("FORBIDDEN", { message: "Players export only their own data." });
  return exportPlayerData(o);
}

const iso = (d: Date) => d.toISOString();
const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * Everything the project holds about one player, read in one snapshot (a repeatable-read
 * transaction of its own; inside an operator command's transaction, that transaction's reads).
 * Never selected: the password hash, refresh-token hashes, the device secret's hash, known addresses' hashes.
 * The actor has been checked by the caller: the player themselves, or an operator's command.
 */
export async function exportPlayerData(o: { actor: PlayerActor | OperatorActor; playerId: string }): Promise<PlayerExport> {
  if (inTransaction()) return readExport(o.actor.projectId, o.playerId);
  return transaction(async (client) => {
    await client.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    return readExport(o.actor.projectId, o.playerId);
  });
}

type ProfileRow = {
  id: string;
  display_name: string | null;
  email: string | null;
  created_at: Date;
  updated_at: Date;
  last_login_at: Date | null;
  banned_at: Date | null;
  banned_until: Date | null;
  ban_reason: string | null;
  email_verified_at: Date | null;
};

// One query after another: inside a transaction every query shares its one connection.
async function readExport(projectId: string, playerId: string): Promise<PlayerExport> {
  const db = pool();
  const profile = await db.query<ProfileRow>(
    `SELECT id, display_name, email, created_at, updated_at, last_login_at, banned_at, banned_until, ban_reason, email_verified_at
       FROM players WHERE project_id = $1 AND id = $2::uuid`,
    [projectId, playerId],
  );
  const p = profile.rows[0];
  if (!p) throw new AppError("PLAYER_NOT_FOUND");
  const args = [projectId, playerId];
  const identities = await db.query<{ provider: string; subject: string; created_at: Date }>(
    "SELECT provider, subject, created_at FROM identities WHERE project_id = $1 AND player_id = $2 ORDER BY provider",
    args,
  );
  const device = await db.query<{ created_at: Date }>(
    "SELECT created_at FROM device_credentials WHERE project_id = $1 AND player_id = $2",
    args,
  );
  const data = await db.query<{ key: string; value: unknown; version: number; visibility: string; created_at: Date; updated_at: Date }>(
    "SELECT key, value, version, visibility, created_at, updated_at FROM player_data WHERE project_id = $1 AND player_id = $2 ORDER BY key",
    args,
  );
  // data::text: the save's JSON text as stored (json, not jsonb), parsed here like GET /saves/{key}.
  const saves = await db.query<{
    key: string;
    version: number;
    size_bytes: number;
    sha256: string;
    meta: Record<string, unknown>;
    data: string;
    created_at: Date;
    updated_at: Date;
  }>(
    `SELECT key, version, size_bytes, sha256, meta, data::text AS data, created_at, updated_at
       FROM player_saves WHERE project_id = $1 AND player_id = $2 ORDER BY updated_at DESC, key`,
    args,
  );
  const entries = await db.query<{
    leaderboard_id: string;
    period: string;
    score: number;
    metadata: Record<string, unknown> | null;
    updated_at: Date;
    hidden: boolean;
  }>(
    // Entries a ban hides are the player's data too (leaderboard_hidden_entries).
    `SELECT leaderboard_id, period, score, metadata, updated_at, false AS hidden FROM leaderboard_entries
      WHERE project_id = $1 AND player_id = $2
     UNION ALL
     SELECT leaderboard_id, period, score, metadata, updated_at, true FROM leaderboard_hidden_entries
      WHERE project_id = $1 AND player_id = $2
     ORDER BY leaderboard_id, updated_at DESC, period`,
    args,
  );
  const wallets = await db.query<{ currency_id: string; balance: string; updated_at: Date }>(
    "SELECT currency_id, balance, updated_at FROM wallets WHERE project_id = $1 AND player_id = $2 ORDER BY currency_id",
    args,
  );
  const inventory = await db.query<{ item_id: string; quantity: string; updated_at: Date }>(
    "SELECT item_id, quantity, updated_at FROM inventory WHERE project_id = $1 AND player_id = $2 ORDER BY item_id",
    args,
  );
  const ledger = await db.query<{
    id: string;
    kind: string;
    purchase_id: string | null;
    quantity: number | null;
    currencies: TransactionDto["currencies"];
    items: TransactionDto["items"];
    reason: string | null;
    created_at: Date;
    leaderboard_id: string | null;
    period: string | null;
  }>(
    `SELECT id, kind, purchase_id, quantity, currencies, items, reason, created_at, leaderboard_id, period FROM economy_transactions
      WHERE project_id = $1 AND player_id = $2 ORDER BY id DESC`,
    args,
  );
  const sessions = await db.query<{
    id: string;
    created_at: Date;
    expires_at: Date;
    revoked_at: Date | null;
    revoked_reason: string | null;
  }>(
    `SELECT id, created_at, expires_at, revoked_at, revoked_reason FROM sessions
      WHERE project_id = $1 AND player_id = $2 ORDER BY created_at DESC, id DESC`,
    args,
  );
  const days = await db.query<{ day: string }>(
    "SELECT to_char(day, 'YYYY-MM-DD') AS day FROM player_active_days WHERE project_id = $1 AND player_id = $2 ORDER BY day",
    args,
  );
  const known = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM login_known_ips WHERE player_id = $1", [playerId]);
  const emails = await db.query<{
    template: string;
    to_address: string;
    subject: string;
    status: PlayerExport["emails"][number]["status"];
    created_at: Date;
    sent_at: Date | null;
  }>(
    `SELECT template, to_address, subject, status, created_at, sent_at FROM email_messages
      WHERE project_id = $1 AND player_id = $2 ORDER BY created_at DESC, id DESC`,
    args,
  );
  const assignments = await db.query<{ experiment_id: string; name: string; variant: string; assigned_at: Date }>(
    `SELECT a.experiment_id, e.name, a.variant, a.assigned_at
       FROM experiment_assignments a JOIN experiments e ON e.project_id = a.project_id AND e.id = a.experiment_id
      WHERE a.project_id = $1 AND a.player_id = $2 ORDER BY a.assigned_at, a.experiment_id`,
    args,
  );
  const current = await currentPeriods(
    projectId,
    entries.rows.map((e) => e.leaderboard_id),
  );
  return {
    exportedAt: new Date().toISOString(),
    profile: {
      playerId: p.id,
      displayName: p.display_name,
      email: p.email,
      emailVerifiedAt: isoOrNull(p.email_verified_at),
      createdAt: iso(p.created_at),
      updatedAt: iso(p.updated_at),
      lastLoginAt: isoOrNull(p.last_login_at),
      ban: p.banned_at ? { bannedAt: iso(p.banned_at), until: isoOrNull(p.banned_until), reason: p.ban_reason } : null,
    },
    identities: identities.rows.map((i) => ({ provider: i.provider, subject: i.subject, createdAt: iso(i.created_at) })),
    deviceCredential: device.rows[0] ? { createdAt: iso(device.rows[0].created_at) } : null,
    data: data.rows.map((d) => ({
      key: d.key,
      value: d.value as PlayerExport["data"][number]["value"],
      version: d.version,
      visibility: d.visibility.toLowerCase() as PlayerExport["data"][number]["visibility"],
      createdAt: iso(d.created_at),
      updatedAt: iso(d.updated_at),
    })),
    saves: saves.rows.map((s) => ({
      key: s.key,
      version: s.version,
      sizeBytes: s.size_bytes,
      sha256: s.sha256,
      meta: s.meta as PlayerExport["saves"][number]["meta"],
      data: JSON.parse(s.data) as PlayerExport["saves"][number]["data"],
      createdAt: iso(s.created_at),
      updatedAt: iso(s.updated_at),
    })),
    leaderboardEntries: entries.rows.map((e) => ({
      leaderboardId: e.leaderboard_id,
      period: e.period,
      current: current.get(e.leaderboard_id) === e.period,
      score: e.score,
      metadata: e.metadata as PlayerExport["leaderboardEntries"][number]["metadata"],
      updatedAt: iso(e.updated_at),
      ...(e.hidden ? { hidden: true } : {}),
    })),
    balances: wallets.rows.map((w) => ({ currencyId: w.currency_id, balance: Number(w.balance), updatedAt: iso(w.updated_at) })),
    inventory: inventory.rows.map((i) => ({ itemId: i.item_id, quantity: Number(i.quantity), updatedAt: iso(i.updated_at) })),
    ledger: ledger.rows.map((t) => ({
      id: t.id,
      kind: t.kind.toLowerCase() as TransactionDto["kind"],
      purchaseId: t.purchase_id,
      source: t.leaderboard_id !== null && t.period !== null ? { leaderboardId: t.leaderboard_id, period: t.period } : null,
      quantity: t.quantity,
      currencies: t.currencies,
      items: t.items,
      reason: t.reason,
      createdAt: iso(t.created_at),
    })),
    sessions: sessions.rows.map((s) => ({
      id: s.id,
      createdAt: iso(s.created_at),
      expiresAt: iso(s.expires_at),
      revokedAt: isoOrNull(s.revoked_at),
      revokedReason: s.revoked_reason,
    })),
    activeDays: days.rows.map((d) => d.day),
    knownSignInAddresses: known.rows[0]?.n ?? 0,
    emails: emails.rows.map((m) => ({
      template: m.template,
      to: m.to_address,
      subject: m.subject,
      status: m.status,
      createdAt: iso(m.created_at),
      sentAt: isoOrNull(m.sent_at),
    })),
    experimentAssignments: assignments.rows.map((a) => ({
      experimentId: a.experiment_id,
      experimentName: a.name,
      variant: a.variant,
      assignedAt: iso(a.assigned_at),
    })),
  };
}

/** Each board's current period; a board deleted meanwhile has none (its entries went with it). */
async function currentPeriods(projectId: string, boardIds: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const id of new Set(boardIds)) {
    const board = await loadLeaderboard(projectId, id).catch(() => null);
    if (board) out.set(id, currentPeriod(board).period);
  }
  return out;
}
