import { randomBytes } from "node:crypto";
import { pool, prisma } from "../db";
import { AppError } from "../errors";
import { assertNotToken, type SessionOperator } from "../identity/operator";
import { endOperatorSessions, listOperatorSessions, revokeOperatorSession } from "../identity/operator-sessions";
import { createOperatorToken, listOperatorTokens, revokeOperatorToken, revokeOperatorTokens } from "../identity/operator-tokens";
import { beginPasswordCheck, passwordCheckPassed } from "../identity/password-change-budget";
import { passwordProblem } from "../password-policy";
import { hashPassword, verifyPassword } from "../passwords";
import { validationError } from "../validation";
import { type AuditEntryDto, listAccountActivity } from "./audit";
import { accountRule, type OperatorContext, runCommand, signedIn } from "./command";
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
export async function changePasswordAs(
  ctx: OperatorContext,
  o: { currentPassword: string; newPassword: string },
): Promise<{ endedSessions: number; revokedTokens: number }> {
  const me = signedIn(ctx);
  // Only with a dashboard session, never with an access token (a token cannot change a password).
  if (me.token || !me.sessionId) throw new AppError("FORBIDDEN", { message: "Sign in to the dashboard to do this." });
  const row = await prisma().operator.findUnique({ where: { id: me.id }, select: { passwordHash: true, email: true } });
  const wrong = () => validationError([{ path: "input.currentPassword", message: "The current password is wrong." }]);
  if (!row) throw wrong();
  await beginPasswordCheck(me.id).catch(async (error: unknown) => {
    if (error instanceof AppError && error.code === "RATE_LIMITED") {
      await runCommand(ctx, {
        authorization: accountRule(ctx, { rule: "ownSession" }),
        action: "operator.password-limited",
        target: me.id,
        run: async () => undefined,
      });
    }
    throw error;
  });
  if (!(await verifyPassword(row.passwordHash, o.currentPassword))) throw wrong();
  await passwordCheckPassed(me.id);
  const problem = passwordProblem(o.newPassword, row.email);
  if (problem) throw validationError([{ path: "input.newPassword", message: problem }]);
  const passwordHash = await hashPassword(o.newPassword);
  return runCommand(ctx, {
    authorization: accountRule(ctx, { rule: "ownSession" }),
    action: "operator.password",
    target: me.id,
    after: (r) => r,
    run: async () => {
      await prisma().operator.update({ where: { id: me.id }, data: { passwordHash }, select: { id: true } });
      return {
        endedSessions: await endOperatorSessions({ operatorId: me.id, keep: me.sessionId }),
        revokedTokens: await revokeOperatorTokens({ operatorId: me.id }),
      };
    },
  });
}

/** An access token for the caller (dashboard session only); the secret is in this answer only, and never in the audit row. */
export async function createTokenAs(ctx: OperatorContext, token: CreateOperatorToken) {
  return runCommand<Awaited<ReturnType<typeof createOperatorToken>>, unknown, SessionOperator>(ctx, {
    authorization: accountRule(ctx, { rule: "ownSession" }),
    action: "token.create",
    target: (t) => t.id,
    after: ({ token: _secret, ...safe }) => safe,
    run: (me) => createOperatorToken({ operator: me, ...token }),
  });
}

/** Revokes one of the caller's tokens; a call made with a token revokes only that token (another is NOT_FOUND). Audited. */
export async function revokeTokenAs(ctx: OperatorContext, o: { tokenId: string }): Promise<void> {
  await runCommand(ctx, {
    authorization: accountRule(ctx, { rule: "own" }),
    action: "token.revoke",
    target: o.tokenId,
    run: (me) => revokeOperatorToken({ operatorId: me.id, tokenId: o.tokenId, actingTokenId: me.token?.id }),
  });
}

