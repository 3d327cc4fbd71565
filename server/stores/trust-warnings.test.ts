import { describe, expect, it } from "vitest";
import { storeTrustWarnings } from "./trust-warnings";

const real = {
  STORE_GOOGLE_API_URL: "https://androidpublisher.googleapis.com",
  STORE_GOOGLE_TOKEN_URL: "https://oauth2.googleapis.com/token",
  STORE_STEAM_API_URL: "https://partner.steam-api.com",
};

describe("storeTrustWarnings", () => {
  it("says nothing for the real stores", () => {
    expect(storeTrustWarnings(real)).toEqual([]);
  });

  it("names a test Apple root and every store address that is not the store's", () => {
    const warnings = storeTrustWarnings({
      STORE_APPLE_ROOT_CERTIFICATES: "/tmp/root.der",
      STORE_GOOGLE_API_URL: "http://127.0.0.1:4401",
      STORE_GOOGLE_TOKEN_URL: "http://127.0.0.1:4401/token",
      STORE_STEAM_API_URL: "http://127.0.0.1:4402",
    });
    expect(warnings).toHaveLength(4);
    expect(warnings[0]).toMatch(/^STORE_APPLE_ROOT_CERTIFICATES is set: .*\/tmp\/root\.der.*forge purchases/);
    expect(warnings.slice(1).map((w) => w.split(" ")[0])).toEqual([
      "STORE_GOOGLE_API_URL",
      "STORE_GOOGLE_TOKEN_URL",
      "STORE_STEAM_API_URL",
    ]);
  });
});
