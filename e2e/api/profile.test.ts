import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { type ApiOptions, api, expectError } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";

type Profile = {
  playerId: string;
  displayName: string | null;
  createdAt: string;
  hasEmail?: boolean;
  providers?: string[];
  lastLoginAt?: string | null;
};

let project: TestProject;
let ada: TestPlayer;
let bob: TestPlayer;
const as = (p: TestPlayer): ApiOptions => ({ key: project.clientKey, token: p.accessToken });
const rename = (p: TestPlayer, displayName: unknown) => api<Profile>("PATCH", "/api/v1/players/me", { ...as(p), body: { displayName } });

beforeAll(async () => {
  project = await makeProject();
  ada = await anonymousPlayer(project.clientKey);
  bob = await anonymousPlayer(project.clientKey);
});

describe("GET /players/me and PATCH /players/me", () => {
  it("a new anonymous player has no display name, no e-mail and no providers", async () => {
    const res = await api<Profile>("GET", "/api/v1/players/me", as(ada));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ playerId: ada.playerId, displayName: null, hasEmail: false, providers: [] });
    expect(Date.parse(res.body.createdAt)).not.toBeNaN();
  });

  it("sets the display name trimmed, clears it with null, and the own id works like me", async () => {
    expect((await rename(ada, "  Ada Lovelace  ")).body).toMatchObject({ displayName: "Ada Lovelace", hasEmail: false });
    expect((await api<Profile>("GET", `/api/v1/players/${ada.playerId}`, as(ada))).body).toMatchObject({
      displayName: "Ada Lovelace",
      hasEmail: false,
    });
    expect((await rename(ada, null)).body.displayName).toBeNull();
    expect((await rename(ada, "名前🎮".repeat(6))).body.displayName).toBe("名前🎮".repeat(6)); // 18 code points
    expect((await rename(ada, "Ada")).status).toBe(200);
  });

  it("refuses empty, too long, control characters and wrong types with 400 and keeps the name", async () => {
    for (const bad of ["", "   ", "x".repeat(33), "tab\there", "line\nbreak", "bell\u0007", "nul\u0000", 42, ["Ada"], { n: 1 }]) {
      expectError(await rename(ada, bad), 400, "VALIDATION_ERROR");
    }
    expectError(await api("PATCH", "/api/v1/players/me", { ...as(ada), body: {} }), 400, "VALIDATION_ERROR");
    expectError(
      await api("PATCH", "/api/v1/players/me", { ...as(ada), body: { displayName: "Ada", email: "x@y.z" } }),
      400,
      "VALIDATION_ERROR",
    );
    expect((await rename(ada, "y".repeat(32))).status).toBe(200);
    expect((await api<Profile>("GET", "/api/v1/players/me", as(ada))).body.displayName).toBe("y".repeat(32));
    await rename(ada, "Ada");
  });

  it("refuses bidi overrides and zero-width spaces in a display name with 400 and keeps the name", async () => {
    for (const bad of ["Ada\u202Enoob", "\u2066Ada\u2069", "A\u200Bda"]) expectError(await rename(ada, bad), 400, "VALIDATION_ERROR");
    expect((await api<Profile>("GET", "/api/v1/players/me", as(ada))).body.displayName).toBe("Ada");
  });

  it("an e-mail player sees hasEmail: true, linked providers and lastLoginAt", async () => {
    const email = `p-${randomBytes(4).toString("hex")}@example.com`;
    const reg = await api<TestPlayer>("POST", "/api/v1/auth/email/register", {
      key: project.clientKey,
      body: { email, password: "a long unusual passphrase 7", displayName: "Mail" },
    });
    expect(reg.status).toBe(200);
    await prisma().identity.create({
      data: { projectId: project.projectId, playerId: reg.body.playerId, provider: "steam", subject: email },
    });
    const res = await api<Profile>("GET", "/api/v1/players/me", { key: project.clientKey, token: reg.body.accessToken });
    expect(res.body).toMatchObject({ displayName: "Mail", hasEmail: true, providers: ["steam"] });
    expect(res.body.lastLoginAt).not.toBeNull();
    expect(JSON.stringify(res.body)).not.toContain(email);
    const seenByBob = await api<Profile>("GET", `/api/v1/players/${reg.body.playerId}`, as(bob));
    expect(seenByBob.body).toEqual({ playerId: reg.body.playerId, displayName: "Mail", createdAt: res.body.createdAt });
  });
});

describe("GET /players/{id} and PATCH /players/{id} for someone else", () => {
  it("another player sees only id, display name and creation time", async () => {
    const res = await api<Profile>("GET", `/api/v1/players/${ada.playerId}`, as(bob));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["createdAt", "displayName", "playerId"]);
    expect(res.body.displayName).toBe("Ada");
  });

  it("nobody changes another player's profile (403 FORBIDDEN), the name stays", async () => {
    expectError(await api("PATCH", `/api/v1/players/${ada.playerId}`, { ...as(bob), body: { displayName: "Hacked" } }), 403, "FORBIDDEN");
    expect((await api<Profile>("GET", `/api/v1/players/${ada.playerId}`, as(bob))).body.displayName).toBe("Ada");
  });

  it("a server key with X-Player-Id sees and edits that player's full profile", async () => {
    const server = { key: project.serverKey, headers: { "X-Player-Id": bob.playerId } };
    expect((await api<Profile>("PATCH", "/api/v1/players/me", { ...server, body: { displayName: "Bob" } })).body).toMatchObject({
      playerId: bob.playerId,
      displayName: "Bob",
      hasEmail: false,
    });
  });

  it("another project's player and unknown ids are 404 PLAYER_NOT_FOUND; a malformed id is 400", async () => {
    const other = await makeProject();
    const stranger = await anonymousPlayer(other.clientKey);
    expectError(await api("GET", `/api/v1/players/${stranger.playerId}`, as(ada)), 404, "PLAYER_NOT_FOUND");
    expectError(await api("GET", "/api/v1/players/0196a000-0000-7000-8000-000000000000", as(ada)), 404, "PLAYER_NOT_FOUND");
    expectError(await api("GET", "/api/v1/players/not-a-uuid", as(ada)), 400, "VALIDATION_ERROR");
    expectError(await api("PUT", "/api/v1/players/me", as(ada)), 405, "METHOD_NOT_ALLOWED");
  });
});
