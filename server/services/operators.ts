import { randomBytes } from "node:crypto";
import { pool, prisma, transaction } from "../db";
import { AppError } from "../errors";
import { assertNotToken, auditActorFor, type SessionOperator } from "../identity/operator";
import { endOperatorSessions, revokeOperatorSession } from "../identity/operator-sessions";
import { createOperatorToken, revokeOperatorToken, revokeOperatorTokens } from "../identity/operator-tokens";
import { beginPasswordCheck, passwordCheckPassed } from "../identity/password-change-budget";
import { passwordProblem } from "../password-policy";
import { hashPassword, verifyPassword } from "../passwords";
import { validationError } from "../validation";
import { recordAudit } from "./audit";
import type { CreateOperatorToken } from "./operator-token-schemas";

export type OperatorDto = { id: string; email: string; name: string };
export type OperatorListDto = OperatorDto & { isInstanceAdmin: boolean; disabled: boolean; canCreateProjects: boolean; createdAt: string };

/**
 * Creates the operator, or resets the password of an existing one with that e-mail (the CLI and
 * the demo seed); a reset ends every dashboard session of theirs.
 */
export async function upsertOperator(o: {
  email: string;
  name: string;
  password: string;
  isInstanceAdmin?: boolean;
}): Promise<OperatorDto> {
  const email = o.email.trim().toLowerCase();
  const passwordHash = await hashPassword(o.password);
  const operator = await prisma().operator.upsert({
    where: { email },
    create: { email, name: o.name, passwordHash, isInstanceAdmin: o.isInstanceAdmin ?? false },
    update: { passwordHash, ...(o.isInstanceAdmin === undefined ? {} : { isInstanceAdmin: o.isInstanceAdmin }) },
    select: { id: true, email: true, name: true },
  });
  await endOperatorSessions({ operatorId: operator.id });
  return operator;
}

/**
 * An operator changes their own password (signed in, with the current one): every other
 * session of theirs ends, this one stays, and every access token of theirs is revoked (a
 * password change is what an operator does when the account may be compromised). Wrong current
 * passwords are budgeted per operator (password-change-budget.ts): past the budget the change is
 * refused with 429 before any hashing, and each refusal is audited as operator.password-limited.
 * Audited. Answers how many sessions ended and tokens were revoked.
 */
export async function changeOwnPassword(o: {
  actor: SessionOperator;
  requestId: string;
  currentPassword: string;
  newPassword: string;
}): Promise<{ endedSessions: number; revokedTokens: number }> {
  assertSession(o.actor);
  const row = await prisma().operator.findUnique({ where: { id: o.actor.id }, select: { passwordHash: true, email: true } });
  const wrong = () => validationError([{ path: "input.currentPassword", message: "The current password is wrong." }]);
  if (!row) throw wrong();
  await beginPasswordCheck(o.actor.id).catch(async (error: unknown) => {
    if (error instanceof AppError && error.code === "RATE_LIMITED") {
      await recordAudit({
        actor: auditActorFor(o.actor, o.requestId),
        projectId: null,
        action: "operator.password-limited",
        target: o.actor.id,
      });
    }
    throw error;
  });
  if (!(await verifyPassword(row.passwordHash, o.currentPassword))) throw wrong();
  await passwordCheckPassed(o.actor.id);
  const problem = passwordProblem(o.newPassword, row.email);
  if (problem) throw validationError([{ path: "input.newPassword", message: problem }]);
  const passwordHash = await hashPassword(o.newPassword);
  return accountCommand(o, { action: "operator.password", target: o.actor.id, after: (r) => r }, async () => {
    await prisma().operator.update({ where: { id: o.actor.id }, data: { passwordHash }, select: { id: true } });
    return {
      endedSessions: await endOperatorSessions({ operatorId: o.actor.id, keep: o.actor.sessionId }),
      revokedTokens: await revokeOperatorTokens({ operatorId: o.actor.id }),
    };
  });
}

/** Only with a dashboard session, never with an access token (a token cannot change a password). */
function assertSession(actor: SessionOperator): void {
  if (actor.token || !actor.sessionId) throw new AppError("FORBIDDEN", { message: "Sign in to the dashboard to do this." });
}

