import { describe, expect, it } from "vitest";
import { refusalOf } from "./cluster-metrics.mjs";

/** Who may scrape /api/metrics: the launcher decides from the socket's address and the Authorization header. */
const req = (remoteAddress: string, headers: Record<string, string> = {}) => ({ socket: { remoteAddress }, headers });

describe("/api/metrics access", () => {
  it("without METRICS_TOKEN: loopback callers only, judged by the socket, never by X-Forwarded-For", () => {
    expect([refusalOf(req("127.0.0.1"), ""), refusalOf(req("::1"), ""), refusalOf(req("::ffff:127.0.0.1"), "")]).toEqual([
      null,
      null,
      null,
    ]);
    expect(refusalOf(req("192.0.2.7", { "x-forwarded-for": "127.0.0.1" }), "")).toBe("MISSING_TOKEN");
  });

  it("with METRICS_TOKEN: its bearer token from anywhere; none is MISSING_TOKEN, another INVALID_TOKEN, loopback included", () => {
    const token = "s3cret-metrics-token";
    expect(refusalOf(req("192.0.2.7", { authorization: `Bearer ${token}` }), token)).toBeNull();
    expect(refusalOf(req("127.0.0.1"), token)).toBe("MISSING_TOKEN");
    expect(refusalOf(req("127.0.0.1", { authorization: "Bearer s3cret-metrics-tokeX" }), token)).toBe("INVALID_TOKEN");
    expect(refusalOf(req("127.0.0.1", { authorization: `Bearer ${token}x` }), token)).toBe("INVALID_TOKEN");
    expect(refusalOf(req("127.0.0.1", { authorization: `Basic ${token}` }), token)).toBe("MISSING_TOKEN");
  });

  it("(f): without METRICS_TOKEN a loopback socket relayed by a proxy on the same host (a forwarding header as received) is refused", () => {
    const relayed = (name: string) => ({
      socket: { remoteAddress: "127.0.0.1" },
      headers: {},
      rawHeaders: ["Host", "h", name, "203.0.113.7"],
    });
    for (const name of ["X-Forwarded-For", "Forwarded", "X-Real-IP", "Via"])
      expect(refusalOf(relayed(name), ""), name).toBe("MISSING_TOKEN");
    expect(refusalOf({ socket: { remoteAddress: "127.0.0.1" }, headers: {}, rawHeaders: ["Host", "h"] }, "")).toBeNull();
  });
});
