import { SignJWT } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
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
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a cached verification ends when the token expires", async () => {
    // The cache and the JWT library read Date.now(): a fake clock moves past the expiry without
    // waiting for it, and a busy machine cannot reach the expiry before the first verification.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(1_800_000_000_000);
    const exp = 1_800_000_000 + 3;
    const t = await token(exp);
    expect(await verifyAccessToken(t)).toEqual({ playerId: "player", projectId: "p", sessionId: "s" });
    expect(await verifyAccessToken(t)).toEqual({ playerId: "player", projectId: "p", sessionId: "s" });
    vi.setSystemTime(exp * 1000 - 1_000);
    expect(await verifyAccessToken(t)).toEqual({ playerId: "player", projectId: "p", sessionId: "s" });
    // Just past its expiry, the verification that is cached now must be refused.
    vi.setSystemTime(exp * 1000 + 50);
    await expect(verifyAccessToken(t)).rejects.toMatchObject({ code: "INVALID_TOKEN", details: { reason: "expired" } });
  });

  it("refusals are not cached, and a token signed with another secret never verifies", async () => {
    const forged = await token(Math.floor(Date.now() / 1000) + 60, "another-secret-another-secret-another-secret");
    for (let i = 0; i < 2; i++) await expect(verifyAccessToken(forged)).rejects.toMatchObject({ details: { reason: "signature" } });
  });
});
