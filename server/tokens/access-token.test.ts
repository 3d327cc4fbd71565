import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { env } from "../env";
import { verifyAccessToken } from "./access-token";

/** A token expiring at `exp` (seconds since the epoch). */
async function token(exp: number, secret = env().JWT_SECRET): Promise<string> {
  return new SignJWT({ pid: "p", sid: "s" })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject("player")
    .setIssuer(env().JWT_ISSUER)
    .setAudience("game-api")
    .setIssuedAt()
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(secret));
}

describe("access token verification", () => {
  it("a cached verification ends when the token expires", async () => {
    // At least 2 s of life: a token expiring within the current second (exp = now + 1, signed at
    // x.95 s) could expire before a busy machine's first verification (CI saw that once).
    const exp = Math.floor(Date.now() / 1000) + 3;
    const t = await token(exp);
    expect(await verifyAccessToken(t)).toEqual({ playerId: "player", projectId: "p", sessionId: "s" });
    expect(await verifyAccessToken(t)).toEqual({ playerId: "player", projectId: "p", sessionId: "s" });
    // Until just past its expiry, the verification that is cached now must be refused after it.
    await new Promise((r) => setTimeout(r, exp * 1000 - Date.now() + 50));
    await expect(verifyAccessToken(t)).rejects.toMatchObject({ code: "INVALID_TOKEN", details: { reason: "expired" } });
  });

  it("refusals are not cached, and a token signed with another secret never verifies", async () => {
    const forged = await token(Math.floor(Date.now() / 1000) + 60, "another-secret-another-secret-another-secret");
    for (let i = 0; i < 2; i++) await expect(verifyAccessToken(forged)).rejects.toMatchObject({ details: { reason: "signature" } });
  });
});
