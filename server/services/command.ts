import type pg from "pg";
import type { OperatorActor, PlayerActor, SystemActor } from "../actor";
import { transaction } from "../db";
import { AppError } from "../errors";
import type { MemberRole } from "../generated/prisma/enums";
import {
  type AuditActor,
  assertNotToken,
  auditActor,
  cappedByToken,
  inTokenScope,
  ROLE_RANK,
  type SessionOperator,
} from "../identity/operator";
import { recordAudit } from "./audit";
import { membershipOf } from "./membership";

/**
 * The one way an audited change runs (see docs/architecture.md, "The operator command path"):
 *   0. `prepare` (timeouts, locks), first in the transaction;
 *   1. authorize — by default the caller's role on the project (other strategies: `accountRule`,
 *      `creator` (projects), `inviteToken` (members), `player`, `system`): instance admins act as owners, a token caps
 *      the role and hides projects outside its scope; not a member is NOT_FOUND, too low a role
 *      FORBIDDEN. Services check it themselves, so a CLI, a job or a test calling them without
 *      tRPC gets the same answer;
 *   2. one transaction: `prepare` first (e.g. `lockProject`: the project's row locked *before* the
 *      role is read, so commands that must not interleave — member changes — also see a demotion
 *      that just committed); the "before" read; the change; the audit row (with the token used, if any);
 *   3. once the transaction has ended (committed or rolled back), before answering: cache
 *      invalidation.
 */
/** `tokenRefused`: a bearer token was presented and is unknown, revoked or expired (server/http/operator-context.ts). */
export type OperatorContext = { operator: SessionOperator | null; requestId: string; tokenRefused?: boolean };

/** A project role, or `INSTANCE_ADMIN`: what only the installation's admins may do to a project (its plan). */
export type Minimum = MemberRole | "INSTANCE_ADMIN";

export async function authorize(ctx: OperatorContext, projectId: string, minimum: Minimum): Promise<OperatorActor> {
  const operator = signedIn(ctx);
  if (minimum === "INSTANCE_ADMIN" && !operator.isInstanceAdmin)
    throw new AppError("FORBIDDEN", { message: "Only instance admins may do this." });
  const member =
    !inTokenScope(operator, projectId) || !/^[0-9a-f-]{36}$/i.test(projectId)
      ? null
      : operator.isInstanceAdmin
        ? "OWNER"
        : await membershipOf({ operatorId: operator.id, projectId });
  const role = member && cappedByToken(operator, member);
  if (!role) throw new AppError("NOT_FOUND", { message: "Project not found." });
  // An instance admin's token with the viewer role reads, and changes no plan.
  const needed = minimum === "INSTANCE_ADMIN" ? "ADMIN" : minimum;
  if (ROLE_RANK[role] < ROLE_RANK[needed]) throw new AppError("FORBIDDEN", { message: `This needs the ${needed.toLowerCase()} role.` });
  return { kind: "operator", projectId, operatorId: operator.id, role, tokenId: operator.token?.id };
}

/**
 * A project read as an operator service: it checks its caller as a command does (`authorize`: a
 * member of the project, viewers and up, within a token's scope; a project the caller cannot see
 * is NOT_FOUND, nobody signed in MISSING_TOKEN), then reads. The functions it wraps take a bare
 * project id because the game API, the exports and the config import share them; only these
 * wrappers are for operators. Each domain's `…As` reads stand beside its commands; tRPC
 * procedures call them, one line each.
 */
export function viewerRead<I extends { projectId: string }, T>(run: (input: I) => Promise<T>) {
  return async (ctx: OperatorContext, input: I): Promise<T> => {
    await authorize(ctx, input.projectId, "VIEWER");
    return run(input);
  };
}

