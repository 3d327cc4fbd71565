import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { env } from "../env";
import { verifyAccessToken } from "./access-token";

async function token(expSeconds: number, secret = env().JWT_SECRET): Promise<string> {
  return new SignJWT({ pid: "p", sid: "s" })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject("player")
    .setIssuer(env().JWT_ISSUER)
    .setAudience("game-api")
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + expSeconds)
    .sign(new TextEncoder().encode(secret));
}

describe("access token verification", () => {
  it("a cached verification ends when the token expires", async () => {
    const t = await token(1);
    expect(await verifyAccessToken(t)).toEqual({ playerId: "player", projectId: "p", sessionId: "s" });
    expect(await verifyAccessToken(t)).toEqual({ playerId: "player", projectId: "p", sessionId: "s" });
    await new Promise((r) => setTimeout(r, 2_100));
    await expect(verifyAccessToken(t)).rejects.toMatchObject({ code: "INVALID_TOKEN", details: { reason: "expired" } });
  });

  it("refusals are not cached, and a token signed with another secret never verifies", async () => {
    const forged = await token(60, "another-secret-another-secret-another-secret");
    for (let i = 0; i < 2; i++) await expect(verifyAccessToken(forged)).rejects.toMatchObject({ details: { reason: "signature" } });
  });
});
