import { beforeAll, describe, expect, it } from "vitest";
import { pool } from "@/server/db";
import { createCurrency, createItem } from "@/server/services/economy/definitions";
import { api, baseUrl, expectError, metricSample } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";
import { newOperator } from "../support/operators";
import { appleReceipt, sellOnAppleAs } from "../support/stores";

/**
 * POST /economy/receipts with App Store signed transactions, signed by the suite's own PKI which the
 * app trusts (e2e/support/global-setup.ts): the grant, exactly once per Apple transactionId.
 */
type Receipt = {
  receiptId: string;
  storeTransactionId: string;
  productId: string;
  status: string;
  replayed: boolean;
  environment: string;
  grant: { transactionId: string; balances: Array<{ id: string; balance: number }> };
};

let project: TestProject;
beforeAll(async () => {
  project = await makeProject();
  await createCurrency({ projectId: project.projectId, input: { id: "gems", name: "Gems", clientWritable: false, maxBalance: 100 } });
  await createItem({ projectId: project.projectId, input: { id: "vip-pass", name: "VIP pass" } });
  await sellOnAppleAs(project.projectId, await newOperator("OWNER", project.projectId));
});

const redeem = (p: TestPlayer, body: unknown) =>
  api<Receipt>("POST", "/api/v1/economy/receipts", { key: project.clientKey, token: p.accessToken, body });
const gemsOf = async (p: TestPlayer) =>
  (
    await api<Array<{ id: string; balance: number }>>("GET", "/api/v1/economy/currencies", { key: project.clientKey, token: p.accessToken })
  ).body.find((b) => b.id === "gems")?.balance;
const rowsOf = async (transactionId: string) =>
  (
    await pool().query<{ status: string; player_id: string }>(
      "SELECT status, player_id FROM store_transactions WHERE project_id = $1 AND store = 'apple' AND store_transaction_id = $2",
      [project.projectId, transactionId],
    )
  ).rows;
const ledgerRowsOf = async (playerId: string) =>
  Number(
    (
      await pool().query<{ n: string }>(
        "SELECT count(*) AS n FROM economy_transactions WHERE project_id = $1 AND player_id = $2 AND kind = 'STORE_PURCHASE'",
        [project.projectId, playerId],
      )
    ).rows[0]?.n,
  );

describe("an App Store purchase", () => {
  it("grants the store product's rewards through the ledger, past the currency's maximum", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const receipt = appleReceipt({ productId: "com.example.game.gems500" });
    const res = await redeem(player, receipt.body);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      storeTransactionId: receipt.transactionId,
      productId: "gems-500",
      status: "granted",
      replayed: false,
    });
    expect(res.body.grant.balances).toEqual([{ id: "gems", balance: 500 }]);
    expect(await gemsOf(player)).toBe(500);
  });

  it("of 10 units (StoreKit's most) grants ten times the rewards", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const res = await redeem(player, appleReceipt({ productId: "com.example.game.gems500", quantity: 10 }).body);
    expect(res.status, res.text).toBe(200);
    expect(await gemsOf(player)).toBe(5000);
  });

  it("of 11 units (above STORE_MAX_QUANTITY, default 10) is 422 RECEIPT_INVALID and grants nothing", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const receipt = appleReceipt({ productId: "com.example.game.gems500", quantity: 11 });
    const res = await redeem(player, receipt.body);
    expectError(res, 422, "RECEIPT_INVALID");
    expect(res.body).toMatchObject({ error: { details: { quantity: 11, max: 10 } } });
    expect(await gemsOf(player)).toBe(0);
    expect((await rowsOf(receipt.transactionId)).map((r) => r.status)).toEqual(["rejected"]);
  });

  it("of a non-consumable in 2 units is 422 RECEIPT_INVALID (owned once) and grants nothing", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const receipt = appleReceipt({ productId: "com.example.game.vip", quantity: 2 });
    const res = await redeem(player, receipt.body);
    expectError(res, 422, "RECEIPT_INVALID");
    expect(res.body).toMatchObject({ error: { details: { quantity: 2, max: 1, kind: "non_consumable" } } });
    expect((await rowsOf(receipt.transactionId)).map((r) => r.status)).toEqual(["rejected"]);
  });

  it("sent again by its player answers the first result with replayed: true and grants nothing more", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const receipt = appleReceipt({ productId: "com.example.game.gems500" });
    const first = await redeem(player, receipt.body);
    const again = await redeem(player, receipt.body);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ receiptId: first.body.receiptId, replayed: true, grant: first.body.grant });
    expect(await gemsOf(player)).toBe(500);
  });

  it("sent by another player is 409 RECEIPT_ALREADY_USED and grants that player nothing", async () => {
    const [owner, other] = [await anonymousPlayer(project.clientKey), await anonymousPlayer(project.clientKey)];
    const receipt = appleReceipt({ productId: "com.example.game.gems500" });
    expect((await redeem(owner, receipt.body)).status).toBe(200);
    expectError(await redeem(other, receipt.body), 409, "RECEIPT_ALREADY_USED");
    expect(await gemsOf(other)).toBe(0);
  });

  it("sent by 20 parallel requests grants once: one ledger row, one live store transaction, the others replay", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const receipt = appleReceipt({ productId: "com.example.game.gems500" });
    const answers = await Promise.all(Array.from({ length: 20 }, () => redeem(player, receipt.body)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(answers.filter((a) => !a.body.replayed)).toHaveLength(1);
    expect(await ledgerRowsOf(player.playerId)).toBe(1);
    expect((await rowsOf(receipt.transactionId)).filter((r) => r.status === "granted")).toHaveLength(1);
    expect(await gemsOf(player)).toBe(500);
  });

  it("sent by two players at once grants one of them; the other gets 409 RECEIPT_ALREADY_USED", async () => {
    const [a, b] = [await anonymousPlayer(project.clientKey), await anonymousPlayer(project.clientKey)];
    const receipt = appleReceipt({ productId: "com.example.game.gems500" });
    const answers = await Promise.all([...Array(5).fill(a), ...Array(5).fill(b)].map((p: TestPlayer) => redeem(p, receipt.body)));
    const winners = new Set(answers.filter((x) => x.status === 200).map((x) => x.body.receiptId));
    expect(winners.size).toBe(1);
    expect(answers.filter((x) => x.status !== 200).every((x) => x.status === 409)).toBe(true);
    expect(((await gemsOf(a)) ?? 0) + ((await gemsOf(b)) ?? 0)).toBe(500);
  });
});

