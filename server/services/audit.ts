import { uuidv7, uuidv7Floor } from "../crypto";
import { pool } from "../db";
import type { AuditActor } from "../identity/operator";
import type { AuditFilters } from "./audit-schemas";
import type { ExportSource } from "./export-source";

/**
 * The audit log of operator mutations. `recordAudit` is called inside the mutation's
 * `transaction()`, so the entry and the change commit together (its query joins the open
 * transaction); nothing is logged for a change that rolled back. A change made with an operator
 * access token records the token's id (the actor's `tokenId`).
 */
export type { AuditActor };

/**
 * Only through runCommand (server/services/command.ts), in its transaction. A player's or the
 * system's row names no operator; a player's change names the player in `target`.
 */
export async function recordAudit(o: {
  actor: AuditActor;
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
      o.actor.kind === "operator" ? o.actor.operatorId : null,
      o.action,
      o.target ?? null,
      o.before === undefined ? null : JSON.stringify(o.before),
      o.after === undefined ? null : JSON.stringify(o.after),
      o.actor.requestId ?? null,
      o.actor.kind === "operator" ? o.actor.tokenId : null,
    ],
  );
}

/**
 * Many rows of one actor and project in one statement (an import of 1,000 definitions writes
 * 1,000 rows: one round trip per 1,000, not one each). Same rules as `recordAudit`; the rows'
 * ids are uuidv7 in the given order, so the log lists them as given.
 */
export async function recordAudits(
  actor: AuditActor,
  projectId: string | null,
  entries: ReadonlyArray<{ action: string; target?: string; before?: unknown; after?: unknown }>,
): Promise<void> {
  const CHUNK = 1000;
  for (let start = 0; start < entries.length; start += CHUNK) {
    const chunk = entries.slice(start, start + CHUNK);
    const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
    await pool().query(
      `INSERT INTO audit_log (id, project_id, operator_id, action, target, before, after, request_id, token_id)
       SELECT e.id, $1::uuid, $2::uuid, e.action, e.target, e.before, e.after, $3::text, $4::uuid
         FROM unnest($5::uuid[], $6::text[], $7::text[], $8::jsonb[], $9::jsonb[]) AS e(id, action, target, before, after)`,
      [
        projectId,
        actor.kind === "operator" ? actor.operatorId : null,
        actor.requestId ?? null,
        actor.kind === "operator" ? actor.tokenId : null,
        chunk.map(() => uuidv7()),
        chunk.map((e) => e.action),
        chunk.map((e) => e.target ?? null),
        chunk.map((e) => json(e.before)),
        chunk.map((e) => json(e.after)),
      ],
    );
  }
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
  /** What the target is, with its current name (null: gone); only in a project's log. */
  targetRef?: TargetRef | null;
};

const ID_CLOCK_MARGIN_MS = 5 * 60_000;

