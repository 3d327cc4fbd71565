import { hashPassword } from "../auth/passwords";
import { prisma } from "../db";

export type OperatorDto = { id: string; email: string; name: string };

/** Creates the operator, or resets the password of an existing one with that e-mail. */
export async function upsertOperator(o: {
  email: string;
  name: string;
  password: string;
  isInstanceAdmin?: boolean;
}): Promise<OperatorDto> {
  const email = o.email.trim().toLowerCase();
  const passwordHash = await hashPassword(o.password);
  return prisma().operator.upsert({
    where: { email },
    create: { email, name: o.name, passwordHash, isInstanceAdmin: o.isInstanceAdmin ?? false },
    update: { passwordHash, ...(o.isInstanceAdmin === undefined ? {} : { isInstanceAdmin: o.isInstanceAdmin }) },
    select: { id: true, email: true, name: true },
  });
}