/** Player reads with players' addresses as the caller's role may see them (`mayReadPlayerEmails`: viewers see them masked). */
export function roleRead<I extends { projectId: string; role: MemberRole }, T>(run: (input: I) => Promise<T>) {
  return async (ctx: OperatorContext, input: Omit<I, "role">): Promise<T> => {
    const actor = await authorize(ctx, input.projectId, "VIEWER");
    return run({ ...input, role: actor.role } as I);
  };
}

/** The caller, or the refusal every door gives a call without one. */
export function signedIn(ctx: OperatorContext): SessionOperator {
  if (ctx.tokenRefused) throw new AppError("INVALID_TOKEN", { message: "The access token is unknown, revoked or expired." });
  if (!ctx.operator) throw new AppError("MISSING_TOKEN", { message: "Sign in first." });
  return ctx.operator;
}

/**
 * Who may run a command and whom its audit row names, checked in the command's transaction after
 * `prepare`. `projectId`: the audit row's project (null: an operator's account, or a project the
 * command creates — then `projectIdOf` names it). `audit`: the audit row's actor, unless the
 * command names it from its result (`auditActorOf`: an invite's new operator).
 */
export type Authorization<A> = () => Promise<{ actor: A; projectId: string | null; audit?: AuditActor }>;

/** The default: the caller's role on the project (see `authorize`). */
export const projectRole =
  (ctx: OperatorContext, projectId: string, minimum: Minimum): Authorization<OperatorActor> =>
  async () => {
    const actor = await authorize(ctx, projectId, minimum);
    return { actor, projectId, audit: auditActor(actor, ctx.requestId) };
  };

/**
 * The account rule, for commands on an operator account rather than a project: `own` — any
 * signed-in caller on their own account (a token may revoke itself); `ownSession` — on their own
 * account with a dashboard session, never a token (a token cannot mint tokens or end sessions);
 * `instanceAdmin` — the installation's admins, on operators' accounts (some changes never on their
 * own: an installation must keep a way in).
 */
export type AccountRule =
  | { rule: "own" }
  | { rule: "ownSession" }
  /** `self`: the verb of a change an admin may not make to their own account ("disable"), with its target. */
  | { rule: "instanceAdmin"; self?: { verb: string; operatorId: string } };

export const accountRule =
  (ctx: OperatorContext, a: AccountRule): Authorization<SessionOperator> =>
  async () => {
    const operator = signedIn(ctx);
    if (a.rule === "ownSession") assertNotToken(operator);
    if (a.rule === "instanceAdmin") {
      if (!operator.isInstanceAdmin) throw new AppError("FORBIDDEN", { message: "Only instance admins may do this." });
      if (a.self?.operatorId === operator.id) throw new AppError("FORBIDDEN", { message: `You cannot ${a.self.verb} yourself.` });
    }
    return { actor: operator, projectId: null, audit: auditActor(operator, ctx.requestId) };
  };

/** What no one asked for: a job's change (a failing webhook endpoint turned off). Audited with no operator. */
export const system =
  (projectId: string, requestId?: string): Authorization<SystemActor> =>
  async () => ({ actor: { kind: "system", projectId }, projectId, audit: { kind: "system", requestId } });

/** A player's change to their own account (the actor is checked at the edge and by the service). Audited with no operator. */
export const player =
  (actor: PlayerActor, requestId?: string): Authorization<PlayerActor> =>
  async () => ({ actor, projectId: actor.projectId, audit: { kind: "player", playerId: actor.playerId, requestId } });

/**
 * A `prepare` that locks the project's row before the caller's role is read: commands of this kind
 * on one project run one at a time, and each sees a demotion that just committed (member changes).
 */
export const lockProject =
  (projectId: string) =>
  async (client: pg.PoolClient): Promise<void> => {
    const { rowCount } = await client.query("SELECT 1 FROM projects WHERE id = $1 FOR UPDATE", [projectId]);
    if (rowCount === 0 && /^[0-9a-f-]{36}$/i.test(projectId)) throw new AppError("NOT_FOUND", { message: "Project not found." });
  };