describe("the same App Store app set up in two projects of the instance", () => {
  let second: TestProject;
  beforeAll(async () => {
    second = await makeProject();
    await createCurrency({ projectId: second.projectId, input: { id: "gems", name: "Gems", clientWritable: false } });
    await createItem({ projectId: second.projectId, input: { id: "vip-pass", name: "VIP pass" } });
    await sellOnAppleAs(second.projectId, await newOperator("OWNER", second.projectId));
  });
  const redeemIn = (p: TestProject, player: TestPlayer, body: unknown) =>
    api<Receipt>("POST", "/api/v1/economy/receipts", { key: p.clientKey, token: player.accessToken, body });
  const grantedRows = async (transactionId: string) =>
    Number(
      (
        await pool().query<{ n: string }>(
          "SELECT count(*) AS n FROM store_transactions WHERE store = 'apple' AND store_transaction_id = $1 AND status = 'granted'",
          [transactionId],
        )
      ).rows[0]?.n,
    );

  it("refuses a production purchase granted in the other project: 409 RECEIPT_ALREADY_USED, kept as rejected", async () => {
    const receipt = appleReceipt({ productId: "com.example.game.gems500" });
    expect((await redeemIn(project, await anonymousPlayer(project.clientKey), receipt.body)).status).toBe(200);
    const player = await anonymousPlayer(second.clientKey);
    const res = await redeemIn(second, player, receipt.body);
    expectError(res, 409, "RECEIPT_ALREADY_USED");
    expect(res.body).toMatchObject({ error: { details: { scope: "instance" } } });
    expect(await grantedRows(receipt.transactionId)).toBe(1);
    const kept = await pool().query<{ status: string; refusal: string }>(
      "SELECT status, refusal FROM store_transactions WHERE project_id = $1 AND store_transaction_id = $2",
      [second.projectId, receipt.transactionId],
    );
    expect(kept.rows).toEqual([{ status: "rejected", refusal: "RECEIPT_ALREADY_USED" }]);
  });

  it("grants a production purchase sent to both projects at once in one of them only", async () => {
    const receipt = appleReceipt({ productId: "com.example.game.gems500" });
    const players = [await anonymousPlayer(project.clientKey), await anonymousPlayer(second.clientKey)];
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => redeemIn(i % 2 ? second : project, players[i % 2] as TestPlayer, receipt.body)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(5).fill(200), ...Array(5).fill(409)]);
    expect(await grantedRows(receipt.transactionId)).toBe(1);
  });

  it("grants a sandbox purchase in each project (no money moves; a staging copy tests with it)", async () => {
    const receipt = appleReceipt({ productId: "com.example.game.gems500", environment: "Sandbox" });
    expect((await redeemIn(project, await anonymousPlayer(project.clientKey), receipt.body)).status).toBe(200);
    expect((await redeemIn(second, await anonymousPlayer(second.clientKey), receipt.body)).status).toBe(200);
    expect(await grantedRows(receipt.transactionId)).toBe(2);
  });
});

