import { prisma } from "../db";
import { AppError } from "../errors";
import { dummyPasswordHash, verifyPassword } from "../passwords";
import { beginLoginAttempt, checkPassword, passwordConfirmed } from "../ratelimit/login";
import type { SessionOperator } from "./operator";

/**
 * Operator sign-in: e-mail + password (argon2id), under the same failed-login budgets as
 * players (per account and address, per address, per account), counted apart from every
 * project's players. Unknown e-mail and wrong password answer alike and take as long.
 */
export async function verifyOperator(o: { email: string; password: string; ip: string }): Promise<SessionOperator> {
  const email = o.email.trim().toLowerCase();
  const attempt = await beginLoginAttempt({ projectId: "operators", email, ip: o.ip });
  const operator = await prisma().operator.findUnique({
    where: { email },
    select: { id: true, email: true, name: true, passwordHash: true, isInstanceAdmin: true, disabledAt: true },
  });
  const hash = operator?.passwordHash ?? (await dummyPasswordHash());
  const valid = await checkPassword(attempt, (known) => verifyPassword(hash, o.password, known));
  // A disabled operator is answered like a wrong password (no hint that the account exists).
  if (!operator || !valid || operator.disabledAt) throw new AppError("INVALID_CREDENTIALS");
  await passwordConfirmed(attempt);
  return { id: operator.id, email: operator.email, name: operator.name, isInstanceAdmin: operator.isInstanceAdmin };
}

/** next-auth's secret, derived from JWT_SECRET (one secret to configure, separate keys per use). */
export { dashboardSecret } from "./dashboard-secret";
