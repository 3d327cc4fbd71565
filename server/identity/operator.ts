import type { OperatorActor } from "../actor";
import { AppError } from "../errors";
import type { MemberRole } from "../generated/prisma/enums";

/**
 * Who an operator request is from, on the ground floor: the dashboard session or the access
 * token it came with, and what a token's scope allows. The tRPC edge (server/trpc/init.ts),
 * next-auth, the token and session stores and the services all read these; none of them imports
 * the edge.
 */
export type TokenScope = { id: string; role: MemberRole; projectIds: string[] | null };

/** `sessionId`: the dashboard session the call came with; `token`: the access token instead. */
export type SessionOperator = {
  id: string;
  email: string;
  name: string;
  isInstanceAdmin: boolean;
  sessionId?: string;
  token?: TokenScope;
};

export const ROLE_RANK: Record<MemberRole, number> = { VIEWER: 0, ADMIN: 1, OWNER: 2 };

/** A token scoped to some projects sees nothing else; a session sees every project of its operator. */
export const inTokenScope = (operator: SessionOperator, projectId: string): boolean =>
  !operator.token?.projectIds || operator.token.projectIds.includes(projectId);

/** With a token, the role is the lower of the membership's and the token's. */
export const cappedByToken = (operator: SessionOperator, role: MemberRole): MemberRole =>
  operator.token && ROLE_RANK[operator.token.role] < ROLE_RANK[role] ? operator.token.role : role;

/**
 * The "session" rule: only with a dashboard session, never with an access token (a token cannot
 * mint tokens or end sessions). The tRPC builder and the services both apply it, so a direct call
 * gets the answer the dashboard gets.
 */
export function assertNotToken(operator: SessionOperator): void {
  if (operator.token) throw new AppError("FORBIDDEN", { message: "Sign in to the dashboard to do this." });
}

/**
 * The "unscoped" rule, for operator-level changes (creating a project): a dashboard session, or a
 * token that covers all projects and is not read-only. Applied by the tRPC builder and the services.
 */
export function assertUnscoped(operator: SessionOperator): void {
  const token = operator.token;
  if (token && (token.projectIds || token.role === "VIEWER"))
    throw new AppError("FORBIDDEN", { message: "This needs a signed-in session or an all-projects token with the admin role." });
}

/**
 * Who an audit row names: an operator (with the request and the access token used, null for a
 * dashboard session), a player acting on their own account, or the system (a job). Stored as
 * `operator_id` (null for a player or the system), `request_id` and `token_id`.
 */
export type AuditActor =
  | { kind: "operator"; operatorId: string; requestId?: string; tokenId: string | null }
  | { kind: "player"; playerId: string; requestId?: string }
  | { kind: "system"; requestId?: string };

/** The one maker of an operator's audit actor: from the request's operator, or the actor a project check answered. */
export function auditActor(who: SessionOperator | OperatorActor, requestId?: string): AuditActor {
  return "kind" in who
    ? { kind: "operator", operatorId: who.operatorId, requestId, tokenId: who.tokenId ?? null }
    : { kind: "operator", operatorId: who.id, requestId, tokenId: who.token?.id ?? null };
}
