import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { prisma } from "@/server/db";
import { banPlayer, unbanPlayer } from "@/server/services/players/bans";
import { api, expectError } from "../support/api";
import { dedicatedApp } from "../support/dedicated-app";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";

type Session = TestPlayer & { created: boolean; expiresIn: number; tokenType: string };

let project: TestProject;
beforeAll(async () => {
  project = await makeProject();
});

const email = () => `player-${randomBytes(5).toString("hex")}@example.com`;
const PASSWORD = "correct horse battery";

async function register(body: Record<string, unknown>, token?: string) {
  return api<Session>("POST", "/api/v1/auth/email/register", { key: project.clientKey, body, token: token ?? null });
}
async function login(address: string, password = PASSWORD, ip?: string) {
  return api<Session>("POST", "/api/v1/auth/email/login", {
    key: project.clientKey,
    body: { email: address, password },
    ...(ip ? { ip } : {}),
  });
}
async function refresh(refreshToken: string, key = project.clientKey) {
  return api<Session>("POST", "/api/v1/auth/refresh", { key, body: { refreshToken } });
}
async function logout(token: string) {
  return api("POST", "/api/v1/auth/logout", { key: project.clientKey, token });
}

describe("POST /auth/email/register", () => {
  it("creates a player with an argon2id hash and a normalised e-mail", async () => {
    const address = email();
    const res = await register({ email: `  ${address.toUpperCase()} `, password: PASSWORD, displayName: "Ada" });
    expect(res.status).toBe(200);
    expect(res.body.created).toBe(true);
    const row = await prisma().player.findUniqueOrThrow({
      where: { id: res.body.playerId },
      select: { email: true, passwordHash: true, displayName: true },
    });
    expect(row.email).toBe(address);
    expect(row.displayName).toBe("Ada");
    expect(row.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
  });

  it("answers 409 EMAIL_TAKEN for an e-mail already registered in the project, in any case", async () => {
    const address = email();
    expect((await register({ email: address, password: PASSWORD })).status).toBe(200);
    expectError(await register({ email: address.toUpperCase(), password: PASSWORD }), 409, "EMAIL_TAKEN");
  });

  it("lets the same e-mail register in another project", async () => {
    const address = email();
    expect((await register({ email: address, password: PASSWORD })).status).toBe(200);
    const other = await makeProject();
    const res = await api("POST", "/api/v1/auth/email/register", { key: other.clientKey, body: { email: address, password: PASSWORD } });
    expect(res.status).toBe(200);
  });

  it("refuses common passwords, blank ones and ones built from the e-mail (400 at body.password), creating nothing", async () => {
    for (const password of ["password", "12345678", "PASSWORD1", "        ", "qwertyuiop"]) {
      const address = email();
      const res = await register({ email: address, password });
      expectError(res, 400, "VALIDATION_ERROR");
      expect(res.body).toMatchObject({ error: { details: { issues: [{ path: "body.password" }] } } });
      expect(await prisma().player.count({ where: { email: address } })).toBe(0);
    }
    const address = email();
    expectError(await register({ email: address, password: address }), 400, "VALIDATION_ERROR");
    expectError(await register({ email: address, password: `My${address.split("@")[0]}!` }), 400, "VALIDATION_ERROR");
    expect((await register({ email: address, password: PASSWORD })).status).toBe(200);
  });

  it("validates e-mail, password length and unknown fields", async () => {
    expectError(await register({ email: "not-an-email", password: PASSWORD }), 400, "VALIDATION_ERROR");
    expectError(await register({ email: email(), password: "short" }), 400, "VALIDATION_ERROR");
    expectError(await register({ email: email(), password: "x".repeat(129) }), 400, "VALIDATION_ERROR");
    expectError(await register({ email: email(), password: PASSWORD, role: "admin" }), 400, "VALIDATION_ERROR");
    expectError(await register({ email: 42, password: PASSWORD }), 400, "VALIDATION_ERROR");
    expectError(await register({ email: email(), password: PASSWORD, displayName: "x\u0000" }), 400, "VALIDATION_ERROR");
    expectError(await api("POST", "/api/v1/auth/email/register", { key: project.clientKey, body: "{" }), 400, "INVALID_JSON");
    const boundary = await register({ email: email(), password: "x".repeat(128) });
    expect(boundary.status).toBe(200);
  });

  it("upgrades an anonymous player: same playerId, created false, and login returns that player", async () => {
    const anon = await anonymousPlayer(project.clientKey);
    const address = email();
    const upgraded = await register({ email: address, password: PASSWORD }, anon.accessToken);
    expect(upgraded.status).toBe(200);
    expect(upgraded.body).toMatchObject({ playerId: anon.playerId, created: false });
    const again = await login(address);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ playerId: anon.playerId, created: false });
  });

  it("refuses a second e-mail for a player that has one", async () => {
    const first = await register({ email: email(), password: PASSWORD });
    expectError(await register({ email: email(), password: PASSWORD }, first.body.accessToken), 409, "ACCOUNT_ALREADY_LINKED");
  });

  it("refuses to link with an invalid bearer token instead of creating a new player", async () => {
    const res = await register({ email: email(), password: PASSWORD }, "garbage");
    expectError(res, 401, "INVALID_TOKEN");
  });
});

