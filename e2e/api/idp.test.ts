import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { upsertIdentityProvider } from "@/server/services/identity-providers";
import { banPlayer } from "@/server/services/players/bans";
import { api, expectError } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";

/**
 * A real JWKS endpoint on loopback with keys generated here; tokens are signed like a provider
 * (Google, Apple, Auth0…) would sign them.
 */
type Signer = { kid: string; alg: "RS256" | "ES256"; privateKey: CryptoKey; jwk: JWK };

async function signer(kid: string, alg: "RS256" | "ES256"): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

let rsa: Signer;
let ec: Signer;
let stranger: Signer;
let jwksUrl: string;
let jwksHits = 0;
const server = createServer((req, res) => {
  if (req.url === "/broken") {
    res.statusCode = 500;
    return res.end("upstream trouble");
  }
  jwksHits++;
  res.setHeader("Content-Type", "application/json");
  res.end(JSON.stringify({ keys: [rsa.jwk, ec.jwk] }));
});

const ISSUER = "https://accounts.example.test";
const AUDIENCE = "my-game-client-id";
let project: TestProject;

beforeAll(async () => {
  rsa = await signer("rsa-1", "RS256");
  ec = await signer("ec-1", "ES256");
  stranger = await signer("rsa-1", "RS256"); // same kid as the real key, different key material
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  project = await makeProject();
  // The JWKS endpoint lives on loopback here, which production configuration refuses.
  const allowPrivateNetwork = true;
  await upsertIdentityProvider({
    projectId: project.projectId,
    provider: { id: "acme", issuer: ISSUER, jwksUrl, audience: AUDIENCE },
    allowPrivateNetwork,
  });
  await upsertIdentityProvider({
    projectId: project.projectId,
    provider: { id: "acme-rsa-only", issuer: ISSUER, jwksUrl, audience: AUDIENCE, algorithms: ["RS256"] },
    allowPrivateNetwork,
  });
  await upsertIdentityProvider({
    projectId: project.projectId,
    provider: { id: "broken", issuer: ISSUER, jwksUrl: jwksUrl.replace("/jwks.json", "/broken"), audience: AUDIENCE },
    allowPrivateNetwork,
  });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

type Claims = { sub?: string; iss?: string; aud?: string; exp?: number | string };
async function idToken(key: Signer, claims: Claims = {}, kid = key.kid): Promise<string> {
  const jwt = new SignJWT({}).setProtectedHeader({ alg: key.alg, kid, typ: "JWT" }).setIssuedAt();
  jwt.setSubject(claims.sub ?? `user-${Math.random().toString(36).slice(2)}`);
  jwt.setIssuer(claims.iss ?? ISSUER);
  jwt.setAudience(claims.aud ?? AUDIENCE);
  jwt.setExpirationTime(claims.exp ?? "5m");
  return jwt.sign(key.privateKey);
}

type Session = TestPlayer & { created: boolean };
function signIn(body: Record<string, unknown>, token?: string, key = project.clientKey) {
  return api<Session>("POST", "/api/v1/auth/idp", { key, body, token: token ?? null });
}

function expectReason(res: Awaited<ReturnType<typeof signIn>>, reason: string) {
  expectError(res, 401, "INVALID_IDP_TOKEN");
  expect(res.body).toMatchObject({ error: { details: { reason } } });
}

describe("POST /auth/idp", () => {
  it("creates a player for a new (provider, sub) and signs the same player in next time (RS256)", async () => {
    const sub = "google-oauth2|123";
    const first = await signIn({ provider: "acme", token: await idToken(rsa, { sub }) });
    expect(first.status).toBe(200);
    expect(first.body.created).toBe(true);
    const second = await signIn({ provider: "acme", token: await idToken(rsa, { sub }) });
    expect(second.body).toMatchObject({ playerId: first.body.playerId, created: false });
    const identity = await prisma().identity.findFirst({ where: { projectId: project.projectId, provider: "acme", subject: sub } });
    expect(identity?.playerId).toBe(first.body.playerId);
  });

  it("verifies ES256 tokens", async () => {
    const res = await signIn({ provider: "acme", token: await idToken(ec) });
    expect(res.status).toBe(200);
  });

  it("caches the key set instead of fetching it per sign-in", async () => {
    const before = jwksHits;
    for (let i = 0; i < 3; i++) expect((await signIn({ provider: "acme", token: await idToken(rsa) })).status).toBe(200);
    expect(jwksHits - before).toBe(0);
  });

  it("links the identity to the bearer's player", async () => {
    const anon = await anonymousPlayer(project.clientKey);
    const sub = "apple|linked";
    const linked = await signIn({ provider: "acme", token: await idToken(rsa, { sub }) }, anon.accessToken);
    expect(linked.body).toMatchObject({ playerId: anon.playerId, created: false });
    const later = await signIn({ provider: "acme", token: await idToken(rsa, { sub }) });
    expect(later.body.playerId).toBe(anon.playerId);
    const again = await signIn({ provider: "acme", token: await idToken(rsa, { sub }) }, anon.accessToken);
    expect(again.status).toBe(200);
  });

  it("answers 409 ACCOUNT_ALREADY_LINKED when the identity belongs to another player", async () => {
    const sub = "apple|taken";
    const owner = await signIn({ provider: "acme", token: await idToken(rsa, { sub }) });
    expect(owner.status).toBe(200);
    const anon = await anonymousPlayer(project.clientKey);
    expectError(await signIn({ provider: "acme", token: await idToken(rsa, { sub }) }, anon.accessToken), 409, "ACCOUNT_ALREADY_LINKED");
  });

  it("links at most one account per provider to a player", async () => {
    const anon = await anonymousPlayer(project.clientKey);
    expect((await signIn({ provider: "acme", token: await idToken(rsa, { sub: "first-account" }) }, anon.accessToken)).status).toBe(200);
    const second = await signIn({ provider: "acme", token: await idToken(rsa, { sub: "second-account" }) }, anon.accessToken);
    expectError(second, 409, "ACCOUNT_ALREADY_LINKED");
    expect(await prisma().identity.count({ where: { playerId: anon.playerId } })).toBe(1);
    const otherProvider = await signIn(
      { provider: "acme-rsa-only", token: await idToken(rsa, { sub: "second-account" }) },
      anon.accessToken,
    );
    expect(otherProvider.status).toBe(200);
  });

  it("keeps one player for concurrent first sign-ins with the same identity", async () => {
    const sub = "race|1";
    const results = await Promise.all(
      Array.from({ length: 5 }, async () => signIn({ provider: "acme", token: await idToken(rsa, { sub }) })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results.map((r) => r.body.playerId)).size).toBe(1);
    expect(results.filter((r) => r.body.created)).toHaveLength(1);
  });

  it("answers 400 UNKNOWN_PROVIDER for a provider the project does not have", async () => {
    expectError(await signIn({ provider: "nope", token: await idToken(rsa) }), 400, "UNKNOWN_PROVIDER");
    const other = await makeProject();
    expectError(await signIn({ provider: "acme", token: await idToken(rsa) }, undefined, other.clientKey), 400, "UNKNOWN_PROVIDER");
  });

  it("refuses a wrong issuer", async () => {
    expectReason(await signIn({ provider: "acme", token: await idToken(rsa, { iss: "https://evil.test" }) }), "issuer");
  });

  it("refuses a wrong audience", async () => {
    expectReason(await signIn({ provider: "acme", token: await idToken(rsa, { aud: "another-client" }) }), "audience");
  });

  it("refuses an expired token", async () => {
    expectReason(await signIn({ provider: "acme", token: await idToken(rsa, { exp: Math.floor(Date.now() / 1000) - 60 }) }), "expired");
  });

  it("refuses a bad signature (right kid, other key)", async () => {
    expectReason(await signIn({ provider: "acme", token: await idToken(stranger) }), "signature");
  });

  it("refuses an unknown kid", async () => {
    expectReason(await signIn({ provider: "acme", token: await idToken(rsa, {}, "rotated-away") }), "unknown_key");
  });

  it("refuses alg: none", async () => {
    const header = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url");
    const payload = Buffer.from(
      JSON.stringify({ sub: "x", iss: ISSUER, aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + 300 }),
    ).toString("base64url");
    const res = await signIn({ provider: "acme", token: `${header}.${payload}.` });
    expectError(res, 401, "INVALID_IDP_TOKEN");
    expect(["algorithm", "malformed"]).toContain((res.body as unknown as { error: { details: { reason: string } } }).error.details.reason);
  });

  it("refuses an algorithm the provider does not allow", async () => {
    expectReason(await signIn({ provider: "acme-rsa-only", token: await idToken(ec) }), "algorithm");
  });

  it("refuses garbage and validates the body", async () => {
    expectReason(await signIn({ provider: "acme", token: "garbage" }), "malformed");
    expectError(await signIn({ provider: "acme" }), 400, "VALIDATION_ERROR");
    expectError(await signIn({ provider: "acme", token: "x", extra: 1 }), 400, "VALIDATION_ERROR");
  });

  it("answers 503 when the provider's key set cannot be fetched, so the client keeps its token and retries", async () => {
    const res = await signIn({ provider: "broken", token: await idToken(rsa) });
    expectError(res, 503, "SERVICE_UNAVAILABLE");
  });

  it("refuses JWKS URLs that are not https or point at private addresses (production configuration)", async () => {
    const bad = [
      "http://example.com/keys",
      "https://169.254.169.254/keys",
      "https://127.0.0.1/keys",
      "https://10.1.2.3/keys",
      "https://[::1]/keys",
      "https://localhost/keys",
    ];
    for (const jwksUrl of bad) {
      const attempt = upsertIdentityProvider({
        projectId: project.projectId,
        provider: { id: "bad", issuer: ISSUER, jwksUrl, audience: AUDIENCE },
        allowPrivateNetwork: false,
      });
      await expect(attempt, jwksUrl).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    }
  });
});

describe("banned players and identity providers", () => {
  it("a banned player's identity-provider sign-in is refused with 403 PLAYER_BANNED (until, reason)", async () => {
    const sub = `banned-${Math.random().toString(36).slice(2)}`;
    const first = await signIn({ provider: "acme", token: await idToken(rsa, { sub }) });
    expect(first.status).toBe(200);
    const until = new Date(Date.now() + 3_600_000);
    await banPlayer({ projectId: project.projectId, playerId: first.body.playerId, reason: "chargeback", until });
    const again = await signIn({ provider: "acme", token: await idToken(rsa, { sub }) });
    expectError(again, 403, "PLAYER_BANNED");
    expect(again.body).toMatchObject({ error: { details: { until: until.toISOString(), reason: "chargeback" } } });
  });
});
