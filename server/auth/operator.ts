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

/** Who an audit row names: the operator, the request, and the access token used (null: a dashboard session). */
export type AuditActor = { operatorId: string; requestId?: string; tokenId?: string | null };

export const auditActorFor = (operator: SessionOperator, requestId: string): AuditActor => ({
  operatorId: operator.id,
  requestId,
  tokenId: operator.token?.id ?? null,
});
