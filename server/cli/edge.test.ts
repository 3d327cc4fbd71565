import { describe, expect, it } from "vitest";
import { ERRORS } from "../errors";
import { clientErrorAnswer, EDGE_ERRORS } from "./edge.mjs";

describe("the launcher's own answers", () => {
  it("use codes of the one error table, with the table's statuses", () => {
    for (const [code, status] of Object.entries(EDGE_ERRORS)) {
      expect(Object.hasOwn(ERRORS, code), code).toBe(true);
      expect(ERRORS[code as keyof typeof ERRORS].status, code).toBe(status);
    }
  });

  it("map parser errors to the JSON error codes (431, 408, 405, 400) and stay silent on resets", () => {
    expect(clientErrorAnswer({ code: "HPE_HEADER_OVERFLOW" })).toMatchObject({ status: 431, code: "REQUEST_HEADER_FIELDS_TOO_LARGE" });
    expect(clientErrorAnswer({ code: "ERR_HTTP_REQUEST_TIMEOUT" })).toMatchObject({ status: 408, code: "REQUEST_TIMEOUT" });
    expect(clientErrorAnswer({ code: "HPE_INVALID_METHOD" })).toMatchObject({ status: 405, code: "METHOD_NOT_ALLOWED" });
    expect(clientErrorAnswer({ code: "HPE_UNEXPECTED_CONTENT_LENGTH" })).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    expect(clientErrorAnswer({ code: "ECONNRESET" })).toBeNull();
    expect(clientErrorAnswer({ code: "EPIPE" })).toBeNull();
  });
});
