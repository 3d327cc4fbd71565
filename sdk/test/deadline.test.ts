import { GameApiError, memoryStorage } from "@game-backend/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, gameProject, silentServer } from "./support";

/**
 * One deadline per call over all its attempts and waits. The hung backend is a local server that
 * accepts connections and never answers; deadlines are a few hundred ms, so nothing waits long.
 */
let hung: Awaited<ReturnType<typeof silentServer>>;
let clientKey: string;
beforeAll(async () => {
  hung = await silentServer();
  clientKey = (await gameProject()).clientKey;
});
afterAll(async () => {
  await hung.close();
});

const failure = (call: Promise<unknown>): Promise<GameApiError> =>
  call.then(
    () => {
      throw new Error("the call resolved");
    },
    (error: GameApiError) => error,
  );

describe("a server that never answers", () => {
  it("fails the call with TIMEOUT (status 0) once the client's deadlineMs has passed", async () => {
    const game = client(clientKey, { baseUrl: hung.url, storage: memoryStorage(), deadlineMs: 200 });
    const started = Date.now();
    const error = await failure(game.leaderboards.page("high"));
    expect(error).toBeInstanceOf(GameApiError);
    expect(error).toMatchObject({ status: 0, code: "TIMEOUT", details: { deadlineMs: 200 } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(195);
  });

  it("a call's own deadlineMs overrides the client's", async () => {
    const game = client(clientKey, { baseUrl: hung.url, storage: memoryStorage(), deadlineMs: 60_000 });
    const error = await failure(game.leaderboards.page("high", {}, { deadlineMs: 150 }));
    expect(error).toMatchObject({ code: "TIMEOUT", details: { deadlineMs: 150 } });
  });

  it("the deadline covers the retries too: a read that hangs is sent once, not again after it", async () => {
    const before = hung.connections();
    const game = client(clientKey, { baseUrl: hung.url, storage: memoryStorage(), deadlineMs: 150, retry: { baseDelayMs: 1 } });
    await failure(game.leaderboards.page("high"));
    expect(hung.connections()).toBe(before + 1);
  });

  it("a call cancelled by its signal before the deadline rejects with ABORTED, not TIMEOUT", async () => {
    const game = client(clientKey, { baseUrl: hung.url, storage: memoryStorage(), deadlineMs: 60_000 });
    const controller = new AbortController();
    const call = failure(game.leaderboards.page("high", {}, { signal: controller.signal }));
    setTimeout(() => controller.abort(new Error("player left the screen")), 50);
    expect(await call).toMatchObject({ code: "ABORTED", cause: new Error("player left the screen") });
  });

  it("a purchase that times out carries the Idempotency-Key it sent", async () => {
    const storage = memoryStorage();
    await client(clientKey, { storage }).auth.anonymous();
    const game = client(clientKey, { baseUrl: hung.url, storage, deadlineMs: 150 });
    const error = await failure(game.economy.purchase("buy-potion", {}, { idempotencyKey: "purchase-after-timeout" }));
    expect(error).toMatchObject({ code: "TIMEOUT", idempotencyKey: "purchase-after-timeout" });
  });
});

describe("waits between attempts", () => {
  it("a backoff longer than the time left is not waited: an unreachable server rejects with NETWORK_ERROR, not TIMEOUT", async () => {
    // Port 9 (discard) refuses at once; a 60 s backoff would outlast the call's 1 s.
    const game = client(clientKey, {
      baseUrl: "http://127.0.0.1:9",
      storage: memoryStorage(),
      retry: { baseDelayMs: 60_000, maxDelayMs: 60_000 },
      deadlineMs: 1_000,
    });
    expect(await failure(game.leaderboards.page("high"))).toMatchObject({ code: "NETWORK_ERROR", status: 0 });
  });
});
