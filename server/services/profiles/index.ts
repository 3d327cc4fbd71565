import type { PlayerActor } from "../../actor";
import { prisma } from "../../db";
import { AppError } from "../../errors";
import type { OwnProfile, PublicProfile } from "./schemas";

/**
 * Player profiles. Other players see id, display name and creation time; the owner (or a server
 * key acting as the player) also sees whether an e-mail is set, linked providers and the last
 * sign-in — never the e-mail itself through this API.
 */
const ownSelect = {
  id: true,
  displayName: true,
  createdAt: true,
  lastLoginAt: true,
  email: true,
  emailVerifiedAt: true,
  identities: { select: { provider: true }, orderBy: { provider: "asc" } },
} as const;

type OwnRow = {
  id: string;
  displayName: string | null;
  createdAt: Date;
  lastLoginAt: Date | null;
  email: string | null;
  emailVerifiedAt: Date | null;
  identities: { provider: string }[];
};

function toOwn(r: OwnRow): OwnProfile {
  return {
    playerId: r.id,
    displayName: r.displayName,
    createdAt: r.createdAt.toISOString(),
    hasEmail: r.email !== null,
    emailVerified: r.email !== null && r.emailVerifiedAt !== null,
    providers: r.identities.map((i) => i.provider),
    lastLoginAt: r.lastLoginAt ? r.lastLoginAt.toISOString() : null,
  };
}

/** The caller's own profile when `playerId` is theirs, else the public view of a player of the project. */
export async function getProfile(o: { actor: PlayerActor; playerId: string }): Promise<OwnProfile | PublicProfile> {
  if (o.playerId === o.actor.playerId) {
    const row = await prisma().player.findFirst({ where: { id: o.playerId, projectId: o.actor.projectId }, select: ownSelect });
    if (!row) throw new AppError("PLAYER_NOT_FOUND");
    return toOwn(row);
  }
  const row = await prisma().player.findFirst({
    where: { id: o.playerId, projectId: o.actor.projectId },
    select: { id: true, displayName: true, createdAt: true },
  });
  if (!row) throw new AppError("PLAYER_NOT_FOUND");
  return { playerId: row.id, displayName: row.displayName, createdAt: row.createdAt.toISOString() };
}

/** Sets (or with null clears) the caller's display name. */
export async function updateProfile(o: { actor: PlayerActor; playerId: string; displayName: string | null }): Promise<OwnProfile> {
  if (o.playerId !== o.actor.playerId) throw new AppError("FORBIDDEN", { message: "Players change only their own profile." });
  const { count } = await prisma().player.updateMany({
    where: { id: o.playerId, projectId: o.actor.projectId },
    data: { displayName: o.displayName },
  });
  if (count === 0) throw new AppError("PLAYER_NOT_FOUND");
  return (await getProfile({ actor: o.actor, playerId: o.playerId })) as OwnProfile;
}
