import { describe, expect, it } from "vitest";
import { isCrossSite } from "./operator-context";

const request = (headers: Record<string, string>) => ({ method: "GET", headers: new Headers({ host: "dash.studio.test", ...headers }) });

describe("the cross-site rule (isCrossSite)", () => {
  it("a request another site started (Sec-Fetch-Site: cross-site) is cross-site", () => {
    expect(isCrossSite(request({ "sec-fetch-site": "cross-site" }))).toBe(true);
  });

  it("an Origin of another host is cross-site, whatever the method", () => {
    expect(isCrossSite({ ...request({ origin: "https://evil.example" }), method: "POST" })).toBe(true);
    expect(isCrossSite(request({ origin: "https://evil.example" }))).toBe(true);
  });

  it("the same origin, a typed URL (Sec-Fetch-Site: none) and a request without either header are not", () => {
    expect(isCrossSite(request({ "sec-fetch-site": "same-origin", origin: "https://dash.studio.test" }))).toBe(false);
    expect(isCrossSite(request({ "sec-fetch-site": "none" }))).toBe(false);
    expect(isCrossSite(request({}))).toBe(false);
  });

  it("behind a proxy, X-Forwarded-Host is the host the Origin is compared with", () => {
    expect(
      isCrossSite(request({ host: "127.0.0.1:3000", "x-forwarded-host": "dash.studio.test", origin: "https://dash.studio.test" })),
    ).toBe(false);
  });
});
