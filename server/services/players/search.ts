import { pool } from "../../db";
import { mayReadPlayerEmails, playerEmailFor } from "../../email-privacy";
import type { MemberRole } from "../../generated/prisma/enums";
import { roleRead } from "../command";
import type { ExportSource } from "../export-source";
import type { PlayerFilters } from "./filter-schemas";

/**
 * Operators' search over a project's players, shared by the players page and the players
 * export: one WHERE clause built from the filters. Indexes: a player-id prefix is a range of the
 * primary key; an e-mail prefix the (project, email text_pattern_ops) index; a part of a display
 * name the pg_trgm GIN index; a linked identity's subject the (project, subject) index; a store
 * transaction or order id the store_transactions lookup and original indexes; created
 * dates the (project, created_at) index. The OR of the query's arms is a BitmapOr of those.
 */
export type PlayerRow = {
  id: string;
  displayName: string | null;
  email: string | null;
  createdAt: string;
  lastLoginAt: string | null;
  /** The player's last sign-in or token refresh (the last sign-in for players not seen since last-seen was recorded). */
  lastSeenAt: string | null;
  banned: boolean;
};

/** A player row as COLUMNS select it; `toRow` is its DTO (the players page, a player's page). */
export type Raw = {
  id: string;
  display_name: string | null;
  email: string | null;
  created_at: Date;
  last_login_at: Date | null;
  last_seen_at: Date | null;
  banned: boolean;
};
export const toRow = (r: Raw): PlayerRow => ({
  id: r.id,
  displayName: r.display_name,
  email: r.email,
  createdAt: r.created_at.toISOString(),
  lastLoginAt: r.last_login_at ? r.last_login_at.toISOString() : null,
  lastSeenAt: r.last_seen_at ? r.last_seen_at.toISOString() : null,
  banned: r.banned,
});
/** When the player was last seen: a refresh updates `last_seen_at`, a sign-in both columns; older rows only have the sign-in. */
const LAST_SEEN = "coalesce(p.last_seen_at, p.last_login_at)";
const BANNED = "(p.banned_at IS NOT NULL AND (p.banned_until IS NULL OR p.banned_until > now()))";
export const COLUMNS = `p.id, p.display_name, p.email, p.created_at, p.last_login_at, ${LAST_SEEN} AS last_seen_at, ${BANNED} AS banned`;

export type PlayerSort = "newest" | "oldest" | "name";
const ORDER: Record<PlayerSort, string> = {
  newest: "p.created_at DESC, p.id DESC",
  oldest: "p.created_at ASC, p.id ASC",
  name: "p.display_name ASC NULLS LAST, p.id ASC",
};

