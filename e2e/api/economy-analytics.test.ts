import { beforeAll, describe, expect, it } from "vitest";
import { pool } from "@/server/db";
import type { SessionOperator } from "@/server/identity/operator";
import { adjustPlayerAs } from "@/server/services/economy/commands";
import { createCurrency, createItem, createPurchase } from "@/server/services/economy/definitions";
import { refundByHandAs } from "@/server/services/store/refunds";
import { api } from "../support/api";
import { anonymousPlayer, makeProject, type TestProject } from "../support/fixtures";
import { caller, ctx, newOperator, trpcRefusal } from "../support/operators";
import { appleReceipt, sellOnAppleAs } from "../support/stores";

/**
 * economy.analytics: sources and sinks of every currency per UTC day, made from a few purchases,
 * adds, subtractions, grants, revokes and an App Store purchase refunded by hand, and checked
 * against the numbers those calls wrote and against the ledger itself.
 */
let project: TestProject;
let owner: SessionOperator;
let viewer: SessionOperator;
const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  project = await makeProject();
  const { projectId } = project;
  owner = await newOperator("OWNER", projectId);
  viewer = await newOperator("VIEWER", projectId);
  await createCurrency({ projectId, input: { id: "coins", name: "Coins", clientWritable: true } });
  await createCurrency({ projectId, input: { id: "gems", name: "Gems", clientWritable: false } });
  await createItem({ projectId, input: { id: "vip-pass", name: "VIP pass" } });
  await createPurchase({
    projectId,
    input: { id: "gem-pack", name: "Gem pack", costs: [{ currencyId: "coins", amount: 10 }], rewards: [{ currencyId: "gems", amount: 3 }] },
  });
  await sellOnAppleAs(projectId, owner);
  const player = await anonymousPlayer(project.clientKey);
  const as = { key: project.clientKey, token: player.accessToken };
  expect((await api("POST", "/api/v1/economy/currencies/coins/add", { ...as, body: { amount: 100 } })).status).toBe(200);
  expect((await api("POST", "/api/v1/economy/purchase", { ...as, body: { purchaseId: "gem-pack", quantity: 2 } })).status).toBe(200);
  expect((await api("POST", "/api/v1/economy/currencies/coins/subtract", { ...as, body: { amount: 7 } })).status).toBe(200);
  const adjust = (direction: "grant" | "revoke", amount: number) =>
    adjustPlayerAs(ctx(owner), {
      projectId,
      playerId: player.playerId,
      direction,
      currencies: [{ currencyId: "gems", amount }],
      items: [],
      reason: direction,
    });
  await adjust("grant", 50);
  await adjust("revoke", 5);
  const receipt = await api<{ receiptId: string }>("POST", "/api/v1/economy/receipts", {
    ...as,
    body: appleReceipt({ productId: "com.example.game.gems500" }).body,
  });
  expect(receipt.status).toBe(200);
  await refundByHandAs(ctx(owner), { projectId, receiptId: receipt.body.receiptId, reason: "refunded" });
});

const analytics = (days?: number) => caller(viewer).economy.analytics({ projectId: project.projectId, ...(days ? { days } : {}) });

describe("economy analytics", () => {
  it("splits today's sources and sinks of each currency by the kind of change, with the net", async () => {
    const result = await analytics();
    const day = (id: string) => result.currencies.find((c) => c.currencyId === id)?.days.find((d) => d.day === today());
    expect(day("coins")).toEqual({
      day: today(),
      sources: { purchase: 0, store_purchase: 0, grant: 0, reward: 0, add: 100, other: 0 },
      sinks: { purchase: 20, subtract: 7, revoke: 0, store_refund: 0, other: 0 },
      added: 100,
      removed: 27,
      net: 73,
    });
    expect(day("gems")).toEqual({
      day: today(),
      sources: { purchase: 6, store_purchase: 500, grant: 50, reward: 0, add: 0, other: 0 },
      sinks: { purchase: 0, subtract: 0, revoke: 5, store_refund: 500, other: 0 },
      added: 556,
      removed: 505,
      net: 51,
    });
  });

  it("adds up to the ledger: every currency's added and removed equal the sums of the ledger's positive and negative deltas", async () => {
    const { rows } = await pool().query<{ id: string; added: string; removed: string }>(
      `SELECT c->>'id' AS id, sum(greatest((c->>'delta')::bigint, 0))::text AS added, sum(greatest(-(c->>'delta')::bigint, 0))::text AS removed
         FROM economy_transactions t CROSS JOIN jsonb_array_elements(t.currencies) c WHERE t.project_id = $1 GROUP BY 1 ORDER BY 1`,
      [project.projectId],
    );
    const result = await analytics();
    expect(result.currencies.map((c) => ({ id: c.currencyId, added: String(c.added), removed: String(c.removed) }))).toEqual(rows);
  });

  it("covers the last 30 UTC days by default, today last, each day listed (empty days as zeros)", async () => {
    const result = await analytics();
    const coins = result.currencies.find((c) => c.currencyId === "coins");
    expect(result.days).toBe(30);
    expect(result.to).toBe(today());
    expect(coins?.days).toHaveLength(30);
    expect(coins?.days[0]?.day).toBe(result.from);
    expect(coins?.days[0]).toMatchObject({ added: 0, removed: 0, net: 0 });
  });

  it("puts a change on the UTC day it was made", async () => {
    const { rows } = await pool().query<{ id: string }>("SELECT id FROM economy_transactions WHERE project_id = $1 AND kind = 'GRANT'", [
      project.projectId,
    ]);
    const grant = rows[0]?.id as string;
    // A test's shortcut: the ledger is otherwise never rewritten.
    await pool().query("UPDATE economy_transactions SET created_at = created_at - interval '2 days' WHERE id = $1", [grant]);
    try {
      const gems = (await analytics(7)).currencies.find((c) => c.currencyId === "gems");
      const twoDaysAgo = gems?.days.at(-3);
      expect(gems?.days).toHaveLength(7);
      expect(twoDaysAgo?.sources.grant).toBe(50);
      expect(gems?.days.at(-1)?.sources.grant).toBe(0);
    } finally {
      await pool().query("UPDATE economy_transactions SET created_at = created_at + interval '2 days' WHERE id = $1", [grant]);
    }
  });

  it("refuses a range over 90 days (BAD_REQUEST) and a stranger (NOT_FOUND)", async () => {
    expect((await trpcRefusal(analytics(91))).code).toBe("BAD_REQUEST");
    const stranger = await newOperator(null, project.projectId);
    expect((await trpcRefusal(caller(stranger).economy.analytics({ projectId: project.projectId }))).code).toBe("NOT_FOUND");
  });
});
