import type { OperatorActor } from "../actor";
import { cappedByToken, inTokenScope, ROLE_RANK, type SessionOperator } from "../auth/operator";
import { pool, transaction } from "../db";
import { AppError } from "../errors";
import type { MemberRole } from "../generated/prisma/enums";
import { auditActorOf, recordAudit } from "./audit";
import { membershipOf } from "./projects";

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

export async function authorize(ctx: OperatorContext, projectId: string, minimum: MemberRole): Promise<OperatorActor> {
  const operator = ctx.operator;
  if (!operator) throw new AppError("MISSING_TOKEN", { message: "Sign in first." });
  const member =
    !inTokenScope(operator, projectId) || !/^[0-9a-f-]{36}$/i.test(projectId)
      ? null
      : operator.isInstanceAdmin
        ? "OWNER"
        : await membershipOf({ operatorId: operator.id, projectId });
  const role = member && cappedByToken(operator, member);
  if (!role) throw new AppError("NOT_FOUND", { message: "Project not found." });
  if (ROLE_RANK[role] < ROLE_RANK[minimum]) throw new AppError("FORBIDDEN", { message: `This needs the ${minimum.toLowerCase()} role.` });
  return { kind: "operator", projectId, operatorId: operator.id, role, tokenId: operator.token?.id };
}

export type Command<T, B = unknown> = {
  projectId: string;
  minimum: MemberRole;
  /** Lock the project's row first: commands of this kind on one project run one at a time. */
  serialize?: boolean;
  action: string | ((result: T) => string);
  target?: string | ((result: T) => string | undefined);
  /** Read before the change, in its transaction: recorded as the audit row's "before" and handed to `run`. */
  before?: () => Promise<B>;
  run: (actor: OperatorActor, before: B) => Promise<T>;
  /** What the audit row records as "after" (default: nothing). */
  after?: (result: T) => unknown;
  /**
   * Runs once the transaction has ended, committed or not, before the answer is returned: a
   * change that rolled back may still have filled a cache with what it read or wrote.
   */
  invalidate?: () => void;
};

export async function runCommand<T, B = unknown>(ctx: OperatorContext, c: Command<T, B>): Promise<T> {
  try {
    return await inTransaction(ctx, c);
  } finally {
    c.invalidate?.();
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
    const result = await c.run(actor, before);
    await recordAudit({
      actor: auditActorOf(actor, ctx.requestId),
      projectId: c.projectId,
      action: typeof c.action === "function" ? c.action(result) : c.action,
      target: typeof c.target === "function" ? c.target(result) : c.target,
      before,
      after: c.after?.(result),
    });
    return result;
  });
}
