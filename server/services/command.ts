import type { OperatorActor } from "../actor";
import { pool, transaction } from "../db";
import { AppError } from "../errors";
import type { MemberRole } from "../generated/prisma/enums";
import { cappedByToken, inTokenScope, ROLE_RANK, type SessionOperator } from "../identity/operator";
import { auditActorOf, recordAudit } from "./audit";
import { membershipOf } from "./membership";

/**
 * The one way an operator command runs (see docs/architecture.md, "The operator command path"):
 *   1. authorize — the caller's role on the project: instance admins act as owners, a token caps
 *      the role and hides projects outside its scope; not a member is NOT_FOUND, too low a role
 *      FORBIDDEN. Services check it themselves, so a CLI, a job or a test calling them without
 *      tRPC gets the same answer;
 *   2. one transaction: (optionally) a lock on the project's row taken *before* the role is read,
 *      so commands that must not interleave (member changes) also see a demotion that just
 *      committed; the "before" read; the change; the audit row (with the token used, if any);
 *   3. once the transaction has ended (committed or rolled back), before answering: cache
 *      invalidation.
 */
export type OperatorContext = { operator: SessionOperator | null; requestId: string };

/** A project role, or `INSTANCE_ADMIN`: what only the installation's admins may do to a project (its plan). */
export type Minimum = MemberRole | "INSTANCE_ADMIN";

export async function authorize(ctx: OperatorContext, projectId: string, minimum: Minimum): Promise<OperatorActor> {
  const operator = ctx.operator;
  if (!operator) throw new AppError("MISSING_TOKEN", { message: "Sign in first." });
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

export type Command<T, B = unknown> = {
  projectId: string;
  minimum: Minimum;
  /** Lock the project's row first: commands of this kind on one project run one at a time. */
  serialize?: boolean;
  action: string | ((result: T) => string);
  target?: string | ((result: T) => string | undefined);
  /** Read before the change, in its transaction: recorded as the audit row's "before" and handed to `run`. */
  before?: () => Promise<B>;
  run: (actor: OperatorActor, before: B) => Promise<T>;
  /** What the audit row records as "after" (default: nothing). */
  after?: (result: T) => unknown;
  /** The audit row's "before" derived from the result instead of read first (a ledger change: after − the signed change). */
  beforeOf?: (result: T) => unknown;
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

export async function runCommand<T, B = unknown>(ctx: OperatorContext, c: Command<T, B>): Promise<T> {
  try {
    return await inTransaction(ctx, c);
  } finally {
    await c.invalidate?.();
  }
}

function inTransaction<T, B>(ctx: OperatorContext, c: Command<T, B>): Promise<T> {
  return transaction(async () => {
    if (c.serialize) {
      const { rowCount } = await pool().query("SELECT 1 FROM projects WHERE id = $1 FOR UPDATE", [c.projectId]);
      if (rowCount === 0 && /^[0-9a-f-]{36}$/i.test(c.projectId)) throw new AppError("NOT_FOUND", { message: "Project not found." });
    }
    const actor = await authorize(ctx, c.projectId, c.minimum);
    const before = (c.before ? await c.before() : undefined) as B;
    const audit = (result: T | undefined) =>
      recordAudit({
        actor: auditActorOf(actor, ctx.requestId),
        projectId: c.projectId,
        action: typeof c.action === "function" ? c.action(result as T) : c.action,
        target: typeof c.target === "function" ? c.target(result as T) : c.target,
        before: result !== undefined && c.beforeOf ? c.beforeOf(result) : before,
        after: result === undefined ? undefined : c.after?.(result),
      });
    if (c.auditFirst) await audit(undefined);
    const result = await c.run(actor, before);
    if (!c.auditFirst) await audit(result);
    return result;
  });
}
