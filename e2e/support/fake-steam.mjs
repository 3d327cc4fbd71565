// A loopback stand-in for Steam's microtransaction Web API, answering like the published one:
//   interface reference: https://partner.steamgames.com/doc/webapi/ISteamMicroTxn
//   (InitTxn v3, QueryTxn v3, FinalizeTxn v2, GetReport v5; ISteamMicroTxnSandbox is "identical to
//   the regular ISteamMicroTxn interface": https://partner.steamgames.com/doc/webapi/ISteamMicroTxnSandbox)
//   status values, error codes, report types: Appendix A, B and C of
//   https://partner.steamgames.com/doc/features/microtransactions/implementation
//   key as a `key` parameter or the `x-webapi-key` header: https://partner.steamgames.com/doc/webapi_overview/auth
// Steam itself is not reachable from the test machines. Each interface keeps its own orders, as
// the sandbox is "a dummy database". Plain JavaScript so scripts can use it too; types in
// fake-steam.d.mts.
import { createServer } from "node:http";

const INTERFACES = ["ISteamMicroTxn", "ISteamMicroTxnSandbox"];
/** Method → [HTTP method, version] as the interface reference lists them. */
const METHODS = {
  InitTxn: ["POST", 3],
  QueryTxn: ["GET", 3],
  FinalizeTxn: ["POST", 2],
  GetReport: ["GET", 5],
};
/** Appendix A: the states in which a purchase was taken back. */
const REVERSED = new Set(["Refunded", "PartialRefund", "Chargedback", "RefundedSuspectedFraud", "RefundedFriendlyFraud"]);
const REPORT_TYPES = new Set(["GAMESALES", "STEAMSTORESALES", "SETTLEMENT", "CHARGEBACK", "SUBSCRIPTION"]);

/** RFC 3339 UTC without fractions, "formatted like: 2010-01-01T00:00:00Z" (the reference's words). */
const rfc3339 = (date) => `${date.toISOString().slice(0, 19)}Z`;

/**
 * Starts the fake on 127.0.0.1 and `port` (a free one by default). `clock` gives the time the fake stamps on orders
 * (tests that page through GetReport move it forward). `transIdStart` numbers Steam's transids.
 */
