import { beforeAll, describe, expect, it } from "vitest";
import { pool } from "@/server/db";
import type { SessionOperator } from "@/server/identity/operator";
import { createCurrency, createItem } from "@/server/services/economy/definitions";
import { refundByHandAs } from "@/server/services/store/refunds";
import { setRefundPolicyAs } from "@/server/services/store/settings";
import { api, expectError } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";
import { ctx, newOperator } from "../support/operators";
import { appleNotification, appleReceipt, sellOnAppleAs } from "../support/stores";

/**
 * Refunds: App Store Server Notifications V2 (signed by the suite's PKI the app trusts) and
 * refunds by hand take back what the grant gave, once, never below zero; the ledger and the
 * balances agree after every one.
 */
let project: TestProject;
let owner: SessionOperator;
beforeAll(async () => {
  project = await makeProject();
  await createCurrency({ projectId: project.projectId, input: { id: "gems", name: "Gems", clientWritable: true } });
  await createItem({ projectId: project.projectId, input: { id: "vip-pass", name: "VIP pass" } });
  owner = await newOperator("OWNER", project.projectId);
  await sellOnAppleAs(project.projectId, owner);
});

const as = (p: TestPlayer) => ({ key: project.clientKey, token: p.accessToken });
const gemsOf = async (p: TestPlayer) =>
  (await api<Array<{ id: string; balance: number }>>("GET", "/api/v1/economy/currencies", as(p))).body.find((b) => b.id === "gems")
    ?.balance;
const notify = (body: unknown, projectId = project.projectId) =>
  api<{ duplicate: boolean; outcome: string }>("POST", `/api/stores/apple/${projectId}`, { body });
const storeRow = async (transactionId: string) =>
  (
    await pool().query<{ id: string; status: string; shortfall: unknown; refund_reason: string | null }>(
      "SELECT id, status, shortfall, refund_reason FROM store_transactions WHERE project_id = $1 AND store_transaction_id = $2 AND status <> 'rejected'",
      [project.projectId, transactionId],
    )
  ).rows[0];

async function boughtGems(): Promise<{ player: TestPlayer; receipt: ReturnType<typeof appleReceipt> }> {
  const player = await anonymousPlayer(project.clientKey);
  const receipt = appleReceipt({ productId: "com.example.game.gems500" });
  const res = await api("POST", "/api/v1/economy/receipts", { ...as(player), body: receipt.body });
  if (res.status !== 200) throw new Error(res.text);
  return { player, receipt };
}

/** balance = initial + Σ ledger deltas, for every wallet of the player (the economy's invariant). */
async function expectLedgerEqualsBalances(player: TestPlayer) {
  const { rows } = await pool().query<{ currency_id: string; balance: string; initial_balance: string; ledger: string | null }>(
    `SELECT w.currency_id, w.balance, w.initial_balance,
            (SELECT sum((c->>'delta')::bigint) FROM economy_transactions t, jsonb_array_elements(t.currencies) c
              WHERE t.project_id = w.project_id AND t.player_id = w.player_id AND c->>'id' = w.currency_id) AS ledger
       FROM wallets w WHERE w.project_id = $1 AND w.player_id = $2`,
    [project.projectId, player.playerId],
  );
  for (const r of rows) expect(Number(r.balance), r.currency_id).toBe(Number(r.initial_balance) + Number(r.ledger ?? 0));
}

