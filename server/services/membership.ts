import { prisma } from "../db";
import type { MemberRole } from "../generated/prisma/enums";

/** The caller's role on the project; null when not a member. */
export async function membershipOf(o: { operatorId: string; projectId: string }): Promise<MemberRole | null> {
  const row = await prisma().projectMember.findUnique({
    where: { projectId_operatorId: { projectId: o.projectId, operatorId: o.operatorId } },
    select: { role: true },
  });
  return row?.role ?? null;
}