/** Every operator of the installation (instance admins only). */
export async function listOperatorsAs(ctx: OperatorContext): Promise<OperatorListDto[]> {
  if (!signedIn(ctx).isInstanceAdmin) throw new AppError("FORBIDDEN", { message: "Only instance admins may do this." });
  const rows = await prisma().operator.findMany({
    where: { removedAt: null },
    select: { id: true, email: true, name: true, isInstanceAdmin: true, disabledAt: true, canCreateProjects: true, createdAt: true },
    orderBy: { createdAt: "asc" },
    take: 1000,
  });
  return rows.map(({ disabledAt, createdAt, ...r }) => ({ ...r, disabled: disabledAt !== null, createdAt: createdAt.toISOString() }));
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
export async function setOperatorDisabledAs(ctx: OperatorContext, o: { operatorId: string; disabled: boolean }): Promise<void> {
  await runCommand(ctx, {
    authorization: accountRule(ctx, { rule: "instanceAdmin", self: { verb: "disable", operatorId: o.operatorId } }),
    action: o.disabled ? "operator.disable" : "operator.enable",
    target: o.operatorId,
    run: async () => {
      await updateOperator(o.operatorId, { disabledAt: o.disabled ? new Date() : null });
      if (o.disabled) {
        await endOperatorSessions({ operatorId: o.operatorId });
        await revokeOperatorTokens({ operatorId: o.operatorId });
      }
    },
  });
}

/** An instance admin lets an operator create projects, or stops them (their projects stay theirs). Audited. */
export async function setOperatorCanCreateProjectsAs(ctx: OperatorContext, o: { operatorId: string; allowed: boolean }): Promise<void> {
  await runCommand(ctx, {
    authorization: accountRule(ctx, { rule: "instanceAdmin" }),
    action: o.allowed ? "operator.allow-projects" : "operator.disallow-projects",
    target: o.operatorId,
    run: () => updateOperator(o.operatorId, { canCreateProjects: o.allowed }),
  });
}

/**
 * An instance admin removes an operator: memberships and access tokens go, sessions end at once,
 * and the row stays anonymised (e-mail, name and password replaced, disabled) so the audit trail
 * keeps naming the same id and the e-mail can be invited again. Refused (IN_USE) while the
 * operator is the only owner of a project: the projects are named, so an owner can be added
 * first. Not oneself. The projects' rows are locked first, as member changes lock them, so a
 * parallel demotion cannot leave a project without an owner. Audited with the e-mail removed.
 */
export async function removeOperatorAs(ctx: OperatorContext, o: { operatorId: string }): Promise<void> {
  await runCommand(ctx, {
    authorization: accountRule(ctx, { rule: "instanceAdmin", self: { verb: "remove", operatorId: o.operatorId } }),
    action: "operator.remove",
    target: o.operatorId,
    after: (r) => r,
    run: async () => {
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
    },
  });
}

/** The operator ends one of their own sessions (another operator's is NOT_FOUND); not with a token. Audited. */
export async function endSessionAs(ctx: OperatorContext, o: { sessionId: string }): Promise<void> {
  return runCommand(ctx, {
    authorization: accountRule(ctx, { rule: "ownSession" }),
    action: "session.revoke",
    target: o.sessionId,
    run: (me) => revokeOperatorSession({ operatorId: me.id, sessionId: o.sessionId }),
  });
}

/**
 * The operator ends every session of theirs, this one included, and revokes every access token
 * of theirs (what someone does who thinks the account is in other hands); not with a token.
 * Audited with how many ended and were revoked.
 */
export async function signOutEverywhereAs(ctx: OperatorContext): Promise<{ ended: number; revokedTokens: number }> {
  return runCommand(ctx, {
    authorization: accountRule(ctx, { rule: "ownSession" }),
    action: "session.revoke-all",
    after: (r) => r,
    run: async (me) => ({
      ended: await endOperatorSessions({ operatorId: me.id }),
      revokedTokens: await revokeOperatorTokens({ operatorId: me.id }),
    }),
  });
}

/** The caller's dashboard sessions, theirs marked (a dashboard session only). */
export async function listSessionsAs(ctx: OperatorContext) {
  const me = signedIn(ctx);
  assertNotToken(me);
  return listOperatorSessions({ operatorId: me.id, currentSessionId: me.sessionId });
}

/** The caller's access tokens; a call made with a token sees only that token. */
export async function listTokensAs(ctx: OperatorContext) {
  const me = signedIn(ctx);
  return listOperatorTokens({ operatorId: me.id, actingTokenId: me.token?.id });
}

/** What was done with the caller's account outside projects (a dashboard session only), newest first. */
export async function accountActivityAs(ctx: OperatorContext): Promise<AuditEntryDto[]> {
  const me = signedIn(ctx);
  assertNotToken(me);
  return listAccountActivity({ operatorId: me.id, limit: 50 });
}
