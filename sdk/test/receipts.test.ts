import { GameApiError, memoryStorage, type ReceiptResult } from "@game-backend/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestProject } from "@/e2e/support/fixtures";
import { newOperator } from "@/e2e/support/operators";
import { appleReceipt, sellOnAppleAs } from "@/e2e/support/stores";
import { type TcpProxy, tcpProxy } from "@/e2e/support/tcp-proxy";
import { pool } from "@/server/db";
import { createCurrency, createItem } from "@/server/services/economy/definitions";
import { baseUrl, client, gameProject, recordingFetch } from "./support";

/**
 * economy.validateReceipt against the real server, with App Store transactions signed by the
 * suite's test PKI, which the app trusts (e2e/support/global-setup.ts).
 */
let project: TestProject;
let proxy: TcpProxy;
beforeAll(async () => {
  project = await gameProject();
  await createCurrency({ projectId: project.projectId, input: { id: "gems", name: "Gems", clientWritable: false } });
  await createItem({ projectId: project.projectId, input: { id: "vip-pass", name: "VIP pass" } });
  await sellOnAppleAs(project.projectId, await newOperator("OWNER", project.projectId));
  proxy = await tcpProxy(Number(new URL(baseUrl()).port));
});
afterAll(async () => {
  await proxy.cut();
});

const gems500 = () => appleReceipt({ productId: "com.example.game.gems500" });
const receiptCalls = (log: ReturnType<typeof recordingFetch>["log"]) => log.filter((e) => e.path === "/api/v1/economy/receipts");
const storePurchaseRows = async (playerId: string): Promise<number> =>
  Number(
    (
      await pool().query<{ n: string }>(
        "SELECT count(*) AS n FROM economy_transactions WHERE project_id = $1 AND player_id = $2 AND kind = 'STORE_PURCHASE'",
        [project.projectId, playerId],
      )
    ).rows[0]?.n,
  );

describe("economy.validateReceipt", () => {
  it("grants an App Store purchase and answers the typed result", async () => {
    const game = client(project.clientKey, { storage: memoryStorage() });
    await game.auth.anonymous();
    const receipt = gems500();
    const result: ReceiptResult = await game.economy.validateReceipt(receipt.body);
    expect(result).toMatchObject({
      store: "apple",
      storeTransactionId: receipt.transactionId,
      productId: "gems-500",
      quantity: 1,
      status: "granted",
      replayed: false,
    });
    expect(result.grant.balances).toEqual([{ id: "gems", balance: 500 }]);
  });

  it("the same receipt again answers the first result with replayed: true and grants nothing more", async () => {
    const game = client(project.clientKey, { storage: memoryStorage() });
    const { playerId } = await game.auth.anonymous();
    const receipt = gems500();
    const first = await game.economy.validateReceipt(receipt.body);
    const again = await game.economy.validateReceipt(receipt.body);
    expect(again).toMatchObject({ receiptId: first.receiptId, replayed: true, grant: first.grant });
    expect(await storePurchaseRows(playerId)).toBe(1);
  });

  it("a receipt another player redeemed rejects with RECEIPT_ALREADY_USED, sent once", async () => {
    const receipt = gems500();
    const owner = client(project.clientKey, { storage: memoryStorage() });
    await owner.auth.anonymous();
    await owner.economy.validateReceipt(receipt.body);
    const { fetch, log } = recordingFetch();
    const thief = client(project.clientKey, { fetch, storage: memoryStorage(), retry: { baseDelayMs: 10 } });
    const { playerId } = await thief.auth.anonymous();

    const error = await thief.economy.validateReceipt(receipt.body).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GameApiError);
    expect(error).toMatchObject({ status: 409, code: "RECEIPT_ALREADY_USED" });
    expect(receiptCalls(log).map((e) => e.status)).toEqual([409]);
    expect(await storePurchaseRows(playerId)).toBe(0);
  });

  it("a receipt whose answer is dropped is sent again and grants once; the retry answers the grant as a replay", async () => {
    const { fetch, log } = recordingFetch();
    const game = client(project.clientKey, {
      baseUrl: `http://127.0.0.1:${proxy.port}`,
      fetch,
      storage: memoryStorage(),
      retry: { baseDelayMs: 10 },
    });
    const { playerId } = await game.auth.anonymous();
    proxy.dropNextResponses(1);
    const result = await game.economy.validateReceipt(gems500().body);

    expect(receiptCalls(log).map((e) => e.status)).toEqual(["network", 200]);
    expect(result).toMatchObject({ status: "granted", replayed: true });
    expect(result.grant.balances).toEqual([{ id: "gems", balance: 500 }]);
    expect(await storePurchaseRows(playerId)).toBe(1);
    expect((await game.economy.currencies()).find((c) => c.id === "gems")?.balance).toBe(500);
  });

  it("a 502 from a gateway in front of the server is retried with the same receipt and grants once", async () => {
    const { fetch: recorded, log } = recordingFetch();
    let badGateways = 0;
    const behindGateway: typeof fetch = async (input, init) => {
      if (new URL(String(input)).pathname === "/api/v1/economy/receipts" && badGateways === 0) {
        badGateways++;
        return new Response("<html>502 Bad Gateway</html>", { status: 502, headers: { "content-type": "text/html" } });
      }
      return recorded(input, init);
    };
    const game = client(project.clientKey, { fetch: behindGateway, storage: memoryStorage(), retry: { baseDelayMs: 10 } });
    const { playerId } = await game.auth.anonymous();
    const result = await game.economy.validateReceipt(gems500().body);

    expect(badGateways).toBe(1);
    expect(result).toMatchObject({ status: "granted", replayed: false });
    expect(receiptCalls(log).map((e) => e.status)).toEqual([200]);
    expect(await storePurchaseRows(playerId)).toBe(1);
  });

  it("a tampered receipt rejects with 422 RECEIPT_INVALID, sent once", async () => {
    const { fetch, log } = recordingFetch();
    const game = client(project.clientKey, { fetch, storage: memoryStorage(), retry: { baseDelayMs: 10 } });
    await game.auth.anonymous();
    const [header, payload, signature] = gems500().body.signedTransaction.split(".");
    const more = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload ?? "", "base64url").toString()), quantity: 100 }));
    const forged = { store: "apple" as const, signedTransaction: `${header}.${more.toString("base64url")}.${signature}` };

    await expect(game.economy.validateReceipt(forged)).rejects.toMatchObject({ status: 422, code: "RECEIPT_INVALID" });
    expect(receiptCalls(log)).toHaveLength(1);
  });
});
