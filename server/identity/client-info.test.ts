import { describe, expect, it } from "vitest";
import { clientInfo, releaseOf, trustedCountryHeader } from "./client-info";

/** What sign-in and refresh record about the client: good values kept, anything else ignored (null), never refused. */
describe("clientInfo", () => {
  const of = (h: Record<string, string>, countryHeader?: string) => clientInfo(new Headers(h), countryHeader);

  it("keeps a build version and a lowercase platform", () => {
    expect(of({ "X-Client-Version": "1.4.2+build.7", "X-Platform": "ios" })).toEqual({
      clientVersion: "1.4.2+build.7",
      platform: "ios",
      country: null,
    });
  });

  it("ignores a version over 32 characters or with other characters, and a platform not lowercase", () => {
    expect(of({ "X-Client-Version": "1".repeat(33), "X-Platform": "iOS" })).toMatchObject({ clientVersion: null, platform: null });
    expect(of({ "X-Client-Version": "1.0 beta", "X-Platform": "web gl" })).toMatchObject({ clientVersion: null, platform: null });
  });

  it("takes the country only from the configured header, upper-cased, and not Cloudflare's unknown XX", () => {
    expect(of({ "cf-ipcountry": "fr" })).toMatchObject({ country: null });
    expect(of({ "cf-ipcountry": "fr" }, "cf-ipcountry")).toMatchObject({ country: "FR" });
    expect(of({ "cf-ipcountry": "XX" }, "cf-ipcountry")).toMatchObject({ country: null });
    expect(of({ "cf-ipcountry": "FRA" }, "cf-ipcountry")).toMatchObject({ country: null });
  });
});

describe("trustedCountryHeader", () => {
  it("is the configured header behind a trusted proxy", () => {
    expect(trustedCountryHeader({ CLIENT_COUNTRY_HEADER: "cf-ipcountry", TRUST_PROXY: true })).toBe("cf-ipcountry");
  });

  it("is none without TRUST_PROXY: the client would choose its own country", () => {
    expect(trustedCountryHeader({ CLIENT_COUNTRY_HEADER: "cf-ipcountry", TRUST_PROXY: false })).toBeUndefined();
  });
});

/** The health view's split by release: the same rules, '' (shown as "unknown") instead of null. */
describe("releaseOf", () => {
  const of = (h: Record<string, string>) => releaseOf(new Headers(h));

  it("keeps a good version and platform, trimmed", () => {
    expect(of({ "X-Client-Version": " 1.4.2+build.7 ", "X-Platform": "android" })).toEqual({
      clientVersion: "1.4.2+build.7",
      platform: "android",
    });
  });

  it("counts absent, too long or malformed values as ''", () => {
    expect(of({})).toEqual({ clientVersion: "", platform: "" });
    expect(of({ "X-Client-Version": "1".repeat(33), "X-Platform": "iOS" })).toEqual({ clientVersion: "", platform: "" });
    expect(of({ "X-Client-Version": "1.0 beta", "X-Platform": "web gl" })).toEqual({ clientVersion: "", platform: "" });
  });
});
