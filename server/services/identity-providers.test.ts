import { describe, expect, it } from "vitest";
import { assertJwksUrlAllowed } from "./identity-providers";

const refusal = (url: string) =>
  assertJwksUrlAllowed(url, false).then(
    () => null,
    (error: { code?: string }) => error.code ?? "thrown",
  );

describe("JWKS URLs without private networks allowed", () => {
  it("a public IPv4 or IPv6 address over https is allowed", async () => {
    expect(await refusal("https://203.0.113.10/.well-known/jwks.json")).toBeNull();
    expect(await refusal("https://8.8.8.8/jwks")).toBeNull();
    expect(await refusal("https://[2001:4860:4860::8888]/jwks")).toBeNull();
  });

  it("private, loopback, link-local and IPv4-mapped private addresses and plain http are refused", async () => {
    for (const url of [
      "https://10.1.2.3/jwks",
      "https://127.0.0.1/jwks",
      "https://169.254.169.254/latest",
      "https://[::1]/jwks",
      "https://[::ffff:127.0.0.1]/jwks",
      "https://[::ffff:10.0.0.1]/jwks",
      "https://[fd00::1]/jwks",
      "http://8.8.8.8/jwks",
    ]) {
      expect(await refusal(url), url).toBe("VALIDATION_ERROR");
    }
  });
});
