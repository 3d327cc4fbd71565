import { createClient, GameApiError, memoryStorage, SessionEndedError, type SessionStorage } from "@game-backend/client";
import { beforeAll, describe, expect, it } from "vitest";
import type { TestProject } from "@/e2e/support/fixtures";
import { sha256 } from "@/server/crypto";
import { pool } from "@/server/db";
import { baseUrl, client, gameProject, recordingFetch } from "./support";

/** Anonymous players that come back (the device secret), server keys refused, path segments that cannot be rewritten. */
let project: TestProject;
beforeAll(async () => {
  project = await gameProject();
});

const SESSION_KEY = "game-backend.session";

/** A storage whose contents a test can copy, as a backup or a cloud-synced file would. */
function fileStorage(items = new Map<string, string>()): { storage: SessionStorage; items: Map<string, string> } {
  return {
    items,
    storage: {
      getItem: (k) => items.get(k) ?? null,
      setItem: (k, v) => void items.set(k, v),
      removeItem: (k) => void items.delete(k),
    },
  };
}

/** The refresh token presented again later than the server's reuse grace window (as if hours later). */
async function rotatedLongAgo(refreshToken: string): Promise<void> {
  await pool().query("UPDATE refresh_tokens SET used_at = used_at - interval '1 hour' WHERE token_hash = $1", [
    Buffer.from(sha256(refreshToken)),
  ]);
}

describe("recoverable anonymous players", () => {
  it("two clients restored from one copied session store both keep playing as the same player", async () => {
    const a = fileStorage();
    const clientA = client(project.clientKey, { storage: a.storage });
    const first = await clientA.auth.anonymous();

    // Device B starts from a copy of A's file (Steam Cloud, a restored backup), its access token long expired.
    const b = fileStorage(new Map(a.items));
    b.items.set(SESSION_KEY, JSON.stringify({ ...JSON.parse(b.items.get(SESSION_KEY) ?? "{}"), expiresAt: Date.now() - 1_000 }));
    await clientA.auth.refresh();
    await rotatedLongAgo(first.refreshToken);

    // B refreshes with the token A already rotated: reuse detection revokes the session for both.
    const clientB = client(project.clientKey, { storage: b.storage });
    await clientB.data.set("from-b", { device: "b" });
    await clientA.data.set("from-a", { device: "a" });

    expect(clientA.session?.playerId).toBe(first.playerId);
    expect(clientB.session?.playerId).toBe(first.playerId);
    expect((await clientA.data.list()).map((r) => r.key)).toEqual(["from-a", "from-b"]);
    expect((await clientB.players.me()).playerId).toBe(first.playerId);
  });

  it("auth.anonymous() after logout signs the same device's player in again", async () => {
    const game = client(project.clientKey, { storage: memoryStorage() });
    const first = await game.auth.anonymous();
    await game.auth.logout();
    expect((await game.auth.anonymous()).playerId).toBe(first.playerId);
  });

  it("auth.forgetDevice() makes the next auth.anonymous() a new player", async () => {
    const game = client(project.clientKey, { storage: memoryStorage() });
    const first = await game.auth.anonymous();
    await game.auth.logout();
    await game.auth.forgetDevice();
    expect((await game.auth.anonymous()).playerId).not.toBe(first.playerId);
  });

  it("with deviceSecret: false, auth.anonymous() after logout creates a new player", async () => {
    const storage = memoryStorage();
    const game = client(project.clientKey, { storage, deviceSecret: false });
    const first = await game.auth.anonymous();
    await game.auth.logout();
    expect((await game.auth.anonymous()).playerId).not.toBe(first.playerId);
  });

  it("a revoked session the device secret cannot sign in again (the player signed up since) ends after one attempt", async () => {
    const { fetch, log } = recordingFetch();
    const storage = memoryStorage();
    const game = client(project.clientKey, { storage, fetch });
    await game.auth.anonymous();
    const email = `device-${Date.now()}@example.com`;
    const upgraded = await game.auth.register({ email, password: "a long and unusual passphrase" });
    const twin = memoryStorage();
    await twin.setItem(SESSION_KEY, JSON.stringify(upgraded));
    await client(project.clientKey, { storage: twin }).auth.logout();

    await expect(game.players.me()).rejects.toBeInstanceOf(SessionEndedError);
    expect(game.session).toBeNull();
    const after = log.slice(log.findIndex((e) => e.path === "/api/v1/auth/email/register") + 1);
    expect(after.map((e) => `${e.status} ${e.path}`)).toEqual([
      "401 /api/v1/players/me",
      "401 /api/v1/auth/refresh",
      "409 /api/v1/auth/anonymous",
    ]);
  });
});

describe("server keys", () => {
  it("createClient refuses a server key (gb_server_…) with an error that says why", () => {
    expect(() => createClient({ baseUrl: baseUrl(), apiKey: project.serverKey })).toThrow(/server key.*never ship/i);
  });
});

describe("L3: path segments a URL would rewrite", () => {
  it("L3: data.delete('..') rejects with VALIDATION_ERROR without a request and the account stays", async () => {
    const { fetch, log } = recordingFetch();
    const game = client(project.clientKey, { storage: memoryStorage(), fetch });
    const { playerId } = await game.auth.anonymous();
    const error = await game.data.delete("..").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GameApiError);
    expect(error).toMatchObject({ code: "VALIDATION_ERROR" });
    expect(log.filter((e) => e.method === "DELETE")).toEqual([]);
    expect((await game.players.me()).playerId).toBe(playerId);
  });

  it.each([
    ["data.get('.')", (g: ReturnType<typeof client>) => g.data.get(".")],
    ["saves.delete('..')", (g: ReturnType<typeof client>) => g.saves.delete("..")],
    ["saves.put('.')", (g: ReturnType<typeof client>) => g.saves.put(".", 1)],
    ["players.get('..')", (g: ReturnType<typeof client>) => g.players.get("..")],
    ["leaderboards.page('..')", (g: ReturnType<typeof client>) => g.leaderboards.page("..")],
    ["economy.add('')", (g: ReturnType<typeof client>) => g.economy.add("", 1)],
  ])("L3: %s rejects with VALIDATION_ERROR without a request", async (_, call) => {
    const { fetch, log } = recordingFetch();
    const game = client(project.clientKey, { storage: memoryStorage(), fetch });
    await game.auth.anonymous();
    await expect(call(game)).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    expect(log.map((e) => e.path)).toEqual(["/api/v1/auth/anonymous"]);
  });

  it("L3: a key with '/', '?', '#' or '%' is sent as one percent-encoded segment", async () => {
    const { fetch, log } = recordingFetch();
    const game = client(project.clientKey, { storage: memoryStorage(), fetch });
    await game.auth.anonymous();
    await expect(game.data.get("a/b?c#d%")).rejects.toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    expect(log.at(-1)?.path).toBe("/api/v1/players/me/data/a%2Fb%3Fc%23d%25");
  });
});
