import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { api, apiRawPath, expectError } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";

/**
 * Keys that a URL would rewrite (`.`, `..`, anything with `/`) are refused everywhere a key is
 * taken, and a dot segment in a raw path never reaches the route its resolution names.
 */
let project: TestProject;
let player: TestPlayer;
beforeAll(async () => {
  project = await makeProject();
  player = await anonymousPlayer(project.clientKey);
});

const as = () => ({ key: project.clientKey, token: player.accessToken });

describe("L3: keys a URL would rewrite", () => {
  it.each(["/api/v1/players/me/data/%2e%2e", "/api/v1/players/me/data/.%2e", "/api/v1/saves/%2e%2e/..%2f"])(
    "L3: a raw DELETE %s does not reach the account deletion route and the account stays",
    async (target) => {
      const res = await apiRawPath("DELETE", target, as());
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(await prisma().player.count({ where: { id: player.playerId } })).toBe(1);
      expect((await api("GET", "/api/v1/players/me", as())).status).toBe(200);
    },
  );

  it.each([".", "..", "a/b"])("L3: a data batch setting or deleting the key %j is 400 VALIDATION_ERROR", async (key) => {
    expectError(
      await api("PATCH", "/api/v1/players/me/data", { ...as(), body: { set: { [key]: { value: 1 } } } }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(await api("PATCH", "/api/v1/players/me/data", { ...as(), body: { delete: [key] } }), 400, "VALIDATION_ERROR");
  });

  it.each(["a%2Fb", "%2F", "a%2F..", "%2E%2E%2Fx"])(
    "L3: a data or save key %s (a '/' once decoded) is 400 VALIDATION_ERROR",
    async (key) => {
      expectError(await api("PUT", `/api/v1/players/me/data/${key}`, { ...as(), body: { value: 1 } }), 400, "VALIDATION_ERROR");
      expectError(await api("PUT", `/api/v1/saves/${key}`, { ...as(), body: { data: 1 } }), 400, "VALIDATION_ERROR");
      expect((await api<unknown[]>("GET", "/api/v1/players/me/data", as())).body).toEqual([]);
    },
  );
});