describe("POST /auth/email/login", () => {
  let address: string;
  let playerId: string;
  beforeAll(async () => {
    address = email();
    playerId = (await register({ email: address, password: PASSWORD })).body.playerId;
  });

  it("signs in with a new session", async () => {
    const res = await login(address.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ playerId, created: false, tokenType: "Bearer" });
    expect(await prisma().session.count({ where: { playerId } })).toBeGreaterThanOrEqual(2);
  });

  it("answers 401 INVALID_CREDENTIALS alike for a wrong password and an unknown e-mail", async () => {
    const wrong = await login(address, "wrong password!");
    const unknown = await login(email());
    expectError(wrong, 401, "INVALID_CREDENTIALS");
    expectError(unknown, 401, "INVALID_CREDENTIALS");
    expect((wrong.body as unknown as { error: unknown }).error).toEqual((unknown.body as unknown as { error: unknown }).error);
  });

  it("does not sign in a player that has an e-mail but no password", async () => {
    const anon = await anonymousPlayer(project.clientKey);
    const address = email();
    await prisma().player.update({ where: { id: anon.playerId }, data: { email: address } });
    expect((await prisma().player.findUniqueOrThrow({ where: { id: anon.playerId } })).passwordHash).toBeNull();
    expectError(await login(address, PASSWORD), 401, "INVALID_CREDENTIALS");
  });
});

/** Moves the session's rotations back past the grace window (10 s by default). */
async function pastGraceWindow(playerId: string): Promise<void> {
  await prisma().refreshToken.updateMany({
    where: { session: { playerId }, usedAt: { not: null } },
    data: { usedAt: new Date(Date.now() - 60_000) },
  });
}

