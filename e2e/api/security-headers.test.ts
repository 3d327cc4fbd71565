import { describe, expect, it } from "vitest";
import { baseUrl } from "../support/api";
import { dedicatedApp } from "../support/dedicated-app";

/**
 * HSTS on dashboard pages (proxy.ts, docs/operating/deployment.md): sent only when the request
 * arrived over HTTPS — directly, or with TRUST_PROXY set, as a TLS-terminating proxy's
 * `X-Forwarded-Proto: https` says. The Playwright server serves plain HTTP without TRUST_PROXY,
 * so these checks run here: the suite's app sets TRUST_PROXY, a dedicated one does not. Without
 * TRUST_PROXY two layers refuse the header: the launcher replaces X-Forwarded-Proto with "http"
 * (server/cli/start.mjs) and proxy.ts ignores it; this checks the product, so either one suffices.
 */
const HSTS = "max-age=31536000; includeSubDomains";

const hstsOf = async (origin: string, headers: Record<string, string> = {}): Promise<string | null> => {
  const res = await fetch(`${origin}/login`, { headers, redirect: "manual" });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'"); // a page, with the page headers
  return res.headers.get("strict-transport-security");
};

describe("HSTS with TRUST_PROXY=true (the suite's app)", () => {
  it("a page requested with X-Forwarded-Proto: https gets Strict-Transport-Security", async () => {
    expect(await hstsOf(baseUrl(), { "X-Forwarded-Proto": "https" })).toBe(HSTS);
  });

  it("a page requested over plain HTTP, or with X-Forwarded-Proto: http, gets none", async () => {
    expect(await hstsOf(baseUrl())).toBeNull();
    expect(await hstsOf(baseUrl(), { "X-Forwarded-Proto": "http" })).toBeNull();
  });
});

describe("HSTS without TRUST_PROXY", () => {
  const app = dedicatedApp({ TRUST_PROXY: "" });

  it("a page requested with X-Forwarded-Proto: https gets none: the header is not believed", async () => {
    expect(await hstsOf(app().baseUrl, { "X-Forwarded-Proto": "https" })).toBeNull();
  });
});