describe("an App Store REFUND notification", () => {
  it("takes the grant back through the ledger and marks the purchase refunded", async () => {
    const { player, receipt } = await boughtGems();
    const res = await notify(appleNotification(receipt.payload).body);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ duplicate: false, outcome: "refunded" });
    expect(await gemsOf(player)).toBe(0);
    expect((await storeRow(receipt.transactionId))?.status).toBe("refunded");
    await expectLedgerEqualsBalances(player);
  });

  it("delivered twice is stored once and takes back once", async () => {
    const { player, receipt } = await boughtGems();
    await api("POST", "/api/v1/economy/currencies/gems/add", { ...as(player), body: { amount: 100 } });
    const notification = appleNotification(receipt.payload);
    await notify(notification.body);
    const again = await notify(notification.body);
    expect(again.body).toEqual({ duplicate: true, outcome: "duplicate" });
    expect(await gemsOf(player)).toBe(100);
    const stored = await pool().query("SELECT 1 FROM store_notifications WHERE project_id = $1 AND notification_id = $2", [
      project.projectId,
      notification.notificationId,
    ]);
    expect(stored.rowCount).toBe(1);
  });

  it("for gems already spent takes back what is left and records the shortfall (policy clamp)", async () => {
    const { player, receipt } = await boughtGems();
    await api("POST", "/api/v1/economy/currencies/gems/subtract", { ...as(player), body: { amount: 300 } });
    await notify(appleNotification(receipt.payload).body);
    expect(await gemsOf(player)).toBe(0);
    expect((await storeRow(receipt.transactionId))?.shortfall).toEqual([{ id: "gems", kind: "currency", amount: 300 }]);
    await expectLedgerEqualsBalances(player);
  });

  it("a second REFUND notification for the same purchase (another notification id) takes nothing more", async () => {
    const { player, receipt } = await boughtGems();
    await notify(appleNotification(receipt.payload).body);
    await api("POST", "/api/v1/economy/currencies/gems/add", { ...as(player), body: { amount: 50 } });
    const second = await notify(appleNotification(receipt.payload).body);
    expect(second.body.outcome).toBe("already_refunded");
    expect(await gemsOf(player)).toBe(50);
  });

  it("then REFUND_REVERSED gives back what the refund took", async () => {
    const { player, receipt } = await boughtGems();
    await notify(appleNotification(receipt.payload).body);
    const reversed = await notify(appleNotification(receipt.payload, "REFUND_REVERSED").body);
    expect(reversed.body.outcome).toBe("reinstated");
    expect(await gemsOf(player)).toBe(500);
    expect((await storeRow(receipt.transactionId))?.status).toBe("granted");
    await expectLedgerEqualsBalances(player);
  });

  it("forged (signed by another PKI's payload tampered) is 422 RECEIPT_INVALID and stores nothing", async () => {
    const { receipt } = await boughtGems();
    const notification = appleNotification(receipt.payload);
    const [h, p, s] = notification.body.signedPayload.split(".");
    const tampered = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(p ?? "", "base64url").toString()), notificationType: "REVOKE" }),
    ).toString("base64url");
    expectError(await notify({ signedPayload: `${h}.${tampered}.${s}` }), 422, "RECEIPT_INVALID");
    const stored = await pool().query("SELECT 1 FROM store_notifications WHERE notification_id = $1", [notification.notificationId]);
    expect(stored.rowCount).toBe(0);
  });

  it("for an unknown project is 404 NOT_FOUND", async () => {
    const { receipt } = await boughtGems();
    expectError(await notify(appleNotification(receipt.payload).body, "00000000-0000-4000-8000-000000000000"), 404, "NOT_FOUND");
  });

  it("that is not JSON of {signedPayload} is 400", async () => {
    expect((await notify("not json")).status).toBe(400);
    expectError(await notify({ payload: "x" }), 400, "VALIDATION_ERROR");
  });
});

