import { describe, expect, it } from "vitest";
import { baseUrl } from "../support/api";

/**
 * What anyone on the internet sees of the instance's own pages: the health report (the suite's
 * app runs with TRUST_PROXY, so a request carrying X-Forwarded-For is one relayed by a proxy, not
 * a local probe) and the API reference's browser security headers.
 */
describe("GET /api/health for an anonymous caller", () => {
  it("(c): a caller relayed by a proxy, without METRICS_TOKEN, gets the status only (no version, no counters)", async () => {
    const res = await fetch(`${baseUrl()}/api/health`, { headers: { "X-Forwarded-For": "203.0.113.9" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("(c): a local probe (loopback, no forwarding header) still gets the full report", async () => {
    const body = (await (await fetch(`${baseUrl()}/api/health`)).json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: "ok", database: { ok: true } });
    expect(body.version).toBeTypeOf("string");
  });
});

describe("the API reference's security headers", () => {
  it.each(["/docs", "/docs/assets/init.js"])(
    "(b): %s is sent with a CSP that forbids framing and inline scripts, X-Frame-Options: DENY and nosniff",
    async (path) => {
      const res = await fetch(`${baseUrl()}${path}`);
      expect(res.status).toBe(200);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/'unsafe-(eval|inline)'[^;]*;?\s*style-src/);
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    },
  );

  it("(b): /docs/guides is sent with X-Frame-Options: DENY and nosniff (its own CSP allows no script)", async () => {
    const res = await fetch(`${baseUrl()}/docs/guides`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
