import type { OperatorActor } from "../actor";
import type { AuditActor } from "../auth/operator";
import { uuidv7 } from "../crypto";
import { pool } from "../db";

/**
 * The audit log of operator mutations. `recordAudit` is called inside the mutation's
 * `transaction()`, so the entry and the change commit together (its query joins the open
 * transaction); nothing is logged for a change that rolled back. A change made with an operator
 * access token records the token's id (the actor's `tokenId`).
 */
export type { AuditActor };

/** No operator: a player's own change (an account deletion), recorded by the player's id in `target`. */
export type PlayerAuditActor = { operatorId: null; requestId?: string; tokenId?: undefined };

export async function recordAudit(o: {
  actor: AuditActor | PlayerAuditActor;
  projectId: string | null;
  action: string;
  target?: string;
  before?: unknown;
  after?: unknown;
}): Promise<void> {
  await pool().query(
    `INSERT INTO audit_log (id, project_id, operator_id, action, target, before, after, request_id, token_id)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8, $9)`,
    [
      uuidv7(),
      o.projectId,
      o.actor.operatorId,
      o.action,
      o.target ?? null,
      o.before === undefined ? null : JSON.stringify(o.before),
      o.after === undefined ? null : JSON.stringify(o.after),
      o.actor.requestId ?? null,
      o.actor.tokenId ?? null,
    ],
  );
}

export type AuditEntryDto = {
  id: string;
  action: string;
  target: string | null;
  operatorEmail: string | null;
  before: unknown;
  after: unknown;
  requestId: string | null;
  /** The operator access token the change was made with (null: a dashboard session); never its secret or hash. */
  tokenId: string | null;
  tokenName: string | null;
  tokenPrefix: string | null;
  createdAt: string;
};

/** A project's audit log, newest first, optionally filtered by action prefix; cursor = last id. */
export async function listAudit(o: {
  projectId: string;
  action?: string;
  cursor?: string;
  limit: number;
}): Promise<{ entries: AuditEntryDto[]; nextCursor: string | null }> {
  const { rows } = await pool().query<AuditRow>(
    `${AUDIT_SELECT}
      WHERE a.project_id = $1 AND ($2::text IS NULL OR a.action LIKE $2 || '%') AND ($3::uuid IS NULL OR a.id < $3::uuid)
      ORDER BY a.id DESC LIMIT $4`,
    [o.projectId, o.action ?? null, o.cursor ?? null, o.limit + 1],
  );
  const page = rows.slice(0, o.limit);
  return {
    entries: page.map(auditEntryOf),
    nextCursor: rows.length > o.limit ? (page[page.length - 1]?.id ?? null) : null,
  };
}

/**
 * An operator's account activity: what was done outside projects by them (tokens created and
 * revoked, sessions ended, their password changed) or to them (disabled, enabled), newest first.
 */
export async function listAccountActivity(o: { operatorId: string; limit: number }): Promise<AuditEntryDto[]> {
  const { rows } = await pool().query<AuditRow>(
    `${AUDIT_SELECT}
      WHERE a.project_id IS NULL AND (a.operator_id = $1 OR a.target = $1::text)
      ORDER BY a.id DESC LIMIT $2`,
    [o.operatorId, o.limit],
  );
  return rows.map(auditEntryOf);
}

type AuditRow = {
  id: string;
  action: string;
  target: string | null;
  email: string | null;
  before: unknown;
  after: unknown;
  request_id: string | null;
  token_id: string | null;
  token_name: string | null;
  token_prefix: string | null;
  created_at: Date;
};

const AUDIT_SELECT = `SELECT a.id, a.action, a.target, op.email, a.before, a.after, a.request_id, a.token_id,
            t.name AS token_name, t.prefix AS token_prefix, a.created_at
       FROM audit_log a LEFT JOIN operators op ON op.id = a.operator_id LEFT JOIN operator_tokens t ON t.id = a.token_id`;

function auditEntryOf(r: AuditRow): AuditEntryDto {
  return {
    id: r.id,
    action: r.action,
    target: r.target,
    operatorEmail: r.email,
    before: r.before,
    after: r.after,
    requestId: r.request_id,
    tokenId: r.token_id,
    tokenName: r.token_name,
    tokenPrefix: r.token_prefix,
    createdAt: r.created_at.toISOString(),
  };
}

export const auditActorOf = (actor: OperatorActor, requestId?: string): AuditActor => ({
  operatorId: actor.operatorId,
  requestId,
  tokenId: actor.tokenId ?? null,
});