/** The lowest and highest uuid starting with the typed hex digits (dashes ignored), or null when it cannot be an id. */
export function idPrefixRange(query: string): [string, string] | null {
  if (!/^[0-9a-f-]{1,36}$/i.test(query)) return null;
  const hex = query.replace(/-/g, "").toLowerCase();
  if (hex.length === 0 || hex.length > 32) return null;
  const uuid = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  return [uuid(hex.padEnd(32, "0")), uuid(hex.padEnd(32, "f"))];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const likeEscaped = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * `p.project_id = $1 AND …`: `params` must hold the project id as $1; the filters' values are
 * appended. `emailPrefix: false` (callers who may not read players' addresses) matches a whole
 * address only: a prefix search would spell out the addresses they see masked.
 */
export function playerWhere(f: PlayerFilters, params: unknown[], o: { emailPrefix: boolean } = { emailPrefix: true }): string {
  const bind = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = ["p.project_id = $1"];
  const q = f.query.trim();
  if (UUID.test(q)) {
    // A whole id: the player's (the primary key) or one of their store receipts' (ours).
    const id = bind(q);
    where.push(
      `(p.id = ${id}::uuid OR p.id = (SELECT st.player_id FROM store_transactions st WHERE st.id = ${id}::uuid AND st.project_id = $1))`,
    );
  } else if (q !== "") {
    const arms = [
      o.emailPrefix ? `p.email LIKE ${bind(`${likeEscaped(q.toLowerCase())}%`)}` : `p.email = ${bind(q.toLowerCase())}`,
      `p.display_name ILIKE ${bind(`%${likeEscaped(q)}%`)}`,
      `p.id = ANY(ARRAY(SELECT i.player_id FROM identities i WHERE i.project_id = $1 AND i.subject = ${bind(q)}))`,
      // A store's transaction or order id (Apple's transactionId or originalTransactionId, Google's
      // orderId, Steam's orderid) finds the player who redeemed it: support's first question.
      `p.id = ANY(ARRAY(SELECT st.player_id FROM store_transactions st WHERE st.project_id = $1
                    AND (st.store_transaction_id = ${bind(q)} OR st.original_transaction_id = ${bind(q)})))`,
    ];
    const range = idPrefixRange(q);
    if (range) arms.push(`p.id BETWEEN ${bind(range[0])}::uuid AND ${bind(range[1])}::uuid`);
    where.push(`(${arms.join(" OR ")})`);
  }
  if (f.banned === "banned") where.push(BANNED);
  if (f.banned === "active") where.push(`NOT ${BANNED}`);
  if (f.email === "with") where.push("p.email IS NOT NULL");
  if (f.email === "without") where.push("p.email IS NULL");
  if (f.provider === "email") where.push("p.password_hash IS NOT NULL");
  else if (f.provider === "anonymous")
    where.push("p.email IS NULL AND NOT EXISTS (SELECT 1 FROM identities i WHERE i.project_id = $1 AND i.player_id = p.id)");
  else if (f.provider)
    where.push(`EXISTS (SELECT 1 FROM identities i WHERE i.project_id = $1 AND i.player_id = p.id AND i.provider = ${bind(f.provider)})`);
  if (f.createdFrom) where.push(`p.created_at >= ${bind(f.createdFrom)}::timestamptz`);
  if (f.createdTo) where.push(`p.created_at < ${bind(f.createdTo)}::timestamptz`);
  if (f.lastSeenFrom) where.push(`${LAST_SEEN} >= ${bind(f.lastSeenFrom)}::timestamptz`);
  if (f.lastSeenTo) where.push(`${LAST_SEEN} < ${bind(f.lastSeenTo)}::timestamptz`);
  if (f.tag) where.push(`EXISTS (SELECT 1 FROM player_tags t WHERE t.project_id = $1 AND t.player_id = p.id AND t.tag = ${bind(f.tag)})`);
  return where.join(" AND ");
}

/**
 * A page of the players the filters match, in one of three orders (the count is its own query:
 * paging does not recount). Addresses as `role` may see them (`mayReadPlayerEmails`).
 */
export async function searchPlayers(
  o: PlayerFilters & { projectId: string; limit: number; offset?: number; sort?: PlayerSort; role: MemberRole },
): Promise<{ players: PlayerRow[]; hasMore: boolean }> {
  const params: unknown[] = [o.projectId];
  const where = playerWhere(o, params, { emailPrefix: mayReadPlayerEmails(o.role) });
  const n = params.length;
  const { rows } = await pool().query<Raw>(
    `SELECT ${COLUMNS} FROM players p WHERE ${where} ORDER BY ${ORDER[o.sort ?? "newest"]} OFFSET $${n + 1} LIMIT $${n + 2}`,
    [...params, o.offset ?? 0, o.limit + 1],
  );
  return {
    players: rows.slice(0, o.limit).map((r) => ({ ...toRow(r), email: playerEmailFor(o.role, r.email) })),
    hasMore: rows.length > o.limit,
  };
}

/** How many players the filters match. */
export async function countPlayers(o: PlayerFilters & { projectId: string; role: MemberRole }): Promise<{ total: number }> {
  const params: unknown[] = [o.projectId];
  const where = playerWhere(o, params, { emailPrefix: mayReadPlayerEmails(o.role) });
  const { rows } = await pool().query<{ total: number }>(`SELECT count(*)::int AS total FROM players p WHERE ${where}`, params);
  return { total: rows[0]?.total ?? 0 };
}

type ExportRaw = Raw & { email_verified: boolean; banned_until: Date | null; ban_reason: string | null; providers: string | null };

export const PLAYER_EXPORT_COLUMNS = [
  "id",
  "displayName",
  "email",
  "emailVerified",
  "providers",
  "createdAt",
  "lastSeenAt",
  "banned",
  "bannedUntil",
  "banReason",
] as const;

/**
 * The players the filters match, oldest first, keyset-paged over (created_at, id); no secret
 * column is read. Addresses (and the search over them) as `role` may see them.
 */
export function playersExport(
  projectId: string,
  f: PlayerFilters,
  role: MemberRole,
): ExportSource<ExportRaw, { createdAt: Date; id: string }> {
  const emailPrefix = mayReadPlayerEmails(role);
  return {
    columns: PLAYER_EXPORT_COLUMNS,
    page: async (cursor, limit) => {
      const params: unknown[] = [projectId];
      const where = playerWhere(f, params, { emailPrefix });
      const n = params.length;
      // The plain bound lets the (project, created_at) index start at the cursor; the row comparison breaks ties by id.
      const after = cursor
        ? `AND p.created_at >= $${n + 2}::timestamptz AND (p.created_at, p.id) > ($${n + 2}::timestamptz, $${n + 3}::uuid)`
        : "";
      const { rows } = await pool().query<ExportRaw>(
        `SELECT ${COLUMNS}, p.email_verified_at IS NOT NULL AS email_verified, p.banned_until, p.ban_reason,
                (SELECT string_agg(i.provider, ' ' ORDER BY i.provider) FROM identities i WHERE i.player_id = p.id) AS providers
           FROM players p WHERE ${where} ${after}
          ORDER BY p.created_at, p.id LIMIT $${n + 1}`,
        cursor ? [...params, limit, cursor.createdAt, cursor.id] : [...params, limit],
      );
      return rows;
    },
    cursorOf: (r) => ({ createdAt: r.created_at, id: r.id }),
    cells: (r) => [
      r.id,
      r.display_name,
      playerEmailFor(role, r.email),
      r.email !== null && r.email_verified,
      r.providers ?? "",
      r.created_at,
      r.last_login_at,
      r.banned,
      r.banned ? r.banned_until : null,
      r.banned ? r.ban_reason : null,
    ],
  };
}

/** The players page's search and count, each checking its caller (`roleRead`, ../command.ts: addresses as the role may see them). */
export const searchPlayersAs = roleRead(searchPlayers);
export const countPlayersAs = roleRead(countPlayers);
