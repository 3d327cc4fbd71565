import { randomBytes } from "node:crypto";
import { TRPCError } from "@trpc/server";
import { prisma } from "@/server/db";
import { AppError } from "@/server/errors";
import type { MemberRole } from "@/server/generated/prisma/enums";
import type { SessionOperator } from "@/server/identity/operator";
import { upsertOperator } from "@/server/services/operators";
import { appRouter } from "@/server/trpc/router";

/**
 * The operator side's test kit, one copy for every file that calls operator services or
 * procedures in-process: a new operator with roles, the context a service or procedure gets,
 * a tRPC caller, and what a refused call answered.
 */

/** A new operator (a random address; password "a long operator passphrase 9") with `role` on `projectId` (none for null). */
export async function newOperator(role: MemberRole | null, projectId: string): Promise<SessionOperator> {
  return newOperatorWith(role ? [[projectId, role]] : []);
}

/** A new operator with a role on each listed project, optionally an instance admin. */
export async function newOperatorWith(
  roles: Array<[projectId: string, role: MemberRole]>,
  isInstanceAdmin = false,
): Promise<SessionOperator> {
  const email = `op-${randomBytes(4).toString("hex")}@studio.test`;
  const created = await upsertOperator({ email, name: email, password: "a long operator passphrase 9", isInstanceAdmin });
  for (const [projectId, role] of roles) await prisma().projectMember.create({ data: { projectId, operatorId: created.id, role } });
  return { ...created, isInstanceAdmin };
}

/** The context an operator service (`…As(ctx, input)`) or procedure receives: the operator (null: signed out) and a request id. */
export const ctx = (operator: SessionOperator | null, requestId = `req-${randomBytes(3).toString("hex")}`) => ({ operator, requestId });

/** A tRPC caller of the app's router as `operator` (null: signed out). */
export const caller = (operator: SessionOperator | null, requestId?: string) => appRouter.createCaller(ctx(operator, requestId));

/** How a tRPC call was refused: the tRPC code, the app's error code behind it and the message. Fails when it was not refused. */
export async function trpcRefusal(call: Promise<unknown>): Promise<{ code: string; appCode: string; message: string }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof TRPCError)) throw error;
    return { code: error.code, appCode: (error.cause as { code?: string } | undefined)?.code ?? "", message: error.message };
  }
  throw new Error("the call was not refused");
}

/** The app's error code a service call (or a tRPC call, by its cause) was refused with. Fails when it was not refused. */
export async function refusalCode(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    if (error instanceof TRPCError && error.cause instanceof AppError) return error.cause.code;
    throw error;
  }
  throw new Error("the call was not refused");
}
