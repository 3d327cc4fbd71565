import { GameApiError, memoryStorage } from "@game-backend/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestProject } from "@/e2e/support/fixtures";
import { type TcpProxy, tcpProxy } from "@/e2e/support/tcp-proxy";
import { pool } from "@/server/db";
import { baseUrl, client, gameProject, recordingFetch, silentServer } from "./support";

/**
 * config.get against the real server: the ETag round trip, the values kept in storage and answered
 * (marked stale) when the server cannot be reached, and the typed getter. The project's keys are
 * written as rows before any player reads them (the server reads definitions on first use).
 */
let project: TestProject;
let proxy: TcpProxy;

async function addConfigKey(projectId: string, key: string, type: string, value: unknown): Promise<void> {
  await pool().query("INSERT INTO remote_config_keys (project_id, key, type, default_value) VALUES ($1, $2, $3, $4::jsonb)", [
    projectId,
    key,
    type,
    JSON.stringify(value),
  ]);
}

beforeAll(async () => {
  project = await gameProject();
  await addConfigKey(project.projectId, "shop.discount", "number", 15);
  await addConfigKey(project.projectId, "motd", "string", "Welcome back");
  await addConfigKey(project.projectId, "event.on", "boolean", true);
  proxy = await tcpProxy(Number(new URL(baseUrl()).port));
});
afterAll(async () => {
  await proxy.cut();
});

const configCalls = (log: ReturnType<typeof recordingFetch>["log"]) => log.filter((e) => e.path === "/api/v1/config");

describe("config.get", () => {
  it("answers the signed-in player's values, assignments and version, not stale", async () => {
    const game = client(project.clientKey, { storage: memoryStorage() });
    await game.auth.anonymous();
    const config = await game.config.get();
    expect(config.values).toMatchObject({ "shop.discount": 15, motd: "Welcome back", "event.on": true });
    expect(config.assignments).toEqual({});
    expect(Number.isInteger(config.version)).toBe(true);
    expect(config.stale).toBe(false);
  });

  it("a second get sends the first answer's ETag as If-None-Match, gets 304 and answers the same values", async () => {
    const { fetch, log } = recordingFetch();
    const game = client(project.clientKey, { fetch, storage: memoryStorage() });
    await game.auth.anonymous();
    const first = await game.config.get();
    const second = await game.config.get();

    const calls = configCalls(log);
    expect(calls.map((e) => e.status)).toEqual([200, 304]);
    expect(calls[0]?.ifNoneMatch).toBeNull();
    expect(calls[0]?.etag).toBeTruthy();
    expect(calls[1]?.ifNoneMatch).toBe(calls[0]?.etag);
    expect(second).toEqual(first);
  });

  it("a client started later on the same storage sends the kept ETag on its first get", async () => {
    const storage = memoryStorage();
    const before = client(project.clientKey, { storage });
    await before.auth.anonymous();
    const first = await before.config.get();

    const { fetch, log } = recordingFetch();
    const after = client(project.clientKey, { fetch, storage });
    const again = await after.config.get();
    expect(configCalls(log).map((e) => e.status)).toEqual([304]);
    expect(again).toEqual(first);
  });

  it("when the server cannot be reached, get answers the values kept in storage, marked stale", async () => {
    const storage = memoryStorage();
    const online = client(project.clientKey, { baseUrl: `http://127.0.0.1:${proxy.port}`, storage });
    await online.auth.anonymous();
    const fresh = await online.config.get();

    await proxy.cut();
    try {
      // A restart without a network: a new client on the same storage.
      const offline = client(project.clientKey, { baseUrl: `http://127.0.0.1:${proxy.port}`, storage, retry: false });
      const kept = await offline.config.get();
      expect(kept.stale).toBe(true);
      expect(kept.values).toEqual(fresh.values);
      expect(kept.version).toBe(fresh.version);
      expect(offline.config.value("shop.discount", 0)).toBe(15);
    } finally {
      await proxy.restore();
    }
  });

  it("a server that never answers within the deadline answers the kept values, marked stale", async () => {
    const storage = memoryStorage();
    const online = client(project.clientKey, { storage });
    await online.auth.anonymous();
    const fresh = await online.config.get();
    const hung = await silentServer();
    try {
      const kept = await client(project.clientKey, { baseUrl: hung.url, storage, deadlineMs: 200 }).config.get();
      expect(kept).toEqual({ ...fresh, stale: true });
    } finally {
      await hung.close();
    }
  });

  it("with nothing kept, an unreachable server rejects with NETWORK_ERROR", async () => {
    const storage = memoryStorage();
    const game = client(project.clientKey, { baseUrl: `http://127.0.0.1:${proxy.port}`, storage });
    await game.auth.anonymous();
    await proxy.cut();
    try {
      const error = await client(project.clientKey, { baseUrl: `http://127.0.0.1:${proxy.port}`, storage, retry: false })
        .config.get()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GameApiError);
      expect(error).toMatchObject({ status: 0, code: "NETWORK_ERROR" });
    } finally {
      await proxy.restore();
    }
  });

  it("values kept for one player are not answered to another player signed in on the same device", async () => {
    const storage = memoryStorage();
    const first = client(project.clientKey, { storage });
    await first.auth.anonymous();
    await first.config.get();
    await first.auth.forgetDevice();
    await first.auth.anonymous();

    const { fetch, log } = recordingFetch();
    const second = client(project.clientKey, { fetch, storage });
    expect(second.config.value("motd", "none")).toBe("none");
    await second.config.get();
    expect(configCalls(log).map((e) => [e.status, e.ifNoneMatch])).toEqual([[200, null]]);
  });
});

describe("config.value", () => {
  it("answers the last values by key, and the fallback for an unknown key or a value of another type", async () => {
    const game = client(project.clientKey, { storage: memoryStorage() });
    await game.auth.anonymous();
    expect(game.config.value("shop.discount", 0)).toBe(0);
    await game.config.get();
    const discount: number = game.config.value("shop.discount", 0);
    expect(discount).toBe(15);
    expect(game.config.value("motd", "")).toBe("Welcome back");
    expect(game.config.value("event.on", false)).toBe(true);
    expect(game.config.value("missing", "fallback")).toBe("fallback");
    expect(game.config.value("motd", 3)).toBe(3);
  });
});

describe("client identification", () => {
  const recorded = async (playerId: string) =>
    (
      await pool().query<{ client_version: string | null; platform: string | null }>(
        "SELECT client_version, platform FROM players WHERE id = $1",
        [playerId],
      )
    ).rows[0];

  it("the clientVersion and platform options are recorded on the player at sign-in and again at refresh", async () => {
    const storage = memoryStorage();
    const game = client(project.clientKey, { storage, clientVersion: "1.4.2", platform: "ios" });
    const { playerId } = await game.auth.anonymous();
    expect(await recorded(playerId)).toEqual({ client_version: "1.4.2", platform: "ios" });

    const updated = client(project.clientKey, { storage, clientVersion: "1.5.0", platform: "ios" });
    await updated.auth.refresh();
    expect(await recorded(playerId)).toEqual({ client_version: "1.5.0", platform: "ios" });
  });
});
