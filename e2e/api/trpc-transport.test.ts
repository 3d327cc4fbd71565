import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { baseUrl } from "../support/api";
import { dedicatedApp } from "../support/dedicated-app";
import { logLine } from "../support/launch.mjs";

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

describe("tRPC transport refusals in the app's log", () => {
  const app = dedicatedApp({});

  // Stops the app (its logger flushes on the way out), so it must stay the only test here.
  it("an unknown procedure, bad JSON, a wrong content type and a GET on a mutation leave no stack trace and at most one line each", async () => {
    const requests: Array<[string, string, RequestInit]> = [
      ["unknown", "nothing.here", json("{}")],
      ["badJson", "members.accept", json("{not json")],
      ["contentType", "members.accept", { method: "POST", headers: { "Content-Type": "text/plain" }, body: "hello" }],
      ["getMutation", "members.accept", {}],
    ];
    const ids: string[] = [];
    const statuses: number[] = [];
    for (const [name, path, init] of requests) {
      const requestId = `transport-${name}-${randomBytes(4).toString("hex")}`;
      ids.push(requestId);
      const res = await fetch(`${app().baseUrl}/api/trpc/${path}`, { ...init, headers: { ...init.headers, "X-Request-Id": requestId } });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses).toEqual([404, 400, 415, 405]);
    // A well-formed call after them must leave its access line: the refusals' lines, if any, were written before it.
    const marker = `transport-marker-${randomBytes(4).toString("hex")}`;
    const input = encodeURIComponent(JSON.stringify({ token: "x".repeat(43) }));
    await (await fetch(`${app().baseUrl}/api/trpc/members.invite?input=${input}`, { headers: { "X-Request-Id": marker } })).arrayBuffer();
    await logLine(app(), "the marker call's access line", (line) => line.requestId === marker);
    await app().stop();
    const lines = app().output().split("\n");
    expect(lines.filter((line) => /^\s+at /.test(line))).toEqual([]);
    expect(lines.filter((line) => /Error:|"level":"error"|"level":50/.test(line))).toEqual([]);
    expect(ids.map((id) => lines.filter((line) => line.includes(id)).length <= 1)).toEqual(ids.map(() => true));
  });
});