/** An access token for the caller (dashboard session only); the secret is in this answer only, and never in the audit row. */
export async function createTokenAs(o: { actor: SessionOperator; requestId: string; token: CreateOperatorToken }) {
  assertNotToken(o.actor);
  return accountCommand(o, { action: "token.create", after: ({ token: _secret, ...safe }) => safe, targetOf: (t) => t.id }, () =>
    createOperatorToken({ operator: o.actor, ...o.token }),
  );
}

/** Revokes one of the caller's tokens; a call made with a token revokes only that token (another is NOT_FOUND). Audited. */
export async function revokeTokenAs(o: { actor: SessionOperator; requestId: string; tokenId: string }): Promise<void> {
  await accountCommand(o, { action: "token.revoke", target: o.tokenId }, () =>
    revokeOperatorToken({ operatorId: o.actor.id, tokenId: o.tokenId, actingTokenId: o.actor.token?.id }),
  );
}

function assertInstanceAdmin(actor: SessionOperator): void {
  if (!actor.isInstanceAdmin) throw new AppError("FORBIDDEN", { message: "Only instance admins may do this." });
}

/** Every operator of the installation (instance admins only). */
export async function listOperators(o: { actor: SessionOperator }): Promise<OperatorListDto[]> {
  assertInstanceAdmin(o.actor);
  const rows = await prisma().operator.findMany({
    where: { removedAt: null },
    select: { id: true, email: true, name: true, isInstanceAdmin: true, disabledAt: true, canCreateProjects: true, createdAt: true },
    orderBy: { createdAt: "asc" },
    take: 1000,
  });
  return rows.map(({ disabledAt, createdAt, ...r }) => ({ ...r, disabled: disabledAt !== null, createdAt: createdAt.toISOString() }));
}

/**
 * A command on operator accounts (no project): one transaction with its audit row, which names
 * the operator acting, the request and the token used, if any.
 */
function accountCommand<T>(
  o: { actor: SessionOperator; requestId: string },
  audit: { action: string; target?: string; targetOf?: (result: T) => string; after?: (result: T) => unknown },
  run: () => Promise<T>,
): Promise<T> {
  return transaction(async () => {
    const result = await run();
    await recordAudit({
      actor: auditActorFor(o.actor, o.requestId),
      projectId: null,
      action: audit.action,
      target: audit.targetOf?.(result) ?? audit.target,
      after: audit.after?.(result),
    });
    return result;
  });
}

async function updateOperator(operatorId: string, data: { disabledAt?: Date | null; canCreateProjects?: boolean }): Promise<void> {
  const { count } = await prisma().operator.updateMany({ where: { id: operatorId }, data });
  if (count === 0) throw new AppError("NOT_FOUND", { message: "Operator not found." });
}

/**
 * An instance admin disables (or enables again) an operator: a disabled operator cannot sign in,
 * and their sessions and access tokens stop working at once on every instance (each request
 * reads them). Disabling revokes the tokens for good: enabling the operator again does not bring
 * them back (they create new ones). Not oneself (an installation must keep a way in). Audited.
 */
export async function setOperatorDisabled(o: {
  actor: SessionOperator;
  requestId: string;
  operatorId: string;
  disabled: boolean;
}): Promise<void> {
  assertInstanceAdmin(o.actor);
  if (o.operatorId === o.actor.id) throw new AppError("FORBIDDEN", { message: "You cannot disable yourself." });
  await accountCommand(o, { action: o.disabled ? "operator.disable" : "operator.enable", target: o.operatorId }, async () => {
    await updateOperator(o.operatorId, { disabledAt: o.disabled ? new Date() : null });
    if (o.disabled) {
      await endOperatorSessions({ operatorId: o.operatorId });
      await revokeOperatorTokens({ operatorId: o.operatorId });
    }
  });
}

/** An instance admin lets an operator create projects, or stops them (their projects stay theirs). Audited. */
export async function setOperatorCanCreateProjects(o: {
  actor: SessionOperator;
  requestId: string;
  operatorId: string;
  allowed: boolean;
}): Promise<void> {
  assertInstanceAdmin(o.actor);
  const action = o.allowed ? "operator.allow-projects" : "operator.disallow-projects";
  await accountCommand(o, { action, target: o.operatorId }, () => updateOperator(o.operatorId, { canCreateProjects: o.allowed }));
}