type Who<A> =
  | { authorization: Authorization<A>; projectId?: undefined; minimum?: undefined }
  | { authorization?: undefined; projectId: string; minimum: Minimum };

export type Command<T, B = unknown, A = OperatorActor> = Who<A> & {
  /**
   * First in the transaction, before the caller is checked: statement and lock timeouts, locks
   * that must be taken before the role is read (`lockProject`).
   */
  prepare?: (client: pg.PoolClient) => Promise<void>;
  action: string | ((result: T) => string);
  target?: string | ((result: T) => string | undefined);
  /** Read before the change, in its transaction: recorded as the audit row's "before" and handed to `run`. */
  before?: () => Promise<B>;
  /** `audit`: whom the command's audit row names, for the further rows a command writes (an import's per-definition rows). */
  run: (actor: A, before: B, audit: AuditActor | undefined) => Promise<T>;
  /** What the audit row records as "after" (default: nothing). */
  after?: (result: T) => unknown;
  /** The audit row's "before" derived from the result instead of read first (a ledger change: after − the signed change). */
  beforeOf?: (result: T) => unknown;
  /** The audit row's project from the result (a project the command created). */
  projectIdOf?: (result: T) => string;
  /** The audit row's actor from the result (an invite accepted: the operator it created). */
  auditActorOf?: (result: T) => AuditActor;
  /** Whether the result is audited at all (default: always; an import that changed nothing is not). */
  audited?: (result: T) => boolean;
  /**
   * Write the audit row (with "before" only) before `run`: for a change with an effect outside
   * the database that no rollback undoes (a Redis rank index), so a failing audit write stops it
   * first. `action` and `target` must then not depend on the result.
   */
  auditFirst?: boolean;
  /**
   * Runs once the transaction has ended, committed or not, before the answer is returned: a
   * change that rolled back may still have filled a cache with what it read or wrote.
   */
  invalidate?: () => void | Promise<void>;
};

/**
 * `ctx`: the operator's request (the default authorization, the project role, reads it); null
 * for a command whose `authorization` names its caller otherwise (a player, a job, an invite link).
 */
export async function runCommand<T, B = unknown, A = OperatorActor>(ctx: OperatorContext | null, c: Command<T, B, A>): Promise<T> {
  try {
    return await inTransaction(ctx, c);
  } finally {
    await c.invalidate?.();
  }
}

function authorizationOf<T, B, A>(ctx: OperatorContext | null, c: Command<T, B, A>): Authorization<A> {
  if (c.authorization) return c.authorization;
  if (!ctx) throw new Error("A project command needs the operator's request.");
  // Without `authorization`, A is OperatorActor (the type's default; `Who` admits nothing else).
  return projectRole(ctx, c.projectId, c.minimum) as unknown as Authorization<A>;
}

function inTransaction<T, B, A>(ctx: OperatorContext | null, c: Command<T, B, A>): Promise<T> {
  return transaction(async (client) => {
    await c.prepare?.(client);
    const who = await authorizationOf(ctx, c)();
    const before = (c.before ? await c.before() : undefined) as B;
    const audit = async (result: T | undefined) => {
      if (result !== undefined && c.audited && !c.audited(result)) return;
      const actor = result !== undefined && c.auditActorOf ? c.auditActorOf(result) : who.audit;
      if (!actor) throw new Error(`The command ${String(c.action)} names no audit actor.`);
      await recordAudit({
        actor,
        projectId: result !== undefined && c.projectIdOf ? c.projectIdOf(result) : who.projectId,
        action: typeof c.action === "function" ? c.action(result as T) : c.action,
        target: typeof c.target === "function" ? c.target(result as T) : c.target,
        before: result !== undefined && c.beforeOf ? c.beforeOf(result) : before,
        after: result === undefined ? undefined : c.after?.(result),
      });
    };
    if (c.auditFirst) await audit(undefined);
    const result = await c.run(who.actor, before, who.audit);
    if (!c.auditFirst) await audit(result);
    return result;
  });
}