export async function startFakeSteam({ apiKey, appId, clock = () => new Date(), transIdStart = 7_000_000_000_000_000_000n, port = 0 }) {
  /** orderid → order, per interface. */
  const orders = new Map(INTERFACES.map((name) => [name, new Map()]));
  /** Everything the fake received, in order (the key too: this is a test double). */
  const requests = [];
  /** Pending forced failures: an HTTP status to answer with, or "timeout" (never answer). */
  const failures = [];
  let nextTransId = transIdStart;

  const find = (orderId) => {
    for (const name of INTERFACES) {
      const order = orders.get(name)?.get(orderId);
      if (order) return order;
    }
    throw new Error(`fake Steam: no order ${orderId}`);
  };
  const touch = (order, status) => {
    order.status = status;
    order.time = clock();
  };

  const ok = (params) => ({ response: { result: "OK", params } });
  const failure = (errorcode, errordesc, params) => ({
    response: { result: "Failure", ...(params ? { params } : {}), error: { errorcode, errordesc } },
  });

  /** QueryTxn's and GetReport's view of an order (string 64-bit ids since v2/v3). */
  const view = (order) => ({
    orderid: order.orderid,
    transid: order.transid,
    steamid: order.steamid,
    status: order.status,
    currency: order.currency,
    time: rfc3339(order.time),
    country: "US",
    usstate: "WA",
    timecreated: rfc3339(order.created),
    items: order.items.map((item) => ({
      itemid: item.itemid,
      qty: item.qty,
      // "Total cost to user minus VAT (in cents)"; this fake charges no VAT.
      amount: item.amount,
      vat: 0,
      itemstatus: order.status,
    })),
  });

  const handlers = {
    InitTxn(iface, p) {
      const count = Number(p.itemcount);
      if (!Number.isInteger(count) || count < 1) return failure(3, "Invalid parameter: itemcount");
      const items = [];
      for (let i = 0; i < count; i++) {
        const itemid = Number(p[`itemid[${i}]`]);
        const qty = Number(p[`qty[${i}]`]);
        const amount = Number(p[`amount[${i}]`]);
        const description = p[`description[${i}]`];
        // uint32 item ids, int16 quantities (v3 enforces 16 bits), descriptions up to 128 characters.
        const valid = Number.isInteger(itemid) && itemid >= 0 && itemid < 2 ** 32 && Number.isInteger(qty) && qty > 0 && qty < 2 ** 15;
        if (!valid || !Number.isInteger(amount) || amount < 0 || !description || description.length > 128) {
          return failure(3, `Invalid parameter: item ${i}`, { orderid: p.orderid });
        }
        items.push({ itemid, qty, amount });
      }
      // Individual accounts' 64-bit ids start 7656119…; anything else stands for "no such account" here.
      if (!/^\d{1,20}$/.test(p.steamid) || !p.steamid.startsWith("7656119")) {
        return failure(9, "Account does not exist or is temporarily unavailable", { orderid: p.orderid });
      }
      if (!/^[A-Z]{3}$/.test(p.currency ?? "")) return failure(3, "Invalid parameter: currency", { orderid: p.orderid });
      const book = orders.get(iface);
      // The reference does not say what a reused orderid gets; this fake refuses it (an assumption).
      if (book.has(p.orderid)) return failure(3, "Invalid parameter: duplicate orderid", { orderid: p.orderid });
      const now = clock();
      const order = {
        orderid: p.orderid,
        transid: String(nextTransId++),
        steamid: p.steamid,
        currency: p.currency,
        items,
        status: "Init",
        created: now,
        time: now,
      };
      book.set(p.orderid, order);
      const params = { orderid: order.orderid, transid: order.transid };
      // "steamurl - Optional URL returned when the usersession input is set to web."
      if (p.usersession === "web") params.steamurl = `https://checkout.steampowered.com/checkout/approvetxn/${order.transid}/?returnurl=`;
      return ok(params);
    },
    QueryTxn(iface, p) {
      const order = orders.get(iface).get(p.orderid ?? "") ?? [...orders.get(iface).values()].find((o) => o.transid === p.transid);
      // The reference documents no answer for an unknown order; Failure with "Invalid parameter" is this fake's guess.
      if (!order) return failure(3, "Invalid parameter: order not found");
      return ok(view(order));
    },
    FinalizeTxn(iface, p) {
      const order = orders.get(iface).get(p.orderid);
      if (!order) return failure(3, "Invalid parameter: order not found", { orderid: p.orderid });
      // Appendix B: 5 "User has not approved transaction", 10 "Transaction has been denied by user",
      // 6 "Transaction has already been committed" (what a second FinalizeTxn of a finished order gets).
      if (order.status === "Init") return failure(5, "User has not approved transaction", { orderid: order.orderid });
      if (order.status === "Failed") return failure(10, "Transaction has been denied by user", { orderid: order.orderid });
      if (order.status !== "Approved") return failure(6, "Transaction has already been committed", { orderid: order.orderid });
      touch(order, "Succeeded");
      return ok({ orderid: order.orderid, transid: order.transid });
    },
    GetReport(iface, p) {
      const type = p.type ?? "GAMESALES";
      if (!REPORT_TYPES.has(type)) return failure(3, "Invalid parameter: type");
      const since = Date.parse(p.time ?? "");
      if (Number.isNaN(since)) return failure(3, "Invalid parameter: time");
      // "Default is 1000 if no value is set … Maximum number of results is 50000."
      const max = Math.min(Number(p.maxresults ?? 1000) || 1000, 50_000);
      const rows = [...orders.get(iface).values()]
        // GAMESALES: "Only transactions that were initialized via … InitTxn"; CHARGEBACK: "Any in-game
        // transactions that have been revoked due to refunds or chargebacks"; SETTLEMENT: all of them.
        .filter((o) => (type === "CHARGEBACK" ? REVERSED.has(o.status) : type !== "STEAMSTORESALES" && type !== "SUBSCRIPTION"))
        .filter((o) => o.status !== "Init" && o.status !== "Approved")
        .filter((o) => Math.floor(o.time.getTime() / 1000) * 1000 >= since)
        .sort((a, b) => a.time.getTime() - b.time.getTime())
        .slice(0, max)
        .map(view);
      return ok({ count: rows.length, orders: rows });
    },
  };

  const send = (res, status, body, type = "application/json; charset=UTF-8") => {
    res.writeHead(status, { "content-type": type });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake-steam");
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString("utf8");
    const form = req.method === "POST" ? new URLSearchParams(body) : url.searchParams;
    const params = Object.fromEntries(form);
    const [, iface = "", name = "", version = ""] = url.pathname.split("/");
    const presentedKey = params.key ?? req.headers["x-webapi-key"];
    delete params.key;
    requests.push({
      method: req.method,
      path: url.pathname,
      iface,
      name,
      version,
      params,
      key: presentedKey,
      keyIn: form.has("key") ? "parameter" : req.headers["x-webapi-key"] ? "header" : "none",
      contentType: req.headers["content-type"] ?? null,
    });

    // A forced failure for this call (or any call), before Steam acts on it or after (a lost answer).
    const index = failures.findIndex((f) => f.call === undefined || f.call === name);
    const forced = index === -1 ? undefined : failures.splice(index, 1)[0];
    const fail = () => {
      if (forced?.status === "timeout") return; // never answers; close() drops the connection
      send(res, forced?.status ?? 500, `<html><head><title>${forced?.status}</title></head><body>fake failure</body></html>`, "text/html");
    };
    if (forced && !forced.processed) return fail();

    const method = METHODS[name];
    if (!INTERFACES.includes(iface) || !method || version !== `v${method[1]}`) {
      return send(res, 404, "<html><head><title>Not Found</title></head><body><h1>Not Found</h1></body></html>", "text/html");
    }
    if (req.method !== method[0]) {
      return send(res, 405, "<html><head><title>Method Not Allowed</title></head><body>Method Not Allowed</body></html>", "text/html");
    }
    // A wrong or missing publisher key, or a key without rights to this appid, gets Steam's HTML 403.
    if (presentedKey !== apiKey || (params.appid !== undefined && params.appid !== appId)) {
      return send(
        res,
        403,
        "<html><head><title>Forbidden</title></head><body><h1>Forbidden</h1>Access is denied.</body></html>",
        "text/html",
      );
    }
    const required = {
      InitTxn: ["orderid", "steamid", "appid", "itemcount", "language", "currency"],
      QueryTxn: ["appid"],
      FinalizeTxn: ["orderid", "appid"],
      GetReport: ["appid", "time"],
    }[name];
    const missing = required.find((field) => params[field] === undefined);
    if (missing) {
      return send(
        res,
        400,
        `<html><head><title>Bad Request</title></head><body>Required parameter '${missing}' is missing</body></html>`,
        "text/html",
      );
    }
    const answer = handlers[name](iface, params);
    if (forced) return fail();
    send(res, 200, answer);
  });

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : 0;

  return {
    url: `http://127.0.0.1:${bound}`,
    requests,
    /** The player approves in the overlay (MicroTxnAuthorizationResponse_t with m_bAuthorized = 1). */
    approve(orderId) {
      const order = find(orderId);
      if (order.status !== "Init") throw new Error(`fake Steam: order ${orderId} is ${order.status}, not Init`);
      touch(order, "Approved");
    },
    /** The player declines (or the authorization fails): "Failed - Order has failed or been denied." */
    decline(orderId) {
      const order = find(orderId);
      if (order.status !== "Init" && order.status !== "Approved") throw new Error(`fake Steam: order ${orderId} is ${order.status}`);
      touch(order, "Failed");
    },
    /** Takes a finished purchase back: a refund, or a chargeback ("Chargedback"). */
    refund(orderId, { chargeback = false } = {}) {
      const order = find(orderId);
      if (order.status !== "Succeeded") throw new Error(`fake Steam: order ${orderId} is ${order.status}, not Succeeded`);
      touch(order, chargeback ? "Chargedback" : "Refunded");
    },
    /**
     * The next `n` requests (of `call` only, when given) get HTTP `status` (an HTML body, as Steam's
     * front ends send) or no answer at all. `processed`: Steam acts on the request first, and only
     * the answer is lost (a FinalizeTxn that captured the funds but never told us).
     */
    failNext(n, status, { call, processed = false } = {}) {
      for (let i = 0; i < n; i++) failures.push({ status, call, processed });
    },
    /** An order as the fake holds it (status, items), for assertions. */
    order(orderId) {
      return view(find(orderId));
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}
