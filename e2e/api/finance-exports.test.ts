import { beforeAll, describe, expect, it } from "vitest";
import { pool, prisma } from "@/server/db";
import type { MemberRole } from "@/server/generated/prisma/enums";
import type { SessionOperator } from "@/server/identity/operator";
import { createOperatorToken } from "@/server/identity/operator-tokens";
import { adjustPlayerAs } from "@/server/services/economy/commands";
import { createCurrency, createItem, createPurchase } from "@/server/services/economy/definitions";
import { refundByHandAs } from "@/server/services/store/refunds";
import { api, baseUrl } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";
import { ctx, newOperator } from "../support/operators";
import { appleReceipt, sellOnAppleAs } from "../support/stores";

/**
 * The finance exports (GET /api/dashboard/projects/:id/exports/finance-ledger and
 * /store-transactions): every ledger row and store transaction of a UTC day range across players,
 * flat (one numeric column per currency and item), opened and parsed here as a spreadsheet would.
 */
async function tokenOf(op: SessionOperator, role: MemberRole): Promise<string> {
  return (await createOperatorToken({ operator: op, name: "finance", role, projectIds: null, instanceAdmin: false })).token;
}
const get = (token: string, kind: string, query: string, projectId = project.projectId) =>
  fetch(`${baseUrl()}/api/dashboard/projects/${projectId}/exports/${kind}?${query}`, { headers: { Authorization: `Bearer ${token}` } });

/** RFC 4180: quoted fields with doubled quotes and line breaks inside; CRLF between records. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = "";
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      record.push(field);
      field = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i++;
    } else field += ch;
  }
  if (field !== "" || record.length > 0) records.push([...record, field]);
  return records;
}
/** The file as records keyed by header; the bytes are checked for a BOM separately (text() drops one). */
async function download(token: string, kind: string, query: string) {
  const res = await get(token, kind, query);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  const [header = [], ...rows] = parseCsv(text.replace(/^\uFEFF/, ""));
  return {
    res,
    bytes,
    header,
    rows: rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ""]))),
  };
}

const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
/** Yesterday to tomorrow: today's rows, whenever in the UTC day the suite runs. */
const RANGE = `from=${day(-1)}&to=${day(1)}`;

let project: TestProject;
let owner: SessionOperator;
let ownerToken: string;
let buyer: TestPlayer;
let spender: TestPlayer;
const receipts = { kept: "", refunded: "", shortfall: "", rejected: "" };

const redeem = (p: TestPlayer, body: unknown) =>
  api<{ receiptId: string }>("POST", "/api/v1/economy/receipts", { key: project.clientKey, token: p.accessToken, body });

beforeAll(async () => {
  project = await makeProject();
  const { projectId } = project;
  owner = await newOperator("OWNER", projectId);
  ownerToken = await tokenOf(owner, "OWNER");
  await createCurrency({ projectId, input: { id: "coins", name: "Coins", clientWritable: true } });
  await createCurrency({ projectId, input: { id: "gems", name: "Gems", clientWritable: false } });
  await createCurrency({ projectId, input: { id: "unused", name: "Never moved" } });
  await createItem({ projectId, input: { id: "sword", name: "Sword" } });
  await createItem({ projectId, input: { id: "vip-pass", name: "VIP pass" } });
  await createPurchase({
    projectId,
    input: { id: "buy-sword", name: "Sword", costs: [{ currencyId: "coins", amount: 10 }], rewards: [{ itemId: "sword", quantity: 1 }] },
  });
  await sellOnAppleAs(projectId, owner);

  buyer = await anonymousPlayer(project.clientKey);
  spender = await anonymousPlayer(project.clientKey);
  const as = { key: project.clientKey, token: buyer.accessToken };
  expect((await api("POST", "/api/v1/economy/currencies/coins/add", { ...as, body: { amount: 100 } })).status).toBe(200);
  expect((await api("POST", "/api/v1/economy/purchase", { ...as, body: { purchaseId: "buy-sword", quantity: 2 } })).status).toBe(200);
  expect((await api("POST", "/api/v1/economy/currencies/coins/subtract", { ...as, body: { amount: 7 } })).status).toBe(200);
  await adjustPlayerAs(ctx(owner), {
    projectId,
    playerId: buyer.playerId,
    direction: "grant",
    currencies: [{ currencyId: "gems", amount: 50 }],
    items: [],
    reason: "Café crème compensation", // accents: what the BOM is for
  });
  const gems = () => appleReceipt({ productId: "com.example.game.gems500" }).body;
  // The price is the one the store reports (Apple: milliunits), not the product's list price.
  receipts.kept = (
    await redeem(buyer, appleReceipt({ productId: "com.example.game.gems500", price: 4990, currency: "EUR" }).body)
  ).body.receiptId;
  receipts.refunded = (await redeem(buyer, gems())).body.receiptId;
  receipts.shortfall = (await redeem(spender, gems())).body.receiptId;
  expect((await redeem(buyer, appleReceipt({ productId: "com.example.game.unknown" }).body)).status).toBe(422);
  receipts.rejected =
    (await pool().query<{ id: string }>("SELECT id FROM store_transactions WHERE project_id = $1 AND status = 'rejected'", [projectId]))
      .rows[0]?.id ?? "";
  // The spender spends 300 of the 500 before the refund: the refund takes back 200, 300 short.
  await adjustPlayerAs(ctx(owner), {
    projectId,
    playerId: spender.playerId,
    direction: "revoke",
    currencies: [{ currencyId: "gems", amount: 300 }],
    items: [],
    reason: "spent",
  });
  await refundByHandAs(ctx(owner), { projectId, receiptId: receipts.refunded, reason: "chargeback" });
  await refundByHandAs(ctx(owner), { projectId, receiptId: receipts.shortfall, reason: "refund after spending" });
});

