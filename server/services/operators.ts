import { auditActorFor, type SessionOperator } from "../auth/operator";
import { endOperatorSessions, revokeOperatorSession } from "../auth/operator-sessions";
import { passwordProblem } from "../auth/password-policy";
import { hashPassword, verifyPassword } from "../auth/passwords";
import { prisma, transaction } from "../db";
import { AppError } from "../errors";
import { validationError } from "../validation";
import { recordAudit } from "./audit";

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
 * session of theirs ends; this one stays. Audited. Answers how many sessions ended.
 */
export async function changeOwnPassword(o: {
  actor: SessionOperator;
  requestId: string;
  currentPassword: string;
  newPassword: string;
}): Promise<{ endedSessions: number }> {
  if (o.actor.token || !o.actor.sessionId) throw new AppError("FORBIDDEN", { message: "Sign in to the dashboard to do this." });
  const row = await prisma().operator.findUnique({ where: { id: o.actor.id }, select: { passwordHash: true, email: true } });
  if (!row || !(await verifyPassword(row.passwordHash, o.currentPassword))) {
    throw validationError([{ path: "input.currentPassword", message: "The current password is wrong." }]);
  }
  const problem = passwordProblem(o.newPassword, row.email);
  if (problem) throw validationError([{ path: "input.newPassword", message: problem }]);
  const passwordHash = await hashPassword(o.newPassword);
  return accountCommand(o, { action: "operator.password", target: o.actor.id, after: (r) => r }, async () => {
    await prisma().operator.update({ where: { id: o.actor.id }, data: { passwordHash }, select: { id: true } });
    return { endedSessions: await endOperatorSessions({ operatorId: o.actor.id, keep: o.actor.sessionId }) };
  });
}

function assertInstanceAdmin(actor: SessionOperator): void {
  if (!actor.isInstanceAdmin) throw new AppError("FORBIDDEN", { message: "Only instance admins may do this." });
}

/** Every operator of the installation (instance admins only). */
export async function listOperators(o: { actor: SessionOperator }): Promise<OperatorListDto[]> {
  assertInstanceAdmin(o.actor);
  const rows = await prisma().operator.findMany({
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
  audit: { action: string; target?: string; after?: (result: T) => unknown },
  run: () => Promise<T>,
): Promise<T> {
  return transaction(async () => {
    const result = await run();
    await recordAudit({
      actor: auditActorFor(o.actor, o.requestId),
      projectId: null,
      action: audit.action,
      target: audit.target,
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
 * reads them). Not oneself (an installation must keep a way in). Audited.
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
    if (o.disabled) await endOperatorSessions({ operatorId: o.operatorId });
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

/** The operator ends one of their own sessions (another operator's is NOT_FOUND). Audited. */
export function endOwnSession(o: { actor: SessionOperator; requestId: string; sessionId: string }): Promise<void> {
  return accountCommand(o, { action: "session.revoke", target: o.sessionId }, () =>
    revokeOperatorSession({ operatorId: o.actor.id, sessionId: o.sessionId }),
  );
}

/** The operator ends every session of theirs, this one included. Audited with how many ended. */
export function signOutEverywhere(o: { actor: SessionOperator; requestId: string }): Promise<{ ended: number }> {
  return accountCommand(o, { action: "session.revoke-all", after: (r) => r }, async () => ({
    ended: await endOperatorSessions({ operatorId: o.actor.id }),
  }));
}