/**
 * An instance admin removes an operator: memberships and access tokens go, sessions end at once,
 * and the row stays anonymised (e-mail, name and password replaced, disabled) so the audit trail
 * keeps naming the same id and the e-mail can be invited again. Refused (IN_USE) while the
 * operator is the only owner of a project: the projects are named, so an owner can be added
 * first. Not oneself. The projects' rows are locked first, as member changes lock them, so a
 * parallel demotion cannot leave a project without an owner. Audited with the e-mail removed.
 */
export async function removeOperator(o: { actor: SessionOperator; requestId: string; operatorId: string }): Promise<void> {
  assertInstanceAdmin(o.actor);
  if (o.operatorId === o.actor.id) throw new AppError("FORBIDDEN", { message: "You cannot remove yourself." });
  await accountCommand(o, { action: "operator.remove", target: o.operatorId, after: (r) => r }, async () => {
    const client = pool();
    const found = await client.query<{ email: string; name: string }>(
      "SELECT email, name FROM operators WHERE id = $1 AND removed_at IS NULL FOR UPDATE",
      [o.operatorId],
    );
    const operator = found.rows[0];
    if (!operator) throw new AppError("NOT_FOUND", { message: "Operator not found." });
    await client.query(
      "SELECT 1 FROM projects WHERE id IN (SELECT project_id FROM project_members WHERE operator_id = $1) ORDER BY id FOR UPDATE",
      [o.operatorId],
    );
    const soleOwner = await client.query<{ id: string; name: string }>(
      `SELECT p.id, p.name FROM project_members m JOIN projects p ON p.id = m.project_id
        WHERE m.operator_id = $1 AND m.role = 'OWNER'
          AND NOT EXISTS (SELECT 1 FROM project_members o WHERE o.project_id = m.project_id AND o.role = 'OWNER' AND o.operator_id <> $1)
        ORDER BY p.name LIMIT 20`,
      [o.operatorId],
    );
    if (soleOwner.rows.length > 0) {
      throw new AppError("IN_USE", {
        message: `They are the only owner of ${soleOwner.rows.map((p) => `"${p.name}"`).join(", ")}: add another owner first.`,
        details: { projects: soleOwner.rows },
      });
    }
    await client.query("DELETE FROM project_members WHERE operator_id = $1", [o.operatorId]);
    await client.query("DELETE FROM operator_tokens WHERE operator_id = $1", [o.operatorId]);
    await client.query(
      `UPDATE operators SET email = $2, name = 'Removed operator', password_hash = $3, disabled_at = now(),
              removed_at = now(), is_instance_admin = false, can_create_projects = false WHERE id = $1`,
      [o.operatorId, `removed-${o.operatorId}@operators.invalid`, `!removed:${randomBytes(16).toString("base64url")}`],
    );
    await endOperatorSessions({ operatorId: o.operatorId });
    return { email: operator.email, name: operator.name };
  });
}

/** The operator ends one of their own sessions (another operator's is NOT_FOUND); not with a token. Audited. */
export async function endOwnSession(o: { actor: SessionOperator; requestId: string; sessionId: string }): Promise<void> {
  assertNotToken(o.actor);
  return accountCommand(o, { action: "session.revoke", target: o.sessionId }, () =>
    revokeOperatorSession({ operatorId: o.actor.id, sessionId: o.sessionId }),
  );
}

/**
 * The operator ends every session of theirs, this one included, and revokes every access token
 * of theirs (what someone does who thinks the account is in other hands); not with a token.
 * Audited with how many ended and were revoked.
 */
export async function signOutEverywhere(o: {
  actor: SessionOperator;
  requestId: string;
}): Promise<{ ended: number; revokedTokens: number }> {
  assertNotToken(o.actor);
  return accountCommand(o, { action: "session.revoke-all", after: (r) => r }, async () => ({
    ended: await endOperatorSessions({ operatorId: o.actor.id }),
    revokedTokens: await revokeOperatorTokens({ operatorId: o.actor.id }),
  }));
}
