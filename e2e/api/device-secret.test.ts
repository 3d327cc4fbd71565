import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { sha256 } from "@/server/crypto";
import { pool } from "@/server/db";
import { banPlayer } from "@/server/services/players/bans";
import { api, expectError } from "../support/api";
import { makeProject, type TestPlayer, type TestProject } from "../support/fixtures";

/** POST /auth/anonymous with a device secret: the way back for an anonymous player. */
type Session = TestPlayer & { created: boolean };

let project: TestProject;
beforeAll(async () => {
  project = await makeProject();
});

const newSecret = () => randomBytes(32).toString("base64url");
const anonymous = (body?: unknown, key = project.clientKey) =>
  api<Session>("POST", "/api/v1/auth/anonymous", { key, ...(body === undefined ? {} : { body }) });
const refresh = (refreshToken: string) => api<Session>("POST", "/api/v1/auth/refresh", { key: project.clientKey, body: { refreshToken } });
const me = (token: string) => api<{ playerId: string }>("GET", "/api/v1/players/me", { key: project.clientKey, token });
const playersOfProject = async (projectId: string) =>
  (await pool().query<{ n: number }>("SELECT count(*)::int AS n FROM players WHERE project_id = $1", [projectId])).rows[0]?.n;
const credentialsOf = async (playerId: string) =>
  (await pool().query<{ n: number }>("SELECT count(*)::int AS n FROM device_credentials WHERE player_id = $1", [playerId])).rows[0]?.n;