describe("the finance ledger export", () => {
  it("has one delta and balance column per currency (unused ones too) and one delta column per item, sorted by id", async () => {
    const { res, header } = await download(ownerToken, "finance-ledger", RANGE);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="finance-ledger-\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}-/);
    expect(header).toEqual([
      "id",
      "created_at",
      "player_id",
      "kind",
      "purchase_id",
      "quantity",
      "reason",
      "actor_kind",
      "leaderboard_id",
      "period",
      "request_id",
      "delta_coins",
      "balance_coins",
      "delta_gems",
      "balance_gems",
      "delta_unused",
      "balance_unused",
      "delta_item_sword",
      "delta_item_vip-pass",
    ]);
  });

  it("has a row per ledger entry of the project in the range, across players, with numbers (or nothing) in every amount column", async () => {
    const { rows } = await download(ownerToken, "finance-ledger", RANGE);
    const ledger = await pool().query<{ id: string }>("SELECT id FROM economy_transactions WHERE project_id = $1 ORDER BY id", [
      project.projectId,
    ]);
    expect(rows.map((r) => r.id)).toEqual(ledger.rows.map((r) => r.id));
    expect(new Set(rows.map((r) => r.player_id))).toEqual(new Set([buyer.playerId, spender.playerId]));
    for (const row of rows)
      for (const [column, value] of Object.entries(row)) if (/^(delta|balance)_/.test(column)) expect(value).toMatch(/^(-?\d+)?$/);
    expect(rows.map((r) => [r.kind, r.delta_coins, r.balance_coins, r.delta_gems, r.delta_item_sword])).toEqual([
      ["add", "100", "100", "", ""],
      ["purchase", "-20", "80", "", "2"],
      ["subtract", "-7", "73", "", ""],
      ["grant", "", "", "50", ""],
      ["store_purchase", "", "", "500", ""],
      ["store_purchase", "", "", "500", ""],
      ["store_purchase", "", "", "500", ""],
      ["revoke", "", "", "-300", ""],
      ["store_refund", "", "", "-500", ""],
      ["store_refund", "", "", "-200", ""],
    ]);
    expect(rows.find((r) => r.kind === "purchase")?.purchase_id).toBe("buy-sword");
    expect(rows.find((r) => r.kind === "store_purchase")?.purchase_id).toBe("gems-500");
  });

  it("leaves out rows outside the range and other projects' rows", async () => {
    const other = await makeProject();
    await createCurrency({ projectId: other.projectId, input: { id: "coins", name: "Coins" } });
    const theirs = await anonymousPlayer(other.clientKey);
    await adjustPlayerAs(ctx(await newOperator("OWNER", other.projectId)), {
      projectId: other.projectId,
      playerId: theirs.playerId,
      direction: "grant",
      currencies: [{ currencyId: "coins", amount: 1 }],
      items: [],
      reason: "theirs",
    });
    const { rows: before } = await download(ownerToken, "finance-ledger", RANGE);
    expect(before.some((r) => r.player_id === theirs.playerId)).toBe(false);
    // One row dated five days ago (a test's shortcut: the ledger is otherwise never rewritten).
    const moved = before[0]?.id as string;
    await pool().query("UPDATE economy_transactions SET created_at = created_at - interval '5 days' WHERE id = $1", [moved]);
    try {
      const { rows } = await download(ownerToken, "finance-ledger", RANGE);
      expect(rows.map((r) => r.id)).toEqual(before.slice(1).map((r) => r.id));
      const earlier = await download(ownerToken, "finance-ledger", `from=${day(-30)}&to=${day(-10)}`);
      expect(earlier.rows).toEqual([]);
    } finally {
      await pool().query("UPDATE economy_transactions SET created_at = created_at + interval '5 days' WHERE id = $1", [moved]);
    }
  });

  it("starts with a byte-order mark only when asked (bom=1), and writes accents as UTF-8", async () => {
    const plain = await download(ownerToken, "finance-ledger", RANGE);
    expect([...plain.bytes.slice(0, 3)]).toEqual([...new TextEncoder().encode("id,")]);
    const marked = await download(ownerToken, "finance-ledger", `${RANGE}&bom=1`);
    expect([...marked.bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(marked.rows.map((r) => r.id)).toEqual(plain.rows.map((r) => r.id));
    expect(marked.rows.find((r) => r.kind === "grant")?.reason).toBe("Café crème compensation");
  });

  it("refuses a range longer than 366 days or ending before it starts (400 VALIDATION_ERROR)", async () => {
    const long = await get(ownerToken, "finance-ledger", "from=2025-01-01&to=2026-01-02");
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({ error: { code: "VALIDATION_ERROR" } });
    expect((await get(ownerToken, "finance-ledger", "from=2025-01-01&to=2026-01-01")).status).toBe(200);
    expect((await get(ownerToken, "finance-ledger", "from=2026-02-02&to=2026-02-01")).status).toBe(400);
    expect((await get(ownerToken, "finance-ledger", "from=2026-02-30&to=2026-03-01")).status).toBe(400);
    expect((await get(ownerToken, "finance-ledger", "to=2026-03-01")).status).toBe(400);
  });
});

describe("the store transactions export", () => {
  it("lists every receipt of the range with its status: granted, refunded (when, why, what was short) and rejected (why)", async () => {
    const { res, header, rows } = await download(ownerToken, "store-transactions", RANGE);
    expect(res.status).toBe(200);
    expect(header.slice(0, 17)).toEqual([
      "receipt_id",
      "store",
      "store_transaction_id",
      "original_transaction_id",
      "product_id",
      "store_product_id",
      "player_id",
      "status",
      "refusal",
      "environment",
      "quantity",
      "price",
      "currency",
      "purchased_at",
      "created_at",
      "refunded_at",
      "refund_reason",
    ]);
    expect(header.slice(17)).toEqual(["shortfall_gems"]);
    const byId = new Map(rows.map((r) => [r.receipt_id, r]));
    expect(rows).toHaveLength(4);
    expect(byId.get(receipts.kept)).toMatchObject({
      store: "apple",
      product_id: "gems-500",
      store_product_id: "com.example.game.gems500",
      player_id: buyer.playerId,
      status: "granted",
      quantity: "1",
      price: "4.99",
      currency: "EUR",
      refunded_at: "",
      shortfall_gems: "",
    });
    expect(byId.get(receipts.refunded)).toMatchObject({ status: "refunded", refund_reason: "by hand: chargeback", shortfall_gems: "" });
    expect(byId.get(receipts.refunded)?.refunded_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(byId.get(receipts.shortfall)).toMatchObject({ status: "refunded", player_id: spender.playerId, shortfall_gems: "300" });
    expect(byId.get(receipts.rejected)).toMatchObject({ status: "rejected", refusal: expect.stringMatching(/\S/) });
  });

  it("lists a sale in the range it was made in and, refunded later, in the range of its refund too", async () => {
    await pool().query("UPDATE store_transactions SET created_at = created_at - interval '20 days' WHERE id = $1", [receipts.refunded]);
    try {
      const { rows } = await download(ownerToken, "store-transactions", RANGE);
      expect(rows.map((r) => r.receipt_id)).toContain(receipts.refunded);
      const { rows: then } = await download(ownerToken, "store-transactions", `from=${day(-21)}&to=${day(-19)}`);
      expect(then.map((r) => [r.receipt_id, r.status])).toEqual([[receipts.refunded, "refunded"]]);
    } finally {
      await pool().query("UPDATE store_transactions SET created_at = created_at + interval '20 days' WHERE id = $1", [receipts.refunded]);
    }
  });
});

describe("finance exports: who may export, and the audit", () => {
  it("a viewer is refused both (403 FORBIDDEN)", async () => {
    const viewer = await tokenOf(await newOperator("VIEWER", project.projectId), "VIEWER");
    for (const kind of ["finance-ledger", "store-transactions"]) {
      const res = await get(viewer, kind, RANGE);
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: { code: "FORBIDDEN" } });
    }
  });

  it("an admin's export is audited as export.<kind> with the range as its target and the options as its filters", async () => {
    const admin = await newOperator("ADMIN", project.projectId);
    await (await get(await tokenOf(admin, "ADMIN"), "store-transactions", `${RANGE}&bom=1`)).arrayBuffer();
    const entry = await prisma().auditEntry.findFirst({
      where: { projectId: project.projectId, action: "export.store-transactions", operatorId: admin.id },
    });
    expect(entry).toMatchObject({ target: `${day(-1)}_${day(1)}` });
    expect(entry?.after).toEqual({ format: "csv", from: day(-1), to: day(1), bom: "1" });
  });
});