describe("a refused App Store receipt grants nothing and is kept as rejected", () => {
  it("for a product no store product sells: 422 RECEIPT_WRONG_PRODUCT", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const receipt = appleReceipt({ productId: "com.example.game.unknown" });
    expectError(await redeem(player, receipt.body), 422, "RECEIPT_WRONG_PRODUCT");
    expect(await gemsOf(player)).toBe(0);
    expect(await rowsOf(receipt.transactionId)).toEqual([{ status: "rejected", player_id: player.playerId }]);
  });

  it("for another app's bundle id: 422 RECEIPT_WRONG_APP", async () => {
    const player = await anonymousPlayer(project.clientKey);
    expectError(
      await redeem(player, appleReceipt({ productId: "com.example.game.gems500", bundleId: "com.other.game" }).body),
      422,
      "RECEIPT_WRONG_APP",
    );
    expect(await gemsOf(player)).toBe(0);
  });

  it("with a tampered payload: 422 RECEIPT_INVALID", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const receipt = appleReceipt({ productId: "com.example.game.gems500" });
    const [header, payload = "", signature] = receipt.body.signedTransaction.split(".");
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, "base64url").toString()), quantity: 100 })).toString(
      "base64url",
    );
    expectError(await redeem(player, { store: "apple", signedTransaction: `${header}.${forged}.${signature}` }), 422, "RECEIPT_INVALID");
    expect(await gemsOf(player)).toBe(0);
  });

  it("revoked at the store: 422 RECEIPT_CANCELLED", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const receipt = appleReceipt({ productId: "com.example.game.gems500", revocationDate: Date.now() - 1000, revocationReason: 0 });
    expectError(await redeem(player, receipt.body), 422, "RECEIPT_CANCELLED");
    expect(await gemsOf(player)).toBe(0);
  });

  it("with a body that is not a receipt: 400 VALIDATION_ERROR, nothing stored", async () => {
    const player = await anonymousPlayer(project.clientKey);
    expectError(await redeem(player, { store: "apple" }), 400, "VALIDATION_ERROR");
    expectError(await redeem(player, { store: "amazon", receipt: "x" }), 400, "VALIDATION_ERROR");
  });

  it("without a bearer token: 401", async () => {
    const res = await api("POST", "/api/v1/economy/receipts", { key: project.clientKey, body: appleReceipt().body });
    expect(res.status).toBe(401);
  });
});

describe("a project without App Store settings", () => {
  it("refuses App Store receipts with 422 STORE_NOT_CONFIGURED", async () => {
    const bare = await makeProject();
    const player = await anonymousPlayer(bare.clientKey);
    const res = await api("POST", "/api/v1/economy/receipts", {
      key: bare.clientKey,
      token: player.accessToken,
      body: appleReceipt().body,
    });
    expectError(res, 422, "STORE_NOT_CONFIGURED");
  });
});

describe("the metrics", () => {
  // At least: other test files redeem receipts on the same app at the same time.
  it("count granted, replayed and refused receipts by store and outcome", async () => {
    const sample = async (outcome: string) =>
      metricSample(await (await fetch(`${baseUrl()}/api/metrics`)).text(), `gb_store_receipts_total{store="apple",outcome="${outcome}"}`);
    const before = { granted: await sample("granted"), replayed: await sample("replayed"), wrongApp: await sample("RECEIPT_WRONG_APP") };
    const player = await anonymousPlayer(project.clientKey);
    const receipt = appleReceipt({ productId: "com.example.game.gems500" });
    await redeem(player, receipt.body);
    await redeem(player, receipt.body);
    await redeem(player, appleReceipt({ productId: "com.example.game.gems500", bundleId: "com.other.game" }).body);
    expect(await sample("granted")).toBeGreaterThanOrEqual(before.granted + 1);
    expect(await sample("replayed")).toBeGreaterThanOrEqual(before.replayed + 1);
    expect(await sample("RECEIPT_WRONG_APP")).toBeGreaterThanOrEqual(before.wrongApp + 1);
  });
});
