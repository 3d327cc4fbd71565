import { initTRPC, TRPCError } from "@trpc/server";
import type { Logger } from "pino";
import type { z } from "zod";
import { toAppError } from "../error-normalisation";
import { AppError, ERRORS, type ErrorCode } from "../errors";
import type { MemberRole } from "../generated/prisma/enums";
import { assertNotToken, assertUnscoped, inTokenScope, type SessionOperator } from "../identity/operator";
import { logger } from "../log";
import { recordProcedureMetrics } from "../metrics";
import { authorize, type OperatorContext, signedIn } from "../services/command";
import { inSpan } from "../tracing";
import { checkJsonShape, parseWith } from "../validation";

/**
 * The dashboard's tRPC: the same services as the REST API, the same error table (an AppError's
 * code travels in `error.data.code`, its HTTP status and tRPC code from ERRORS), the same input
 * rules (strict schemas, no NUL / unpaired surrogates / `__proto__`, nesting ≤ 64).
 * Procedures: `operatorProcedure` (signed in), `projectProcedure(role)` (membership and role on
 * the input's `projectId`, checked on the server for every call; a project the caller is not
 * a member of is NOT_FOUND, never FORBIDDEN), `instanceAdminProcedure`.
 */
export type { SessionOperator };
/** Resolved by `operatorContext` (server/http/operator-context.ts), as for every operator door. */
export type Context = OperatorContext;

/**
 * tRPC's own refusals of a malformed call (no such procedure, unparsable JSON, a GET on a
 * mutation, a wrong content type): the caller's doing, answered by the error table, not logged
 * as a fault. A procedure's own errors always arrive as an AppError cause (`normalised`).
 */
const TRANSPORT_REFUSALS: ReadonlyMap<string, ErrorCode> = new Map([
  ["NOT_FOUND", "NOT_FOUND"],
  ["PARSE_ERROR", "INVALID_JSON"],
  ["METHOD_NOT_SUPPORTED", "METHOD_NOT_ALLOWED"],
  ["UNSUPPORTED_MEDIA_TYPE", "UNSUPPORTED_MEDIA_TYPE"],
  ["BAD_REQUEST", "VALIDATION_ERROR"],
  ["PAYLOAD_TOO_LARGE", "PAYLOAD_TOO_LARGE"],
]);

function appErrorOf(error: TRPCError, requestId: string): AppError {
  if (error.cause instanceof AppError) return error.cause;
  // An unparsable body surfaces while the procedure reads its input: tRPC wraps JSON.parse's
  // SyntaxError as BAD_REQUEST. A SyntaxError a procedure throws arrives as INTERNAL_SERVER_ERROR.
  if (error.code === "BAD_REQUEST" && error.cause instanceof SyntaxError) return new AppError("INVALID_JSON");
  const refusal = TRANSPORT_REFUSALS.get(error.code);
  if (refusal === "VALIDATION_ERROR") return new AppError(refusal, { message: error.message, details: { issues: [] } });
  if (refusal) return new AppError(refusal, { message: refusal === "NOT_FOUND" ? "No such procedure." : ERRORS[refusal].message });
  return toAppError(error.cause ?? error, requestId);
}

/**
 * Who may call a procedure, declared by the builder it is made from (never by hand), so the role
 * matrix test (e2e/api/role-matrix.test.ts) can call every procedure as every kind of caller and
 * check the answer against it.
 */
