import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeSteam, startFakeSteam } from "@/e2e/support/fake-steam.mjs";
import { type SteamInitTxn, type SteamMicroTxnOptions, steamMicroTxn } from "./steam";

const KEY = "publisher-key-for-tests";
const APP = "480";
const PLAYER = "76561197960287930";

let fake: FakeSteam;
let now: Date;
let nextOrder = 1000;

beforeEach(async () => {
  now = new Date("2026-11-01T10:00:00Z");
  fake = await startFakeSteam({ apiKey: KEY, appId: APP, clock: () => now });
});
afterEach(async () => {
  await fake.close();
});

/** No waits between attempts; the default per-attempt timeout (10 s) unless a test needs one to fire. */
const steam = (options: Partial<SteamMicroTxnOptions> = {}) =>
  steamMicroTxn({ appId: APP, apiKey: KEY, sandbox: false, apiUrl: fake.url, retryDelayMs: 0, ...options });

const cart = (overrides: Partial<SteamInitTxn> = {}): SteamInitTxn => ({
  orderId: String(nextOrder++),
  steamId: PLAYER,
  itemId: "1001",
  quantity: 1,
  amountCents: 499,
  currency: "USD",
  description: "500 gems",
  ...overrides,
});
const GEMS = { itemId: "1001", quantity: 1 };

/** An order through InitTxn and the player's approval in the overlay. */
async function approvedOrder(api = steam(), overrides: Partial<SteamInitTxn> = {}) {
  const order = cart(overrides);
  await api.initTxn(order);
  fake.approve(order.orderId);
  return order.orderId;
}

const calls = (name: string) => fake.requests.filter((r) => r.name === name);

describe("initTxn", () => {
  it("posts a form-encoded one-item cart with the key among the parameters and answers Steam's transid", async () => {
    const order = cart({ quantity: 2, amountCents: 998 });
    const started = await steam().initTxn(order);

    expect(started).toEqual({ transId: fake.order(order.orderId).transid, steamUrl: null });
    const [init] = fake.requests;
    expect(init).toMatchObject({ method: "POST", path: "/ISteamMicroTxn/InitTxn/v3/", key: KEY, keyIn: "parameter" });
    expect(init?.contentType).toContain("application/x-www-form-urlencoded");
    expect(init?.params).toEqual({
      orderid: order.orderId,
      steamid: PLAYER,
      appid: APP,
      itemcount: "1",
      language: "en",
      currency: "USD",
      "itemid[0]": "1001",
      "qty[0]": "2",
      "amount[0]": "998",
      "description[0]": "500 gems",
    });
    expect(fake.order(order.orderId).status).toBe("Init");
  });

  it("answers the steamurl Steam gives for a web session", async () => {
    const started = await steam().initTxn(cart({ userSession: "web", ipAddress: "203.0.113.7" }));

    expect(started.steamUrl).toMatch(/^https:\/\/checkout\.steampowered\.com\//);
    expect(fake.requests[0]?.params).toMatchObject({ usersession: "web", ipaddress: "203.0.113.7" });
  });

  it("is RECEIPT_INVALID with Steam's error code when Steam refuses the steamid", async () => {
    await expect(steam().initTxn(cart({ steamId: "123" }))).rejects.toMatchObject({
      code: "RECEIPT_INVALID",
      details: { steamErrorCode: 9, steamErrorDesc: "Account does not exist or is temporarily unavailable" },
    });
  });

  it("refuses a JPY amount that is not a whole yen without calling Steam", async () => {
    await expect(steam().initTxn(cart({ currency: "JPY", amountCents: 12_050 }))).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
      details: { field: "amountCents" },
    });
    expect(fake.requests).toHaveLength(0);
  });

  it("after a timeout is STORE_UNAVAILABLE on the first attempt and tells the caller to abandon the orderid", async () => {
    fake.failNext(1, "timeout");
    const order = cart();

    await expect(steam({ timeoutMs: 300 }).initTxn(order)).rejects.toMatchObject({
      code: "STORE_UNAVAILABLE",
      details: { call: "InitTxn", orderId: order.orderId, abandonOrderId: true, attempts: 1 },
    });
    expect(fake.requests).toHaveLength(1);
  });

  it("after a 503 is STORE_UNAVAILABLE without a second attempt", async () => {
    fake.failNext(1, 503);

    await expect(steam().initTxn(cart())).rejects.toMatchObject({ code: "STORE_UNAVAILABLE", details: { abandonOrderId: true } });
    expect(fake.requests).toHaveLength(1);
  });
});

