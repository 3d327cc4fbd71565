import { uuidv7 } from "../crypto";
import { pool, prisma } from "../db";
import { AppError } from "../errors";
import type { SessionOperator } from "./operator";

/**
 * Dashboard sessions on the server (operator_sessions). The next-auth cookie is a signed JWT
 * that names its row (`sid`); a cookie is only as good as its row: sign-out revokes the row, so
 * a copied cookie stops working at once, on every instance (each request reads the row).
 * Sessions last SESSION_SECONDS from their last use, like the cookie; use is written at most
 * every TOUCH_EVERY_MS. A disabled operator's sessions stop working too.
 */
export const SESSION_SECONDS = 8 * 3600;
const TOUCH_EVERY_MS = 15 * 60_000;

export type OperatorSessionDto = {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  userAgent: string | null;
  ip: string | null;
  current: boolean;
};

export async function startOperatorSession(o: { operatorId: string; userAgent: string | null; ip: string | null }): Promise<string> {
  const id = uuidv7();
  await prisma().operatorSession.create({
    data: {
      id,
      operatorId: o.operatorId,
      expiresAt: new Date(Date.now() + SESSION_SECONDS * 1000),
      userAgent: o.userAgent?.slice(0, 300) ?? null,
      ip: o.ip?.slice(0, 64) ?? null,
    },
    select: { id: true },
  });
  return id;
}

/** The operator of a live session (not revoked, not expired, operator not disabled), or null. */
export async function operatorForSession(o: { operatorId: string; sessionId: string }): Promise<SessionOperator | null> {
  if (!/^[0-9a-f-]{36}$/i.test(o.sessionId)) return null;
  const { rows } = await pool().query<{ id: string; email: string; name: string; is_instance_admin: boolean; last_seen_at: Date }>({
    name: "operator-for-session",
    text: `SELECT o.id, o.email, o.name, o.is_instance_admin, s.last_seen_at
             FROM operator_sessions s JOIN operators o ON o.id = s.operator_id
            WHERE s.id = $1 AND s.operator_id = $2 AND s.revoked_at IS NULL AND s.expires_at > now() AND o.disabled_at IS NULL`,
    values: [o.sessionId, o.operatorId],
  });
  const row = rows[0];
  if (!row) return null;
  if (Date.now() - row.last_seen_at.getTime() > TOUCH_EVERY_MS) {
    await pool().query(
      "UPDATE operator_sessions SET last_seen_at = now(), expires_at = now() + make_interval(secs => $2) WHERE id = $1 AND revoked_at IS NULL",
      [o.sessionId, SESSION_SECONDS],
    );
  }
  return { id: row.id, email: row.email, name: row.name, isInstanceAdmin: row.is_instance_admin, sessionId: o.sessionId };
}

/** Sign-out: this session ends (its cookie, copied or not, stops working). */
export async function endOperatorSession(o: { sessionId: string }): Promise<void> {
  if (!/^[0-9a-f-]{36}$/i.test(o.sessionId)) return;
  await pool().query("UPDATE operator_sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL", [o.sessionId]);
}

/** Ends every live session of the operator except `keep` (none: all of them); answers how many ended. */
export async function endOperatorSessions(o: { operatorId: string; keep?: string }): Promise<number> {
  const { count } = await prisma().operatorSession.updateMany({
    where: { operatorId: o.operatorId, revokedAt: null, ...(o.keep ? { id: { not: o.keep } } : {}) },
    data: { revokedAt: new Date() },
  });
  return count;
}

/** The operator's live sessions, newest first, the caller's own marked. */
export async function listOperatorSessions(o: { operatorId: string; currentSessionId?: string }): Promise<OperatorSessionDto[]> {
  const rows = await prisma().operatorSession.findMany({
    where: { operatorId: o.operatorId, revokedAt: null, expiresAt: { gt: new Date() } },
    select: { id: true, createdAt: true, lastSeenAt: true, userAgent: true, ip: true },
    orderBy: { createdAt: "desc" },
    take: 100,
  });
  return rows.map((r) => ({
    ...r,
    createdAt: r.createdAt.toISOString(),
    lastSeenAt: r.lastSeenAt.toISOString(),
    current: r.id === o.currentSessionId,
  }));
}

/** Ends one of the operator's own sessions (another operator's is NOT_FOUND). */
export async function revokeOperatorSession(o: { operatorId: string; sessionId: string }): Promise<void> {
  const { count } = await prisma().operatorSession.updateMany({
    where: { id: o.sessionId, operatorId: o.operatorId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (count === 0) throw new AppError("NOT_FOUND", { message: "Session not found." });
}