export type Access = "public" | "operator" | "session" | "unscoped" | "instanceAdmin" | `project:${"VIEWER" | "ADMIN" | "OWNER"}`;
export type Meta = { access: Access };

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error, ctx }) {
      const app = appErrorOf(error, ctx?.requestId ?? "");
      return {
        ...shape,
        message: app.message,
        data: {
          ...shape.data,
          code: ERRORS[app.code].trpc,
          appCode: app.code,
          details: app.details,
          httpStatus: ERRORS[app.code].status,
          stack: undefined,
        },
      };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Any throw leaves as the AppError it is (or becomes), mapped to tRPC's code by the error table. */
const normalised = t.middleware(async ({ ctx, next }) => {
  const result = await next();
  if (result.ok) return result;
  const app = appErrorOf(result.error, ctx.requestId);
  throw new TRPCError({ code: ERRORS[app.code].trpc, message: app.message, cause: app });
});

/**
 * Every procedure call leaves a Prometheus series, an access line (component "trpc": request id,
 * procedure, type, code, duration, operator id; never the input) and, with tracing on, a span.
 */
const observed = t.middleware(({ ctx, path, type, next }) =>
  inSpan(`trpc ${path}`, { attributes: { "rpc.system": "trpc", "rpc.method": path, "gb.request_id": ctx.requestId } }, async (span) => {
    const started = performance.now();
    const result = await next();
    const code = result.ok ? "" : appErrorOf(result.error, ctx.requestId).code;
    const durationMs = Math.round((performance.now() - started) * 100) / 100;
    recordProcedureMetrics({ procedure: path, type, code, durationMs });
    if (code) span?.setAttribute("gb.error_code", code);
    const line = { requestId: ctx.requestId, procedure: path, type, ...(code ? { code } : {}), durationMs, operatorId: ctx.operator?.id };
    if (code === "INTERNAL_ERROR") trpcLog().error(line, "procedure");
    else trpcLog().info(line, "procedure");
    return result;
  }),
);

let trpcLogger: Logger | undefined;
const trpcLog = () => {
  trpcLogger ??= logger("trpc");
  return trpcLogger;
};

export const publicProcedure = t.procedure.meta({ access: "public" }).use(observed).use(normalised);

/** Signed in, or an operator access token; a call made with a token is audited with its id. */
export const operatorProcedure = publicProcedure.meta({ access: "operator" }).use(({ ctx, next }) => {
  const operator = signedIn(ctx);
  return next({ ctx: { ...ctx, operator } });
});

export const instanceAdminProcedure = operatorProcedure.meta({ access: "instanceAdmin" }).use(async ({ ctx, getRawInput, next }) => {
  if (!ctx.operator.isInstanceAdmin) throw new AppError("FORBIDDEN", { message: "Only instance admins may do this." });
  const raw = (await getRawInput()) as { projectId?: unknown } | undefined;
  if (typeof raw?.projectId === "string" && !inTokenScope(ctx.operator, raw.projectId))
    throw new AppError("NOT_FOUND", { message: "Project not found." });
  return next();
});

/** Operator-level changes a token may make only if it covers all projects and is not read-only (creating a project). */
export const unscopedProcedure = operatorProcedure.meta({ access: "unscoped" }).use(({ ctx, next }) => {
  assertUnscoped(ctx.operator);
  return next();
});

/** Only with a dashboard session, never with a token (a token cannot mint tokens). */
export const sessionProcedure = operatorProcedure.meta({ access: "session" }).use(({ ctx, next }) => {
  assertNotToken(ctx.operator);
  return next();
});

/**
 * Checked on every call: the caller's role on `input.projectId` is at least `minimum`. Instance
 * admins act as owners everywhere. Not a member (or outside the token's projects): NOT_FOUND.
 * With a token the role is the lower of the membership's and the token's.
 */
export function projectProcedure(minimum: MemberRole) {
  return operatorProcedure.meta({ access: `project:${minimum}` }).use(async ({ ctx, getRawInput, next }) => {
    const raw = (await getRawInput()) as { projectId?: unknown } | undefined;
    const projectId = typeof raw?.projectId === "string" ? raw.projectId : "";
    const actor = await authorize(ctx, projectId, minimum);
    return next({ ctx: { ...ctx, actor } });
  });
}

/**
 * tRPC input parser with the REST edge's rules: JSON shape first, then the strict schema. The
 * phantom `_input` / `_output` types let tRPC infer the schema's input (defaults optional) for
 * callers and its output for handlers.
 */
export function input<S extends z.ZodType>(schema: S): ((value: unknown) => z.output<S>) & { _input: z.input<S>; _output: z.output<S> } {
  const parse = (value: unknown): z.output<S> => {
    checkJsonShape(value, "input");
    return parseWith(schema, value, "input");
  };
  return parse as typeof parse & { _input: z.input<S>; _output: z.output<S> };
}
