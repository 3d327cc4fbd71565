import { type GameApiError, memoryStorage, newIdempotencyKey } from "@game-backend/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestProject } from "@/e2e/support/fixtures";
import { type TcpProxy, tcpProxy } from "@/e2e/support/tcp-proxy";
import { prisma } from "@/server/db";
import { baseUrl, client, gameProject, recordingFetch } from "./support";

/**
 * Crash-safe changes against the real server: the game makes the Idempotency-Key, keeps it with
 * the pending change, and sends it again after a crash; the SDK reports the key it sent.
 */
let project: TestProject;
let proxy: TcpProxy;
beforeAll(async () => {
  project = await gameProject();
  proxy = await tcpProxy(Number(new URL(baseUrl()).port));
});
afterAll(async () => {
  await proxy.cut();
});

const failure = (call: Promise<unknown>): Promise<GameApiError> =>
  call.then(
    () => {
      throw new Error("the call resolved");
    },
    (error: GameApiError) => error,
  );

describe("a game's own idempotencyKey", () => {
  it("a purchase whose answer was lost, sent again with the same key by a restarted client, answers the first result and spends once", async () => {
    const storage = memoryStorage();
    const before = client(project.clientKey, { baseUrl: `http://127.0.0.1:${proxy.port}`, storage });
    const { playerId } = await before.auth.anonymous();
    const key = newIdempotencyKey(); // kept with the pending purchase before the call
    proxy.dropNextResponses(1);
    const lost = await failure(before.economy.purchase("buy-potion", {}, { idempotencyKey: key, retry: false }));
    expect(lost).toMatchObject({ code: "NETWORK_ERROR", idempotencyKey: key });

    const { fetch, log } = recordingFetch();
    const restarted = client(project.clientKey, { fetch, storage });
    const result = await restarted.economy.purchase("buy-potion", {}, { idempotencyKey: key });

    expect(result.balances).toEqual([{ id: "coins", balance: 90 }]);
    expect(result.idempotencyKey).toBe(key);
    expect(log.map((e) => e.idempotencyKey)).toEqual([key]);
    const purchases = await prisma().economyTransaction.count({ where: { projectId: project.projectId, playerId, kind: "PURCHASE" } });
    expect(purchases).toBe(1);
  });

  it("economy.add twice with the same key adds once and answers the first result again", async () => {
    const game = client(project.clientKey, { storage: memoryStorage() });
    await game.auth.anonymous();
    const key = newIdempotencyKey();
    const first = await game.economy.add("coins", 7, { idempotencyKey: key });
    const again = await game.economy.add("coins", 7, { idempotencyKey: key });
    expect(again).toEqual(first);
    expect(await game.economy.currencies()).toEqual([{ id: "coins", name: "Coins", balance: 107 }]);
  });

  it("leaderboards.submit and economy.subtract send the given key as Idempotency-Key", async () => {
    const { fetch, log } = recordingFetch();
    const game = client(project.clientKey, { fetch, storage: memoryStorage() });
    await game.auth.anonymous();
    await game.leaderboards.submit("high", 42, {}, { idempotencyKey: "score-run-17" });
    await game.economy.subtract("coins", 1, { idempotencyKey: "spend-run-17" });
    expect(log.filter((e) => e.method === "POST" && e.path !== "/api/v1/auth/anonymous").map((e) => e.idempotencyKey)).toEqual([
      "score-run-17",
      "spend-run-17",
    ]);
  });

  it("a refused purchase's GameApiError carries the key it sent", async () => {
    const game = client(project.clientKey, { storage: memoryStorage() });
    await game.auth.anonymous();
    const error = await failure(game.economy.purchase("buy-potion", { quantity: 100 }, { idempotencyKey: "too-expensive-1" }));
    expect(error).toMatchObject({ status: 409, code: "INSUFFICIENT_FUNDS", idempotencyKey: "too-expensive-1" });
  });

  it.each(["", "with space", "x".repeat(256), "naïve", "line\n"])(
    "a key the server would refuse (%j) rejects with VALIDATION_ERROR and nothing is sent",
    async (key) => {
      const { fetch, log } = recordingFetch();
      const game = client(project.clientKey, { fetch, storage: memoryStorage() });
      await game.auth.anonymous();
      const error = await failure(game.economy.purchase("buy-potion", {}, { idempotencyKey: key }));
      expect(error).toMatchObject({ status: 400, code: "VALIDATION_ERROR", details: { issues: [{ path: "headers.idempotency-key" }] } });
      expect(log.filter((e) => e.path === "/api/v1/economy/purchase")).toEqual([]);
    },
  );
});

describe("the key the SDK made", () => {
  it("without an idempotencyKey the answer carries the generated key sent, as a property JSON and spreads leave out", async () => {
    const { fetch, log } = recordingFetch();
    const game = client(project.clientKey, { fetch, storage: memoryStorage() });
    await game.auth.anonymous();
    const result = await game.economy.add("coins", 1);
    const sent = log.find((e) => e.path.endsWith("/add"))?.idempotencyKey;
    expect(sent).toMatch(/^[\x21-\x7e]{1,255}$/);
    expect(result.idempotencyKey).toBe(sent);
    expect(Object.keys(result)).not.toContain("idempotencyKey");
    expect(JSON.parse(JSON.stringify(result))).not.toHaveProperty("idempotencyKey");
  });

  it("a call that sends no Idempotency-Key rejects with idempotencyKey null", async () => {
    const game = client(project.clientKey, { storage: memoryStorage() });
    await game.auth.anonymous();
    expect(await failure(game.saves.get("never-written"))).toMatchObject({ code: "SAVE_NOT_FOUND", idempotencyKey: null });
  });

  it("newIdempotencyKey() makes a different key each time, of characters the server accepts", () => {
    const keys = Array.from({ length: 100 }, () => newIdempotencyKey());
    expect(new Set(keys).size).toBe(100);
    for (const key of keys) expect(key).toMatch(/^[\x21-\x7e]{1,255}$/);
  });
});