describe("POST /auth/refresh", () => {
  it("rotates: the new tokens work, and the old refresh token stops working once the grace window is over", async () => {
    const anon = await anonymousPlayer(project.clientKey);
    const rotated = await refresh(anon.refreshToken);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ playerId: anon.playerId, created: false });
    expect(rotated.body.refreshToken).not.toBe(anon.refreshToken);
    expect(rotated.body.accessToken).not.toBe(anon.accessToken);
    expect((await api("GET", "/api/v1/saves", { key: project.clientKey, token: rotated.body.accessToken })).status).toBe(200);
    await pastGraceWindow(anon.playerId);
    expect((await refresh(anon.refreshToken)).body).toMatchObject({ error: { code: "INVALID_TOKEN", details: { reason: "revoked" } } });
  });

  it("reuse after the grace window revokes the whole session: newest refresh and access tokens stop working", async () => {
    const anon = await anonymousPlayer(project.clientKey);
    const rotated = await refresh(anon.refreshToken);
    expect(rotated.status).toBe(200);
    // The new access token's session state is now cached by the instance; the revocation must clear it.
    expect((await api("GET", "/api/v1/saves", { key: project.clientKey, token: rotated.body.accessToken })).status).toBe(200);
    await pastGraceWindow(anon.playerId);
    const reused = await refresh(anon.refreshToken);
    expectError(reused, 401, "INVALID_TOKEN");
    expect(reused.body).toMatchObject({ error: { details: { reason: "revoked" } } });
    const newest = await refresh(rotated.body.refreshToken);
    expect(newest.body).toMatchObject({ error: { code: "INVALID_TOKEN", details: { reason: "revoked" } } });
    const withAccess = await logout(rotated.body.accessToken);
    expect(withAccess.body).toMatchObject({ error: { code: "INVALID_TOKEN", details: { reason: "revoked" } } });
  });

  it("a retry within the grace window (a lost response) gets working tokens of the same session and revokes nothing", async () => {
    const anon = await anonymousPlayer(project.clientKey);
    const first = await refresh(anon.refreshToken);
    const retry = await refresh(anon.refreshToken);
    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.body.refreshToken).not.toBe(first.body.refreshToken);
    for (const s of [first.body, retry.body]) {
      expect((await api("GET", "/api/v1/saves", { key: project.clientKey, token: s.accessToken })).status).toBe(200);
      expect((await refresh(s.refreshToken)).status).toBe(200);
    }
    expect(await prisma().session.count({ where: { playerId: anon.playerId, revokedAt: { not: null } } })).toBe(0);
  });

  it("parallel refreshes with one token: one rotation, every caller gets 200 and working tokens, the session lives on", async () => {
    const anon = await anonymousPlayer(project.clientKey);
    const results = await Promise.all(Array.from({ length: 10 }, () => refresh(anon.refreshToken)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const original = await prisma().refreshToken.findMany({ where: { session: { playerId: anon.playerId }, usedAt: { not: null } } });
    expect(original).toHaveLength(1);
    expect(new Set(results.map((r) => r.body.refreshToken)).size).toBe(10);
    expect(new Set(results.map((r) => r.body.accessToken)).size).toBe(10);
    for (const r of results) {
      expect((await api("GET", "/api/v1/saves", { key: project.clientKey, token: r.body.accessToken })).status).toBe(200);
      expect((await refresh(r.body.refreshToken)).status).toBe(200);
    }
    expect(await prisma().session.count({ where: { playerId: anon.playerId, revokedAt: null } })).toBe(1);
  });

  it("refuses unknown tokens and another project's tokens", async () => {
    const unknown = await refresh(`rt_${randomBytes(32).toString("base64url")}`);
    expect(unknown.body).toMatchObject({ error: { code: "INVALID_TOKEN", details: { reason: "malformed" } } });
    const other = await makeProject();
    const stranger = await anonymousPlayer(other.clientKey);
    const cross = await refresh(stranger.refreshToken);
    expect(cross.body).toMatchObject({ error: { code: "INVALID_TOKEN", details: { reason: "project" } } });
    // The refusal did not spend the token in its own project.
    expect((await refresh(stranger.refreshToken, other.clientKey)).status).toBe(200);
  });

  it("refuses an expired session", async () => {
    const anon = await anonymousPlayer(project.clientKey);
    await prisma().session.updateMany({ where: { playerId: anon.playerId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const res = await refresh(anon.refreshToken);
    expect(res.body).toMatchObject({ error: { code: "INVALID_TOKEN", details: { reason: "expired" } } });
  });

  it("access tokens carry a unique jti: two refreshes in the same second never return the same token", async () => {
    const anon = await anonymousPlayer(project.clientKey);
    const a = await refresh(anon.refreshToken);
    const b = await refresh(a.body.refreshToken);
    const jti = (t: string) => JSON.parse(Buffer.from(t.split(".")[1] ?? "", "base64url").toString()).jti as string;
    expect(jti(a.body.accessToken)).toMatch(/^[0-9a-f-]{36}$/);
    expect(jti(a.body.accessToken)).not.toBe(jti(b.body.accessToken));
    expect(a.body.accessToken).not.toBe(b.body.accessToken);
  });

  it("refuses a bearer token whose session is past its end, though the token itself has not expired", async () => {
    const anon = await anonymousPlayer(project.clientKey);
    await prisma().session.updateMany({ where: { playerId: anon.playerId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const res = await api("GET", "/api/v1/saves", { key: project.clientKey, token: anon.accessToken });
    expectError(res, 401, "INVALID_TOKEN");
    expect(res.body).toMatchObject({ error: { details: { reason: "expired" } } });
  });

  it("validates the body", async () => {
    expectError(await api("POST", "/api/v1/auth/refresh", { key: project.clientKey, body: {} }), 400, "VALIDATION_ERROR");
    expectError(await api("POST", "/api/v1/auth/refresh", { key: project.clientKey, body: { refreshToken: 5 } }), 400, "VALIDATION_ERROR");
  });
});

describe("POST /auth/logout", () => {
  it("ends the session: its access and refresh tokens are refused from then on", async () => {
    const anon = await anonymousPlayer(project.clientKey);
    const res = await logout(anon.accessToken);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    const again = await logout(anon.accessToken);
    expect(again.body).toMatchObject({ error: { code: "INVALID_TOKEN", details: { reason: "revoked" } } });
    const refreshed = await refresh(anon.refreshToken);
    expect(refreshed.body).toMatchObject({ error: { code: "INVALID_TOKEN", details: { reason: "revoked" } } });
  });

  it("ends only that session; the player's other sessions go on", async () => {
    const address = email();
    const a = await register({ email: address, password: PASSWORD });
    const b = await login(address);
    expect((await logout(a.body.accessToken)).status).toBe(204);
    expect((await refresh(b.body.refreshToken)).status).toBe(200);
  });

  it("with a server key acting as the player, signs the player out everywhere", async () => {
    const address = email();
    const a = await register({ email: address, password: PASSWORD });
    const b = await login(address);
    const res = await api("POST", "/api/v1/auth/logout", { key: project.serverKey, headers: { "X-Player-Id": a.body.playerId } });
    expect(res.status).toBe(204);
    expect((await refresh(a.body.refreshToken)).status).toBe(401);
    expect((await refresh(b.body.refreshToken)).status).toBe(401);
  });
});

describe("bans", () => {
  it("refuses a banned player on login, refresh and player requests, with until and reason", async () => {
    const address = email();
    const session = await register({ email: address, password: PASSWORD });
    const until = new Date(Date.now() + 3_600_000);
    await banPlayer({ projectId: project.projectId, playerId: session.body.playerId, reason: "cheating", until });
    const loginRes = await login(address);
    expectError(loginRes, 403, "PLAYER_BANNED");
    expect(loginRes.body).toMatchObject({ error: { details: { until: until.toISOString(), reason: "cheating" } } });
    expectError(await refresh(session.body.refreshToken), 403, "PLAYER_BANNED");
    expectError(await logout(session.body.accessToken), 403, "PLAYER_BANNED");
    const acting = await api("POST", "/api/v1/auth/logout", { key: project.serverKey, headers: { "X-Player-Id": session.body.playerId } });
    expectError(acting, 403, "PLAYER_BANNED");
  });

  it("refuses a banned player on the data and save routes, by token and by server key", async () => {
    const anon = await anonymousPlayer(project.clientKey);
    await banPlayer({ projectId: project.projectId, playerId: anon.playerId, reason: "bot" });
    const asPlayer = { key: project.clientKey, token: anon.accessToken };
    const asServer = { key: project.serverKey, headers: { "X-Player-Id": anon.playerId } };
    for (const who of [asPlayer, asServer]) {
      expectError(await api("GET", "/api/v1/players/me/data", who), 403, "PLAYER_BANNED");
      expectError(await api("PUT", "/api/v1/players/me/data/k", { ...who, body: { value: 1 } }), 403, "PLAYER_BANNED");
      expectError(await api("GET", "/api/v1/saves", who), 403, "PLAYER_BANNED");
      expectError(await api("PUT", "/api/v1/saves/slot", { ...who, body: { data: 1 } }), 403, "PLAYER_BANNED");
    }
    expect(await prisma().playerData.count({ where: { playerId: anon.playerId } })).toBe(0);
    expect(await prisma().playerSave.count({ where: { playerId: anon.playerId } })).toBe(0);
  });

  it("a ban ends the sessions; after unban the player signs in again", async () => {
    const address = email();
    const session = await register({ email: address, password: PASSWORD });
    await banPlayer({ projectId: project.projectId, playerId: session.body.playerId, reason: "abuse" });
    const banned = await login(address);
    expect(banned.body).toMatchObject({ error: { code: "PLAYER_BANNED", details: { until: null, reason: "abuse" } } });
    await unbanPlayer({ projectId: project.projectId, playerId: session.body.playerId });
    expect((await refresh(session.body.refreshToken)).body).toMatchObject({
      error: { code: "INVALID_TOKEN", details: { reason: "revoked" } },
    });
    expect((await login(address)).status).toBe(200);
  });

  it("an expired ban no longer applies", async () => {
    const address = email();
    const session = await register({ email: address, password: PASSWORD });
    await prisma().player.update({
      where: { id: session.body.playerId },
      data: { bannedAt: new Date(Date.now() - 7_200_000), bannedUntil: new Date(Date.now() - 3_600_000), banReason: "old" },
    });
    expect((await login(address)).status).toBe(200);
  });

  it("cannot ban another project's player", async () => {
    const other = await makeProject();
    const stranger = await anonymousPlayer(other.clientKey);
    await expect(banPlayer({ projectId: project.projectId, playerId: stranger.playerId, reason: "x" })).rejects.toMatchObject({
      code: "PLAYER_NOT_FOUND",
    });
  });
});

describe("REFRESH_REUSE_GRACE_SECONDS=0 (strict rotation)", () => {
  const app = dedicatedApp({ REFRESH_REUSE_GRACE_SECONDS: "0" });

  it("an immediate second use of a rotated token revokes the session", async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${app().baseUrl}${path}`, {
        method: "POST",
        headers: { "X-API-Key": project.clientKey, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    const anon = (await (await post("/api/v1/auth/anonymous", {})).json()) as TestPlayer;
    const first = await post("/api/v1/auth/refresh", { refreshToken: anon.refreshToken });
    expect(first.status).toBe(200);
    const second = await post("/api/v1/auth/refresh", { refreshToken: anon.refreshToken });
    expect(second.status).toBe(401);
    expect(await second.json()).toMatchObject({ error: { code: "INVALID_TOKEN", details: { reason: "revoked" } } });
    expect(await prisma().session.count({ where: { playerId: anon.playerId, revokedAt: { not: null } } })).toBe(1);
  });
});

describe("revocation timing (sessions are cached per instance for SESSION_CACHE_TTL_SECONDS, shortened for the suite)", () => {
  const saves = (token: string) => api("GET", "/api/v1/saves", { key: project.clientKey, token });

  it("logout takes effect at once on the instance that handled it, for a token it had cached", async () => {
    const anon = await anonymousPlayer(project.clientKey);
    expect((await saves(anon.accessToken)).status).toBe(200);
    expect((await logout(anon.accessToken)).status).toBe(204);
    expect((await saves(anon.accessToken)).body).toMatchObject({ error: { code: "INVALID_TOKEN", details: { reason: "revoked" } } });
  });

  it("a server key signing a player out everywhere takes effect at once for every cached session", async () => {
    const address = email();
    const first = await register({ email: address, password: PASSWORD });
    const second = await login(address);
    for (const s of [first.body, second.body]) expect((await saves(s.accessToken)).status).toBe(200);
    const out = await api("POST", "/api/v1/auth/logout", { key: project.serverKey, headers: { "X-Player-Id": first.body.playerId } });
    expect(out.status).toBe(204);
    for (const s of [first.body, second.body]) expectError(await saves(s.accessToken), 401, "INVALID_TOKEN");
  });

  it("a ban made by another instance reaches this one within the TTL", async () => {
    const anon = await anonymousPlayer(project.clientKey);
    expect((await saves(anon.accessToken)).status).toBe(200);
    // The test process is "another instance": with REDIS_URL its ban is published and heard at once;
    // without, the app's entry has to expire. Either way within the TTL.
    await banPlayer({ projectId: project.projectId, playerId: anon.playerId, reason: "elsewhere" });
    const ttlMs = inject("sessionCacheTtlMs");
    const started = Date.now();
    let status = 200;
    while (status !== 403 && Date.now() - started < ttlMs + 2_000) {
      status = (await saves(anon.accessToken)).status;
      if (status !== 403) await new Promise((r) => setTimeout(r, 25));
    }
    expect(status).toBe(403);
    // The entry the first read cached expires after the TTL; slack for a busy machine.
    expect(Date.now() - started).toBeLessThanOrEqual(ttlMs + 500);
  });
});
