import { describe, expect, it } from "vitest";
import { toAppError } from "./error-normalisation";

/** What Prisma 7 with @prisma/adapter-pg throws for a query Postgres refused (seen during a restart). */
function prismaRefusal(message: string, code: string) {
  const adapterError = Object.assign(new Error(message), { name: "DriverAdapterError", cause: { kind: "postgres", code, message } });
  return Object.assign(new Error(`Invalid \`prisma.apiKey.findUnique()\` invocation:\n\nDatabase error. Code: \`${code}\`.`), {
    name: "PrismaClientKnownRequestError",
    code: "P2039",
    meta: { modelName: "ApiKey", driverAdapterError: adapterError },
  });
}

describe("toAppError", () => {
  it("a Prisma error whose driver error is 'the database system is starting up' (57P03) is 503 with Retry-After, not 500", () => {
    const error = toAppError(prismaRefusal("the database system is starting up", "57P03"), "req-1");
    expect(error.code).toBe("SERVICE_UNAVAILABLE");
    expect(error.headers["Retry-After"]).toBe("5");
  });

  it("the Postgres code on meta.driverAdapterError is enough (another message)", () => {
    expect(toAppError(prismaRefusal("terminating connection due to administrator command", "57P01"), "req-2").code).toBe(
      "SERVICE_UNAVAILABLE",
    );
  });

  it("a deadlock or serialization failure (the transaction rolled back whole) is 503 with Retry-After: the same request succeeds again", () => {
    for (const code of ["40P01", "40001"]) {
      const pgError = Object.assign(new Error("deadlock detected"), { code });
      expect(toAppError(pgError, "req-4").code).toBe("SERVICE_UNAVAILABLE");
      expect(toAppError(prismaRefusal("deadlock detected", code), "req-5").code).toBe("SERVICE_UNAVAILABLE");
    }
  });

  it("a statement timeout or a lock wait over lock_timeout (the transaction rolled back) is 503 with Retry-After, not 500", () => {
    for (const [code, message] of [
      ["57014", "canceling statement due to statement timeout"],
      ["55P03", "canceling statement due to lock timeout"],
    ] as const) {
      const error = toAppError(Object.assign(new Error(message), { code }), "req-6");
      expect([error.code, error.headers["Retry-After"]]).toEqual(["SERVICE_UNAVAILABLE", "5"]);
    }
  });

  it("other Prisma errors stay 500", () => {
    expect(toAppError(prismaRefusal("something else", "XX000"), "req-3").code).toBe("INTERNAL_ERROR");
  });
});