describe("an App Store REFUND that arrives before its receipt", () => {
  const redeem = (player: TestPlayer, receipt: ReturnType<typeof appleReceipt>) =>
    api("POST", "/api/v1/economy/receipts", { ...as(player), body: receipt.body });
  const rejections = async (transactionId: string) =>
    (
      await pool().query<{ refusal: string }>(
        "SELECT refusal FROM store_transactions WHERE project_id = $1 AND store_transaction_id = $2 AND status = 'rejected'",
        [project.projectId, transactionId],
      )
    ).rows.map((r) => r.refusal);

  it("is held (answered 200 held), and the receipt sent later is refused with 422 RECEIPT_CANCELLED, nothing granted", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const receipt = appleReceipt({ productId: "com.example.game.gems500" });
    const held = await notify(appleNotification(receipt.payload).body);
    expect(held.status, held.text).toBe(200);
    expect(held.body).toEqual({ duplicate: false, outcome: "held" });
    expectError(await redeem(player, receipt), 422, "RECEIPT_CANCELLED");
    expect(await gemsOf(player)).toBe(0);
    expect(await storeRow(receipt.transactionId)).toBeUndefined();
    expect(await rejections(receipt.transactionId)).toEqual(["RECEIPT_CANCELLED"]);
    await expectLedgerEqualsBalances(player);
  });

  it("keeps refusing the receipt when it is sent again", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const receipt = appleReceipt({ productId: "com.example.game.gems500" });
    await notify(appleNotification(receipt.payload, "REVOKE").body);
    expectError(await redeem(player, receipt), 422, "RECEIPT_CANCELLED");
    expectError(await redeem(player, receipt), 422, "RECEIPT_CANCELLED");
    expect(await gemsOf(player)).toBe(0);
  });

  it("then REFUND_REVERSED releases it (answered released), and the receipt grants", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const receipt = appleReceipt({ productId: "com.example.game.gems500" });
    await notify(appleNotification(receipt.payload).body);
    const released = await notify(appleNotification(receipt.payload, "REFUND_REVERSED").body);
    expect(released.body).toEqual({ duplicate: false, outcome: "released" });
    const granted = await redeem(player, receipt);
    expect(granted.status, granted.text).toBe(200);
    expect(await gemsOf(player)).toBe(500);
    await expectLedgerEqualsBalances(player);
  });

  it("sent at the same moment as its receipt leaves nothing granted, whichever commits first (10 races)", async () => {
    for (let round = 0; round < 10; round++) {
      const player = await anonymousPlayer(project.clientKey);
      const receipt = appleReceipt({ productId: "com.example.game.gems500" });
      const [redeemed, notified] = await Promise.all([redeem(player, receipt), notify(appleNotification(receipt.payload).body)]);
      // Either the receipt came first (granted, then the refund takes it back) or the refund did (held, receipt refused).
      if (notified.body.outcome === "refunded") expect(redeemed.status, redeemed.text).toBe(200);
      else {
        expect(notified.body.outcome).toBe("held");
        expectError(redeemed, 422, "RECEIPT_CANCELLED");
      }
      expect(await gemsOf(player)).toBe(0);
      await expectLedgerEqualsBalances(player);
    }
  });
});

describe("the refund policy ban", () => {
  it("bans a player whose refunded gems were already spent", async () => {
    const banProject = await makeProject();
    await createCurrency({ projectId: banProject.projectId, input: { id: "gems", name: "Gems" } });
    await createItem({ projectId: banProject.projectId, input: { id: "vip-pass", name: "VIP pass" } });
    const banOwner = await newOperator("OWNER", banProject.projectId);
    await sellOnAppleAs(banProject.projectId, banOwner);
    await setRefundPolicyAs(ctx(banOwner), { projectId: banProject.projectId, policy: "ban" });
    const player = await anonymousPlayer(banProject.clientKey);
    const receipt = appleReceipt({ productId: "com.example.game.gems500" });
    await api("POST", "/api/v1/economy/receipts", { key: banProject.clientKey, token: player.accessToken, body: receipt.body });
    await api("POST", "/api/v1/economy/currencies/gems/subtract", {
      key: banProject.clientKey,
      token: player.accessToken,
      body: { amount: 1 },
    });
    await notify(appleNotification(receipt.payload).body, banProject.projectId);
    const { rows } = await pool().query<{ banned_at: Date | null; ban_reason: string | null }>(
      "SELECT banned_at, ban_reason FROM players WHERE id = $1",
      [player.playerId],
    );
    expect(rows[0]?.banned_at).not.toBeNull();
    expect(rows[0]?.ban_reason).toContain(receipt.transactionId);
  });
});

describe("a refund by hand", () => {
  it("takes the grant back, is audited with the reason, and a second one is refused", async () => {
    const { player, receipt } = await boughtGems();
    const row = await storeRow(receipt.transactionId);
    const result = await refundByHandAs(ctx(owner), {
      projectId: project.projectId,
      receiptId: row?.id ?? "",
      reason: "chargeback by e-mail",
    });
    expect(result.outcome).toBe("refunded");
    expect(await gemsOf(player)).toBe(0);
    const audit = await pool().query<{ after: { reason: string } }>(
      "SELECT after FROM audit_log WHERE project_id = $1 AND action = 'store.purchase.refund' AND target = $2",
      [project.projectId, row?.id],
    );
    expect(audit.rows[0]?.after.reason).toBe("chargeback by e-mail");
    await expect(
      refundByHandAs(ctx(owner), { projectId: project.projectId, receiptId: row?.id ?? "", reason: "again" }),
    ).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
    });
  });

  it("is refused to a viewer", async () => {
    const { receipt } = await boughtGems();
    const row = await storeRow(receipt.transactionId);
    const viewer = await newOperator("VIEWER", project.projectId);
    await expect(
      refundByHandAs(ctx(viewer), { projectId: project.projectId, receiptId: row?.id ?? "", reason: "x" }),
    ).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
  });
});
