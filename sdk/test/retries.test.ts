import { memoryStorage } from "@game-backend/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dedicatedApp } from "@/e2e/support/dedicated-app";
import type { TestProject } from "@/e2e/support/fixtures";
import { type TcpProxy, tcpProxy } from "@/e2e/support/tcp-proxy";
import { prisma } from "@/server/db";
import { baseUrl, client, gameProject, recordingFetch } from "./support";

/** Retries against the real server: lost answers through a proxy that drops them, and the real limiter's 429s. */
describe("a lost answer", () => {
  let project: TestProject;
  let proxy: TcpProxy;
  beforeAll(async () => {
    project = await gameProject();
    proxy = await tcpProxy(Number(new URL(baseUrl()).port));
  });
  afterAll(async () => {
    await proxy.cut();
  });
  const viaProxy = (extra: Parameters<typeof client>[1] = {}) =>
    client(project.clientKey, { baseUrl: `http://127.0.0.1:${proxy.port}`, ...extra });

  it("a purchase whose answer is dropped is retried with the same Idempotency-Key and spends once", async () => {
    const { fetch, log } = recordingFetch();
    const game = viaProxy({ fetch, storage: memoryStorage(), retry: { baseDelayMs: 10 } });
    const { playerId } = await game.auth.anonymous();
    proxy.dropNextResponses(1);
    const result = await game.economy.purchase("buy-potion");

    expect(result.balances).toEqual([{ id: "coins", balance: 90 }]);
    const attempts = log.filter((e) => e.path === "/api/v1/economy/purchase");
    expect(attempts.map((e) => e.status)).toEqual(["network", 200]);
    expect(attempts[0]?.idempotencyKey).toBeTruthy();
    expect(attempts[1]?.idempotencyKey).toBe(attempts[0]?.idempotencyKey);
    const ledger = await prisma().economyTransaction.findMany({
      where: { projectId: project.projectId, playerId },
      select: { kind: true },
    });
    expect(ledger.filter((t) => t.kind === "PURCHASE")).toHaveLength(1);
    expect(await game.economy.currencies()).toEqual([{ id: "coins", name: "Coins", balance: 90 }]);
  });

  it("a currency add whose answer is dropped is applied once", async () => {
    const game = viaProxy({ storage: memoryStorage(), retry: { baseDelayMs: 10 } });
    await game.auth.anonymous();
    const first = await game.economy.add("coins", 7);
    proxy.dropNextResponses(1);
    const second = await game.economy.add("coins", 7);
    expect(second.balance).toBe(first.balance + 7);
    expect(await game.economy.currencies()).toEqual([{ id: "coins", name: "Coins", balance: first.balance + 7 }]);
  });

  it("a conditional save write whose answer is dropped is not sent again: NETWORK_ERROR, and the write landed once", async () => {
    const { fetch, log } = recordingFetch();
    const game = viaProxy({ fetch, storage: memoryStorage(), retry: { baseDelayMs: 10 } });
    await game.auth.anonymous();
    const first = await game.saves.put("slot", { level: 1 });
    proxy.dropNextResponses(1);
    await expect(game.saves.put("slot", { level: 2 }, { ifVersion: first.version })).rejects.toMatchObject({ code: "NETWORK_ERROR" });
    expect(log.filter((e) => e.method === "PUT").map((e) => e.status)).toEqual([201, "network"]);
    expect(await game.saves.get("slot")).toMatchObject({ version: 2, data: { level: 2 } });
  });

  it("with retries off for the call, a dropped answer rejects with NETWORK_ERROR", async () => {
    const game = viaProxy({ storage: memoryStorage() });
    await game.auth.anonymous();
    proxy.dropNextResponses(1);
    await expect(game.economy.purchase("buy-potion", {}, { retry: false })).rejects.toMatchObject({ code: "NETWORK_ERROR", status: 0 });
  });
});

describe("rate limits", () => {
  it("a 429 whose Retry-After is longer than maxDelayMs rejects at once with RATE_LIMITED and retryAfterSeconds", async () => {
    const project = await gameProject({ customRateLimit: 2 });
    const { fetch, log } = recordingFetch();
    const game = client(project.clientKey, { fetch, storage: memoryStorage(), retry: { maxDelayMs: 100 } });
    const answers = await Promise.allSettled([1, 2, 3].map(() => game.leaderboards.page("high")));
    const refused = answers.find((a) => a.status === "rejected");
    expect(refused?.status === "rejected" && refused.reason).toMatchObject({ status: 429, code: "RATE_LIMITED" });
    expect(refused?.status === "rejected" && refused.reason.retryAfterSeconds).toBeGreaterThan(0);
    expect(log.filter((e) => e.status === 429)).toHaveLength(1);
  });

  describe("with a 2-second window", () => {
    const app = dedicatedApp({ RATE_LIMIT_WINDOW_SECONDS: "2", REDIS_URL: undefined, UPSTASH_REDIS_REST_URL: undefined });

    it("a 429 is retried after its Retry-After and then succeeds", async () => {
      const project = await gameProject({ customRateLimit: 2 });
      const { fetch, log } = recordingFetch();
      const game = client(project.clientKey, { baseUrl: app().baseUrl, fetch, storage: memoryStorage() });
      const pages = await Promise.all([1, 2, 3].map(() => game.leaderboards.page("high")));
      expect(pages.every((p) => p.id === "high")).toBe(true);
      expect(log.map((e) => e.status).sort()).toEqual([200, 200, 200, 429]);
      const limited = log.find((e) => e.status === 429);
      const retry = log.find((e) => e.startedAt >= (limited?.endedAt ?? Number.POSITIVE_INFINITY));
      expect(Number(limited?.retryAfter)).toBeGreaterThan(0);
      // Sent no sooner than the server asked (timer granularity aside).
      expect((retry?.startedAt ?? 0) - (limited?.endedAt ?? 0)).toBeGreaterThanOrEqual(Number(limited?.retryAfter) * 1000 - 5);
    });
  });
});