describe("POST /auth/anonymous with a deviceSecret", () => {
  it("the same secret signs in the same player again with a new session (created: false)", async () => {
    const secret = newSecret();
    const first = await anonymous({ deviceSecret: secret });
    expect(first.status).toBe(200);
    expect(first.body.created).toBe(true);
    const second = await anonymous({ deviceSecret: secret });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ playerId: first.body.playerId, created: false });
    expect(second.body.refreshToken).not.toBe(first.body.refreshToken);
    expect((await me(second.body.accessToken)).body.playerId).toBe(first.body.playerId);
  });

  it("a new secret creates a new player", async () => {
    const a = await anonymous({ deviceSecret: newSecret() });
    const b = await anonymous({ deviceSecret: newSecret() });
    expect([a.body.created, b.body.created]).toEqual([true, true]);
    expect(a.body.playerId).not.toBe(b.body.playerId);
  });

  it("stores only the secret's SHA-256", async () => {
    const secret = newSecret();
    const { body } = await anonymous({ deviceSecret: secret });
    const { rows } = await pool().query<{ secret_hash: Buffer }>("SELECT secret_hash FROM device_credentials WHERE player_id = $1", [
      body.playerId,
    ]);
    expect(rows.map((r) => r.secret_hash.toString("hex"))).toEqual([Buffer.from(sha256(secret)).toString("hex")]);
  });

  it("without a body or with {} every call still creates a new player", async () => {
    const a = await anonymous();
    const b = await anonymous({});
    expect([a.status, b.status, a.body.created, b.body.created]).toEqual([200, 200, true, true]);
    expect(a.body.playerId).not.toBe(b.body.playerId);
    expect(await credentialsOf(a.body.playerId)).toBe(0);
  });

  it.each([
    ["42 characters", "A".repeat(42)],
    ["129 characters", "A".repeat(129)],
    ["a '+' (standard base64)", `${"A".repeat(42)}+`],
    ["padding", `${"A".repeat(43)}=`],
    ["a space", `${"A".repeat(42)} `],
    ["a number", 12345],
    ["null", null],
    ["one symbol 43 times (too little randomness)", "a".repeat(43)],
    ["a short word repeated (too little randomness)", "secret".repeat(8)],
  ])("a malformed secret (%s) is 400 VALIDATION_ERROR and creates nobody", async (_, deviceSecret) => {
    const local = await makeProject();
    const res = await anonymous({ deviceSecret }, local.clientKey);
    expectError(res, 400, "VALIDATION_ERROR");
    expect(JSON.stringify(res.body)).toContain("deviceSecret");
    expect(await playersOfProject(local.projectId)).toBe(0);
  });

  it("an unknown field beside the secret is 400 VALIDATION_ERROR", async () => {
    expectError(await anonymous({ deviceSecret: newSecret(), playerId: "x" }), 400, "VALIDATION_ERROR");
  });

  it("ten concurrent sign-ins with one new secret end with one player", async () => {
    const local = await makeProject();
    const secret = newSecret();
    const answers = await Promise.all(Array.from({ length: 10 }, () => anonymous({ deviceSecret: secret }, local.clientKey)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.body.playerId)).size).toBe(1);
    expect(answers.filter((a) => a.body.created)).toHaveLength(1);
    expect(await playersOfProject(local.projectId)).toBe(1);
  });

  it("the same secret in another project is another player", async () => {
    const secret = newSecret();
    const here = await anonymous({ deviceSecret: secret });
    const other = await makeProject();
    const there = await anonymous({ deviceSecret: secret }, other.clientKey);
    expect(there.body.created).toBe(true);
    expect(there.body.playerId).not.toBe(here.body.playerId);
  });

  it("a banned player's secret answers 403 PLAYER_BANNED", async () => {
    const secret = newSecret();
    const { body } = await anonymous({ deviceSecret: secret });
    await banPlayer({ projectId: project.projectId, playerId: body.playerId, reason: "cheating" });
    const res = await anonymous({ deviceSecret: secret });
    expectError(res, 403, "PLAYER_BANNED");
    expect(res.body).toMatchObject({ error: { details: { reason: "cheating", until: null } } });
  });

  it("after reuse detection revoked the session, the secret signs the same player in again", async () => {
    const secret = newSecret();
    const first = await anonymous({ deviceSecret: secret });
    // Device A refreshes; device B, restored from the same copied file, presents the same token later.
    const a = await refresh(first.body.refreshToken);
    expect(a.status).toBe(200);
    // Later than the reuse grace window: as if B started hours afterwards.
    await pool().query("UPDATE refresh_tokens SET used_at = used_at - interval '1 hour' WHERE token_hash = $1", [
      Buffer.from(sha256(first.body.refreshToken)),
    ]);
    expect((await refresh(first.body.refreshToken)).body).toMatchObject({
      error: { code: "INVALID_TOKEN", details: { reason: "revoked" } },
    });
    expect((await refresh(a.body.refreshToken)).status).toBe(401);

    const back = await anonymous({ deviceSecret: secret });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ playerId: first.body.playerId, created: false });
    expect((await me(back.body.accessToken)).body.playerId).toBe(first.body.playerId);
  });

  it("a player that signed up with an e-mail is not signed in by the device secret (409 ACCOUNT_ALREADY_LINKED)", async () => {
    const secret = newSecret();
    const { body } = await anonymous({ deviceSecret: secret });
    const email = `device-${randomBytes(5).toString("hex")}@example.com`;
    const linked = await api<Session>("POST", "/api/v1/auth/email/register", {
      key: project.clientKey,
      token: body.accessToken,
      body: { email, password: "a long and unusual passphrase" },
    });
    expect(linked.body.playerId).toBe(body.playerId);
    expectError(await anonymous({ deviceSecret: secret }), 409, "ACCOUNT_ALREADY_LINKED");
  });

  it("the export says a device credential exists, without the secret or its hash", async () => {
    const secret = newSecret();
    const { body } = await anonymous({ deviceSecret: secret });
    const res = await api<{ deviceCredential: { createdAt: string } | null }>("GET", "/api/v1/players/me/export", {
      key: project.clientKey,
      token: body.accessToken,
    });
    expect(res.body.deviceCredential).toEqual({ createdAt: expect.any(String) });
    expect(res.text).not.toContain(secret);
    expect(res.text).not.toContain(Buffer.from(sha256(secret)).toString("hex"));
    expect(res.text).not.toContain(Buffer.from(sha256(secret)).toString("base64"));
  });

  it("deleting the player removes its secret: the same secret then creates a new player", async () => {
    const secret = newSecret();
    const { body } = await anonymous({ deviceSecret: secret });
    expect((await api("DELETE", "/api/v1/players/me", { key: project.clientKey, token: body.accessToken })).status).toBe(204);
    expect(await credentialsOf(body.playerId)).toBe(0);
    const again = await anonymous({ deviceSecret: secret });
    expect(again.body.created).toBe(true);
    expect(again.body.playerId).not.toBe(body.playerId);
  });
});
