import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError, ERRORS } from "./errors";
import { parseWith } from "./validation";

describe("a validation error's message", () => {
  it("names the first issue's path and message, and how many more there are", () => {
    const error = new AppError("VALIDATION_ERROR", {
      details: {
        issues: [
          { path: "body.quantity", message: "Expected an integer." },
          { path: "body.x", message: "Unknown field." },
        ],
      },
    });
    expect(error.message).toBe("body.quantity: Expected an integer. (and 1 more in details.issues)");
  });

  it("is the issue alone when there is one, without a path when it has none", () => {
    expect(new AppError("VALIDATION_ERROR", { details: { issues: [{ path: "", message: "Nothing to change." }] } }).message).toBe(
      "Nothing to change.",
    );
  });

  it("keeps a message given by the thrower, and the table's when there are no issues", () => {
    expect(new AppError("VALIDATION_ERROR", { message: "Mine.", details: { issues: [{ path: "a", message: "b" }] } }).message).toBe(
      "Mine.",
    );
    expect(new AppError("VALIDATION_ERROR").message).toBe(ERRORS.VALIDATION_ERROR.message);
  });

  it("from a zod schema names the field that failed", () => {
    const schema = z.strictObject({ quantity: z.number().int() });
    expect(() => parseWith(schema, { quantity: "2" }, "body")).toThrow(/^body\.quantity: /);
  });
});
