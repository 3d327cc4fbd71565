import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { ERRORS } from "../errors";
import { clientErrorAnswer, EDGE_ERRORS, guardRequest, OBSERVER_HEADER } from "./edge.mjs";

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

  it("(c): /api/health's observer header: a client's own is dropped; a local probe gets the process's secret, a relayed request none", () => {
    const probe = (remoteAddress: string, rawHeaders: string[]) => {
      const headers: Record<string, string> = { host: "h", [OBSERVER_HEADER]: "forged" };
      const req = {
        method: "GET",
        url: "/api/health",
        httpVersionMajor: 1,
        httpVersionMinor: 1,
        socket: { remoteAddress },
        rawHeaders,
        headers,
      };
      // Nothing is answered on this path: the response is never touched.
      expect(guardRequest(req, {} as ServerResponse<IncomingMessage>)).toBe(false);
      return headers[OBSERVER_HEADER];
    };
    const key = (globalThis as { __gameBackendObserverKey?: string }).__gameBackendObserverKey;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(probe("127.0.0.1", ["Host", "h"])).toBe(key);
    expect(probe("127.0.0.1", ["Host", "h", "X-Forwarded-For", "203.0.113.9"])).toBeUndefined();
    expect(probe("203.0.113.9", ["Host", "h"])).toBeUndefined();
  });
});
