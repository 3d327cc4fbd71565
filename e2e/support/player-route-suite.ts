import { beforeAll, describe, expect, it } from "vitest";
import { type ApiOptions, api, expectError } from "./api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "./fixtures";
import { expiredAccessToken, foreignSignedToken, sessionIdOf } from "./tokens";

/**
 * The credential checks every player route shares: no key, bad key, no token, expired,
 * badly signed, malformed, another project's token, a client key sending X-Player-Id, and a
 * server key acting as an unknown player.
 */
export function playerRouteCredentialSuite(route: { method: string; path: string; body?: unknown }): void {
  describe(`${route.method} ${route.path}: credentials`, () => {
    const call = (o: ApiOptions) => api(route.method, route.path, { body: route.body, ...o });
    let project: TestProject;
    let player: TestPlayer;
    beforeAll(async () => {
      project = await makeProject();
      player = await anonymousPlayer(project.clientKey);
    });

    it("no API key → 401 MISSING_API_KEY", async () => {
      expectError(await call({ token: player.accessToken }), 401, "MISSING_API_KEY");
    });

    it("unknown API key → 401 INVALID_API_KEY", async () => {
      expectError(await call({ key: "gb_client_unknown000000000000000000000000", token: player.accessToken }), 401, "INVALID_API_KEY");
    });

    it("no bearer token → 401 MISSING_TOKEN", async () => {
      expectError(await call({ key: project.clientKey }), 401, "MISSING_TOKEN");
    });

    it("expired token → 401 INVALID_TOKEN (expired)", async () => {
      const token = await expiredAccessToken({
        playerId: player.playerId,
        projectId: project.projectId,
        sessionId: sessionIdOf(player.accessToken),
      });
      const res = await call({ key: project.clientKey, token });
      expectError(res, 401, "INVALID_TOKEN");
      expect(res.body).toMatchObject({ error: { details: { reason: "expired" } } });
    });

    it("token signed with another secret → 401 INVALID_TOKEN (signature)", async () => {
      const token = await foreignSignedToken({
        playerId: player.playerId,
        projectId: project.projectId,
        sessionId: sessionIdOf(player.accessToken),
      });
      const res = await call({ key: project.clientKey, token });
      expectError(res, 401, "INVALID_TOKEN");
      expect(res.body).toMatchObject({ error: { details: { reason: "signature" } } });
    });

    it("garbage token → 401 INVALID_TOKEN (malformed)", async () => {
      const res = await call({ key: project.clientKey, token: "not.a.jwt" });
      expectError(res, 401, "INVALID_TOKEN");
      expect(res.body).toMatchObject({ error: { details: { reason: "malformed" } } });
    });

    it("another project's token → 401 INVALID_TOKEN (project)", async () => {
      const other = await makeProject();
      const stranger = await anonymousPlayer(other.clientKey);
      const res = await call({ key: project.clientKey, token: stranger.accessToken });
      expectError(res, 401, "INVALID_TOKEN");
      expect(res.body).toMatchObject({ error: { details: { reason: "project" } } });
    });

    it("client key with X-Player-Id → 403 FORBIDDEN", async () => {
      expectError(await call({ key: project.clientKey, headers: { "X-Player-Id": player.playerId } }), 403, "FORBIDDEN");
    });

    it("server key acting as an unknown or another project's player → 404 PLAYER_NOT_FOUND; a malformed id → 400", async () => {
      const other = await makeProject();
      const stranger = await anonymousPlayer(other.clientKey);
      expectError(await call({ key: project.serverKey, headers: { "X-Player-Id": stranger.playerId } }), 404, "PLAYER_NOT_FOUND");
      const unknown = "01900000-0000-7000-8000-000000000000";
      expectError(await call({ key: project.serverKey, headers: { "X-Player-Id": unknown } }), 404, "PLAYER_NOT_FOUND");
      expectError(await call({ key: project.serverKey, headers: { "X-Player-Id": "not-a-uuid" } }), 400, "VALIDATION_ERROR");
    });
  });
}
