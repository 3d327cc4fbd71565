import type { MemberRole } from "./generated/prisma/enums";

/**
 * Who a service call is for, resolved at the edge: the REST edge from the API key and the
 * bearer token (or a server key's X-Player-Id), the dashboard's tRPC procedures from the
 * operator's session and membership. Services take an actor and never see HTTP or tRPC.
 */
export type PlayerActor = {
  kind: "player";
  projectId: string;
  playerId: string;
  /** `server-key`: a studio's game server acting for the player — trusted with server-only writes. */
  via: "token" | "server-key";
};
/** `tokenId`: the operator access token the request came with (audited), none for a dashboard session. */
export type OperatorActor = { kind: "operator"; projectId: string; operatorId: string; role: MemberRole; tokenId?: string };
export type SystemActor = { kind: "system"; projectId: string };
export type Actor = PlayerActor | OperatorActor | SystemActor;

/** May do what game clients may not (protected data, server-only boards and currencies). */
export function isTrusted(actor: Actor): boolean {
  return actor.kind !== "player" || actor.via === "server-key";
}