/** `a.project_id = $1 AND …`: `params` holds the project id as $1; the filters' values are appended. */
function auditWhere(f: AuditFilters, params: unknown[]): string {
  const bind = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const like = (s: string) => `${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const where = ["a.project_id = $1"];
  if (f.action) where.push(`a.action LIKE ${bind(like(f.action))}`);
  if (f.operatorId) where.push(`a.operator_id = ${bind(f.operatorId)}::uuid`);
  if (f.target) where.push(targetWhere(f.target, bind, like));
  if (f.importId) where.push(`a.after->>'importId' = ${bind(f.importId)}`);
  // Exact by created_at; the ids (uuidv7, made in the app just after the transaction began) bound
  // the (project, id) index scan to the range, with a margin for the clocks and the transaction.
  if (f.from) {
    where.push(`a.created_at >= ${bind(f.from)}::timestamptz`);
    where.push(`a.id >= ${bind(uuidv7Floor(Date.parse(f.from) - ID_CLOCK_MARGIN_MS))}::uuid`);
  }
  if (f.to) {
    where.push(`a.created_at < ${bind(f.to)}::timestamptz`);
    where.push(`a.id < ${bind(uuidv7Floor(Date.parse(f.to) + ID_CLOCK_MARGIN_MS))}::uuid`);
  }
  return where.join(" AND ");
}

/**
 * A target search: "kind:id" (a config import's target) also finds the dashboard's changes of
 * that definition (action `<kind's actions>`, target the bare id); a bare "id" also finds the
 * imports' "kind:id". Both are prefixes, like the plain target filter.
 */
const KIND_ACTIONS: Record<string, string> = {
  currency: "economy.currency.",
  item: "economy.item.",
  purchase: "economy.purchase.",
  "store-product": "store.product.",
  leaderboard: "leaderboard.",
  "identity-provider": "provider.",
  webhook: "webhook.",
};
function targetWhere(target: string, bind: (v: unknown) => string, like: (s: string) => string): string {
  const colon = target.indexOf(":");
  const kind = colon > 0 ? target.slice(0, colon) : "";
  const actions = KIND_ACTIONS[kind];
  if (actions) {
    const id = target.slice(colon + 1);
    return `(a.target LIKE ${bind(like(target))} OR (a.action LIKE ${bind(like(actions))} AND a.target LIKE ${bind(like(id))}))`;
  }
  return `(a.target LIKE ${bind(like(target))} OR a.target LIKE ${bind(`%:${like(target)}`)})`;
}

/** A project's audit log, newest first, filtered; cursor = last id. Targets carry their names (one query per kind of target). */
export async function listAudit(
  o: AuditFilters & { projectId: string; cursor?: string; limit: number },
): Promise<{ entries: AuditEntryDto[]; nextCursor: string | null }> {
  const params: unknown[] = [o.projectId];
  const where = auditWhere(o, params);
  const n = params.length;
  const { rows } = await pool().query<AuditRow>(
    `${AUDIT_SELECT} WHERE ${where} AND ($${n + 1}::uuid IS NULL OR a.id < $${n + 1}::uuid) ORDER BY a.id DESC LIMIT $${n + 2}`,
    [...params, o.cursor ?? null, o.limit + 1],
  );
  const page = rows.slice(0, o.limit);
  const names = await targetNames(o.projectId, page);
  return {
    entries: page.map((r) => ({ ...auditEntryOf(r), targetRef: targetRefOf(r, names) })),
    nextCursor: rows.length > o.limit ? (page[page.length - 1]?.id ?? null) : null,
  };
}

/** The operators who appear in a project's audit log (the operator filter's choices). */
export async function auditOperators(o: { projectId: string }): Promise<Array<{ id: string; email: string }>> {
  const { rows } = await pool().query<{ id: string; email: string }>(
    `SELECT op.id, op.email FROM operators op
      WHERE op.id IN (SELECT DISTINCT a.operator_id FROM audit_log a WHERE a.project_id = $1 AND a.operator_id IS NOT NULL)
      ORDER BY op.email`,
    [o.projectId],
  );
  return rows;
}

export type TargetKind = "player" | "key" | "leaderboard" | "currency" | "item" | "purchase" | "operator" | "webhook";
export type TargetRef = { kind: TargetKind; id: string; name: string | null };

/** What an action's target names: the first path segment of the target ("player-id/key", "board/player"). */
export function targetKindOf(action: string): TargetKind | null {
  // A config import's row per definition: config.import.<kind>.<verb>, target "<kind>:<id>".
  if (action.startsWith("config.import.")) {
    const kind = action.split(".")[2];
    return kind === "currency" || kind === "item" || kind === "purchase" || kind === "leaderboard" ? kind : null;
  }
  if (action.startsWith("economy.currency.")) return "currency";
  if (action.startsWith("economy.item.")) return "item";
  if (action.startsWith("economy.purchase.")) return "purchase";
  if (action.startsWith("player.") || action === "economy.grant" || action === "economy.revoke" || action === "export.ledger")
    return "player";
  if (action.startsWith("key.")) return "key";
  if (action.startsWith("leaderboard.") || action === "export.leaderboard") return "leaderboard";
  if (action === "member.role" || action === "member.remove") return "operator";
  // Every webhook action names its endpoint, except a resend (it names the delivery).
  if (action.startsWith("webhook.") && action !== "webhook.resend") return "webhook";
  return null;
}

const NAME_QUERIES: Record<TargetKind, string> = {
  player:
    "SELECT id::text AS id, coalesce(display_name, 'Unnamed player') AS name FROM players WHERE project_id = $1 AND id = ANY($2::uuid[])",
  key: "SELECT id::text AS id, name || ' (' || prefix || '…)' AS name FROM api_keys WHERE project_id = $1 AND id = ANY($2::uuid[])",
  leaderboard: "SELECT id, name FROM leaderboards WHERE project_id = $1 AND id = ANY($2::text[])",
  currency: "SELECT id, name FROM currencies WHERE project_id = $1 AND id = ANY($2::text[])",
  item: "SELECT id, name FROM items WHERE project_id = $1 AND id = ANY($2::text[])",
  purchase: "SELECT id, name FROM purchases WHERE project_id = $1 AND id = ANY($2::text[])",
  operator:
    "SELECT op.id::text AS id, op.email AS name FROM operators op WHERE op.id = ANY($2::uuid[]) AND EXISTS (SELECT 1 FROM audit_log a WHERE a.project_id = $1 AND a.target = op.id::text)",
  webhook:
    "SELECT id::text AS id, coalesce(nullif(description, ''), url) AS name FROM webhook_endpoints WHERE project_id = $1 AND id = ANY($2::uuid[])",
};
const UUID_KINDS = new Set<TargetKind>(["player", "key", "operator", "webhook"]);
const targetIdOf = (target: string, action = "") =>
  action.startsWith("config.import.") ? target.slice(target.indexOf(":") + 1) : (target.split("/")[0] ?? target);

async function targetNames(projectId: string, rows: AuditRow[]): Promise<Map<string, string>> {
  const wanted = new Map<TargetKind, Set<string>>();
  for (const r of rows) {
    const kind = targetKindOf(r.action);
    if (!kind || !r.target) continue;
    const id = targetIdOf(r.target, r.action);
    if (UUID_KINDS.has(kind) && !/^[0-9a-f-]{36}$/i.test(id)) continue;
    const ids = wanted.get(kind) ?? new Set<string>();
    ids.add(id);
    wanted.set(kind, ids);
  }
  const names = new Map<string, string>();
  // One after another: inside a transaction every query shares its one connection.
  for (const [kind, ids] of wanted) {
    const { rows: found } = await pool().query<{ id: string; name: string }>(NAME_QUERIES[kind], [projectId, [...ids]]);
    for (const f of found) names.set(`${kind}:${f.id}`, f.name);
  }
  return names;
}

function targetRefOf(r: AuditRow, names: Map<string, string>): TargetRef | null {
  const kind = targetKindOf(r.action);
  if (!kind || !r.target) return null;
  const id = targetIdOf(r.target, r.action);
  return { kind, id, name: names.get(`${kind}:${id}`) ?? null };
}

export const AUDIT_EXPORT_COLUMNS = ["id", "createdAt", "operator", "token", "action", "target", "before", "after", "requestId"] as const;

/** The filtered log, newest first, keyset-paged by id. */
export function auditExport(projectId: string, f: AuditFilters): ExportSource<AuditRow, string> {
  return {
    columns: AUDIT_EXPORT_COLUMNS,
    page: async (cursor, limit) => {
      const params: unknown[] = [projectId];
      const where = auditWhere(f, params);
      const n = params.length;
      const { rows } = await pool().query<AuditRow>(
        `${AUDIT_SELECT} WHERE ${where} AND ($${n + 1}::uuid IS NULL OR a.id < $${n + 1}::uuid) ORDER BY a.id DESC LIMIT $${n + 2}`,
        [...params, cursor, limit],
      );
      return rows;
    },
    cursorOf: (r) => r.id,
    cells: (r) => [r.id, r.created_at, r.email, r.token_name ?? r.token_id, r.action, r.target, r.before, r.after, r.request_id],
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
