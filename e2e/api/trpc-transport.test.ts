import { describe, expect, it } from "vitest";
import { baseUrl } from "../support/api";

/**
 * tRPC's own refusals of malformed calls, reachable without signing in, answer by the error
 * table (status and appCode), not 500: no procedure, unparsable JSON, a GET on a mutation, a
 * wrong content type.
 */
type TrpcError = { error?: { data?: { appCode?: string; httpStatus?: number } } };

async function call(
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; appCode: string | undefined; httpStatus: number | undefined }> {
  const res = await fetch(`${baseUrl()}/api/trpc/${path}`, init);
  const body = (await res.json().catch(() => null)) as TrpcError | null;
  return { status: res.status, appCode: body?.error?.data?.appCode, httpStatus: body?.error?.data?.httpStatus };
}

const json = (body: string): RequestInit => ({ method: "POST", headers: { "Content-Type": "application/json" }, body });

describe("tRPC transport refusals", () => {
  it("an unknown procedure answers 404 NOT_FOUND", async () => {
    expect(await call("nothing.here", json("{}"))).toEqual({ status: 404, appCode: "NOT_FOUND", httpStatus: 404 });
  });

  it("a body that is not JSON answers 400 INVALID_JSON", async () => {
    expect(await call("members.accept", json("{not json"))).toEqual({ status: 400, appCode: "INVALID_JSON", httpStatus: 400 });
  });

  it("a GET on a mutation answers 405 METHOD_NOT_ALLOWED", async () => {
    expect(await call("members.accept")).toEqual({ status: 405, appCode: "METHOD_NOT_ALLOWED", httpStatus: 405 });
  });

  it("a post that is not JSON answers 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    const res = await call("members.accept", { method: "POST", headers: { "Content-Type": "text/plain" }, body: "hello" });
    expect(res).toEqual({ status: 415, appCode: "UNSUPPORTED_MEDIA_TYPE", httpStatus: 415 });
  });
});