describe("settle", () => {
  it("is RECEIPT_PENDING for an order the player has not approved, and finalizes nothing", async () => {
    const order = cart();
    await steam().initTxn(order);

    await expect(steam().settle(order.orderId, GEMS)).rejects.toMatchObject({ code: "RECEIPT_PENDING", details: { status: "Init" } });
    expect(calls("FinalizeTxn")).toHaveLength(0);
  });

  it("finalizes an approved order and returns the purchase", async () => {
    const orderId = await approvedOrder();

    const purchase = await steam().settle(orderId, GEMS);

    expect(purchase).toMatchObject({
      store: "steam",
      transactionId: orderId,
      originalTransactionId: null,
      productId: "1001",
      quantity: 1,
      environment: "production",
      purchasedAt: now,
      priceMicros: 4_990_000,
      currency: "USD",
      evidence: { orderid: orderId, transid: fake.order(orderId).transid, steamid: PLAYER, status: "Succeeded", country: "US" },
    });
    expect(calls("FinalizeTxn")).toHaveLength(1);
    expect(fake.order(orderId).status).toBe("Succeeded");
  });

  it("sends the key of its GET requests in the x-webapi-key header, not in the URL", async () => {
    const orderId = await approvedOrder();

    await steam().settle(orderId, GEMS);

    const [query] = calls("QueryTxn");
    expect(query).toMatchObject({ method: "GET", path: "/ISteamMicroTxn/QueryTxn/v3/", keyIn: "header", key: KEY });
    expect(query?.params).toEqual({ appid: APP, orderid: orderId });
  });

  it("returns the same purchase again for an order already finalized, without finalizing twice", async () => {
    const orderId = await approvedOrder();
    const first = await steam().settle(orderId, GEMS);

    const again = await steam().settle(orderId, GEMS);

    expect(again).toEqual(first);
    expect(calls("FinalizeTxn")).toHaveLength(1);
  });

  it("returns the purchase to both of two settles of one approved order at once, and Steam captures once", async () => {
    const orderId = await approvedOrder();

    const [a, b] = await Promise.all([steam().settle(orderId, GEMS), steam().settle(orderId, GEMS)]);

    expect(a.transactionId).toBe(orderId);
    expect(b.transactionId).toBe(orderId);
    expect(fake.order(orderId).status).toBe("Succeeded");
  });

  it("repeats a FinalizeTxn whose answer was lost, and returns the purchase on Steam's 'already committed'", async () => {
    const orderId = await approvedOrder();
    fake.failNext(1, 502, { call: "FinalizeTxn", processed: true });

    const purchase = await steam().settle(orderId, GEMS);

    expect(purchase).toMatchObject({ transactionId: orderId, evidence: { status: "Succeeded" } });
    expect(calls("FinalizeTxn")).toHaveLength(2);
  });

  it("is RECEIPT_CANCELLED for an order the player declined", async () => {
    const order = cart();
    await steam().initTxn(order);
    fake.decline(order.orderId);

    await expect(steam().settle(order.orderId, GEMS)).rejects.toMatchObject({ code: "RECEIPT_CANCELLED", details: { status: "Failed" } });
  });

  it("is RECEIPT_CANCELLED with Steam's status for a refunded order", async () => {
    const orderId = await approvedOrder();
    await steam().settle(orderId, GEMS);
    fake.refund(orderId);

    await expect(steam().settle(orderId, GEMS)).rejects.toMatchObject({ code: "RECEIPT_CANCELLED", details: { status: "Refunded" } });
  });

  it("is RECEIPT_INVALID for an orderid Steam does not know", async () => {
    await expect(steam().settle("999999", GEMS)).rejects.toMatchObject({ code: "RECEIPT_INVALID", details: { steamErrorCode: 3 } });
  });

  it("is RECEIPT_WRONG_PRODUCT for another item, and leaves the order uncaptured", async () => {
    const orderId = await approvedOrder();

    await expect(steam().settle(orderId, { itemId: "2002", quantity: 1 })).rejects.toMatchObject({ code: "RECEIPT_WRONG_PRODUCT" });
    expect(calls("FinalizeTxn")).toHaveLength(0);
    expect(fake.order(orderId).status).toBe("Approved");
  });

  it("is RECEIPT_WRONG_PRODUCT for another quantity of the item", async () => {
    const orderId = await approvedOrder(steam(), { quantity: 2, amountCents: 998 });

    await expect(steam().settle(orderId, GEMS)).rejects.toMatchObject({ code: "RECEIPT_WRONG_PRODUCT" });
  });

  it("is RECEIPT_INVALID for an order of another Steam account when the steamid is given", async () => {
    const orderId = await approvedOrder();

    await expect(steam().settle(orderId, { ...GEMS, steamId: "76561197960287931" })).rejects.toMatchObject({ code: "RECEIPT_INVALID" });
    expect(calls("FinalizeTxn")).toHaveLength(0);
  });

  it("prices a JPY purchase from Steam's hundredths (¥120 is 120,000,000 micros)", async () => {
    const orderId = await approvedOrder(steam(), { currency: "JPY", amountCents: 12_000 });

    const purchase = await steam().settle(orderId, GEMS);

    expect(purchase).toMatchObject({ currency: "JPY", priceMicros: 120_000_000 });
  });

  it("is STORE_NOT_CONFIGURED when Steam refuses the key, at the first answer", async () => {
    const orderId = await approvedOrder();
    const before = fake.requests.length;

    await expect(steam({ apiKey: "revoked" }).settle(orderId, GEMS)).rejects.toMatchObject({
      code: "STORE_NOT_CONFIGURED",
      details: { httpStatus: 403 },
    });
    expect(fake.requests.length - before).toBe(1);
  });

  it("is STORE_NOT_CONFIGURED when configured with an appid the key has no rights to", async () => {
    await expect(steam({ appId: "570" }).settle("1", GEMS)).rejects.toMatchObject({ code: "STORE_NOT_CONFIGURED" });
  });

  it("repeats a query that got a 500 and returns the purchase", async () => {
    const orderId = await approvedOrder();
    fake.failNext(1, 500);

    const purchase = await steam().settle(orderId, GEMS);

    expect(purchase.transactionId).toBe(orderId);
    expect(calls("QueryTxn")).toHaveLength(3); // the 500, the first answer, the query after FinalizeTxn
  });

  it("is STORE_UNAVAILABLE after 1 + retries attempts that all time out", async () => {
    const orderId = await approvedOrder();
    const before = fake.requests.length;
    fake.failNext(3, "timeout");

    await expect(steam({ timeoutMs: 200, retries: 2 }).settle(orderId, GEMS)).rejects.toMatchObject({
      code: "STORE_UNAVAILABLE",
      details: { call: "QueryTxn", attempts: 3 },
    });
    expect(fake.requests.length - before).toBe(3);
  });
});

describe("sandbox", () => {
  it("uses ISteamMicroTxnSandbox for every call and marks the purchase sandbox", async () => {
    const api = steam({ sandbox: true });
    const orderId = await approvedOrder(api);

    const purchase = await api.settle(orderId, GEMS);
    await api.refundsSince({ time: new Date("2026-11-01T00:00:00Z") });

    expect(purchase.environment).toBe("sandbox");
    expect(new Set(fake.requests.map((r) => r.iface))).toEqual(new Set(["ISteamMicroTxnSandbox"]));
  });
});

describe("refundsSince", () => {
  /** Three finalized orders, then a refund, a chargeback and a refund a minute apart. */
  async function threeReversals() {
    const api = steam();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const orderId = await approvedOrder(api);
      await api.settle(orderId, GEMS);
      ids.push(orderId);
    }
    const [a = "", b = "", c = ""] = ids;
    const minute = (n: number) => new Date(Date.parse("2026-11-01T11:00:00Z") + n * 60_000);
    now = minute(1);
    fake.refund(a);
    now = minute(2);
    fake.refund(b, { chargeback: true });
    now = minute(3);
    fake.refund(c);
    return { api, a, b, c, minute };
  }

  it("asks GetReport v5 for the CHARGEBACK report from the given time", async () => {
    await steam().refundsSince({ time: new Date("2026-11-01T11:00:00.500Z"), maxResults: 500 });

    expect(fake.requests[0]).toMatchObject({ method: "GET", path: "/ISteamMicroTxn/GetReport/v5/" });
    expect(fake.requests[0]?.params).toEqual({ appid: APP, type: "CHARGEBACK", time: "2026-11-01T11:00:00Z", maxresults: "500" });
  });

  it("returns refunds and chargebacks with Steam's status as the reason", async () => {
    const { api, a, b, minute } = await threeReversals();

    const page = await api.refundsSince({ time: minute(0) });

    expect(page.reversals.slice(0, 2)).toEqual([
      expect.objectContaining({ store: "steam", transactionId: a, kind: "refund", reason: "Refunded", at: minute(1) }),
      expect.objectContaining({ store: "steam", transactionId: b, kind: "refund", reason: "Chargedback", at: minute(2) }),
    ]);
    expect(page.reversals[0]?.evidence).toMatchObject({ orderid: a, steamid: PLAYER, status: "Refunded" });
  });

  it("pages by the latest time of each batch, the boundary row coming again", async () => {
    const { api, a, b, c, minute } = await threeReversals();

    const first = await api.refundsSince({ time: minute(0), maxResults: 2 });
    const second = await api.refundsSince({ time: first.nextTime ?? minute(99), maxResults: 2 });

    expect(first.reversals.map((r) => r.transactionId)).toEqual([a, b]);
    expect(first.nextTime).toEqual(minute(2));
    expect(second.reversals.map((r) => r.transactionId)).toEqual([b, c]);
    expect(second.nextTime).toEqual(minute(3));
  });

  it("answers no reversals and a null nextTime when nothing was taken back since the time", async () => {
    const page = await steam().refundsSince({ time: new Date("2026-11-01T00:00:00Z") });

    expect(page).toEqual({ reversals: [], nextTime: null });
  });
});
