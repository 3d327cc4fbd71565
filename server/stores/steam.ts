import { z } from "zod";
import { AppError } from "@/server/errors";
import type { StoreReversal, VerifiedPurchase } from "./types";

/**
 * Steam's microtransaction Web API (ISteamMicroTxn, or ISteamMicroTxnSandbox for test purchases):
 *   https://partner.steamgames.com/doc/webapi/ISteamMicroTxn
 *   https://partner.steamgames.com/doc/features/microtransactions/implementation (the flow, Appendix A
 *   status values, B error codes, C report types)
 * The game asks us for an order, we InitTxn it, the player approves in the overlay, the game tells
 * us (MicroTxnAuthorizationResponse_t), and settle() finalizes the order and returns the purchase.
 * Steam signs nothing: what Steam says over TLS with our publisher key is the proof.
 */

export type SteamMicroTxnOptions = {
  appId: string;
  /** The publisher Web API key with microtransaction permissions. */
  apiKey: string;
  /** Use ISteamMicroTxnSandbox: no money moves, purchases are granted as "sandbox". */
  sandbox: boolean;
  apiUrl?: string;
  /** Per attempt. */
  timeoutMs?: number;
  /** Extra attempts after a 5xx, a timeout or a connection error, for the calls that may repeat. */
  retries?: number;
  /** Wait before the n-th retry: retryDelayMs × 2^(n-1). */
  retryDelayMs?: number;
};

export type SteamInitTxn = {
  /** Ours: a uint64 as a decimal string, unique per order and never reused (see initTxn). */
  orderId: string;
  steamId: string;
  /** The Steam item id (uint32): the part after `steam:` in our product key. */
  itemId: string;
  quantity: number;
  /**
   * The total, in hundredths of the currency's unit for EVERY currency, as Steam counts them
   * (JPY 100 = ¥1, KRW in jeon): https://partner.steamgames.com/doc/store/pricing/currencies
   */
  amountCents: number;
  currency: string;
  /** Shown to the player in the overlay; at most 128 characters. */
  description: string;
  /** ISO 639-1 language of the description; "en" when absent. */
  language?: string;
  /** "client" (the overlay; Steam's default) or "web" (Steam answers a steamUrl to redirect to). */
  userSession?: "client" | "web";
  ipAddress?: string;
};

export type SteamExpected = {
  itemId: string;
  quantity: number;
  /** When given, an order of another Steam account is refused. */
  steamId?: string;
};

const DEFAULTS = { apiUrl: "https://partner.steam-api.com", timeoutMs: 10_000, retries: 2, retryDelayMs: 250 };

/** Appendix A: an order in one of these was refused or taken back; nothing may be granted for it. */
const CANCELLED_STATUSES = new Set([
  "Failed",
  "Refunded",
  "PartialRefund",
  "Chargedback",
  "RefundedSuspectedFraud",
  "RefundedFriendlyFraud",
]);
/** Appendix A: the reversals GetReport tells us about. */
const REVERSED_STATUSES = new Set(["Refunded", "PartialRefund", "Chargedback", "RefundedSuspectedFraud", "RefundedFriendlyFraud"]);

/** Appendix B error codes this adapter treats specially. */
const STEAM_INTERNAL_ERROR = 4;
const NOT_APPROVED = 5;
const ALREADY_COMMITTED = 6;
/** FinalizeTxn refusals that end the order: denied by the user, no funds, too late, account disabled or not allowed, fraud. */
const FINALIZE_ENDS_ORDER = new Set([10, 100, 101, 102, 103, 104]);

/**
 * Currencies Steam charges only in steps of whole units or more ("Must be charged in increments of
 * …", https://partner.steamgames.com/doc/store/pricing/currencies), in Steam's hundredths. Checked
 * before InitTxn so a wrong catalogue price is a clear error, not Steam's "Invalid parameter".
 */
const STEAM_INCREMENTS: Record<string, number> = {
  CLP: 100,
  COP: 100,
  CRC: 500,
  IDR: 100,
  INR: 100,
  JPY: 100,
  KRW: 1000,
  KZT: 100,
  TWD: 100,
  UAH: 100,
  UYU: 100,
  VND: 50_000,
};

const UINT64 = /^\d{1,20}$/;
const UINT32_MAX = 2 ** 32 - 1;
/** InitTxn v3 "Enforced quantity amounts to be a 16 bit number" (qty is int16). */
const QTY_MAX = 2 ** 15 - 1;

/** 64-bit ids are strings since v2/v3; numbers are accepted in case an answer carries them unquoted. */
const Id = z.union([z.string(), z.number()]).transform(String);
const Count = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d+$/)
    .transform(Number),
]);
const Rfc3339 = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "not an RFC 3339 time");

const SteamItem = z.object({
  itemid: Id,
  qty: Count,
  /** "Total cost to user minus VAT (in cents)". */
  amount: Count,
  vat: Count.optional(),
  itemstatus: z.string().optional(),
});
/** QueryTxn v3's params and one order of GetReport v5. */
const SteamOrder = z.object({
  orderid: Id,
  transid: Id,
  steamid: Id,
  status: z.string(),
  currency: z.string(),
  time: Rfc3339,
  timecreated: Rfc3339.optional(),
  country: z.string().optional(),
  usstate: z.string().optional(),
  items: z.array(SteamItem).default([]),
});
type SteamOrder = z.infer<typeof SteamOrder>;
const InitParams = z.object({ orderid: Id, transid: Id, steamurl: z.string().optional() });
const ReportParams = z.object({ orders: z.array(SteamOrder).default([]) });

/** The envelope every ISteamMicroTxn answer comes in. */
const Envelope = z.object({
  response: z.object({
    result: z.string(),
    params: z.unknown().optional(),
    error: z.object({ errorcode: Count, errordesc: z.string().default("") }).optional(),
  }),
});

type Answer = { ok: true; params: unknown } | { ok: false; code: number; desc: string };

/** Why one attempt got no usable answer; the attempt may be repeated. */
class Transient extends Error {}

const rfc3339 = (date: Date) => `${date.toISOString().slice(0, 19)}Z`;

export function steamMicroTxn(options: SteamMicroTxnOptions) {
  const o = { ...DEFAULTS, ...options };
  const iface = o.sandbox ? "ISteamMicroTxnSandbox" : "ISteamMicroTxn";
  const environment = o.sandbox ? "sandbox" : "production";

  async function attempt(method: "GET" | "POST", name: string, version: number, params: Record<string, string>): Promise<Answer> {
    const url = new URL(`${o.apiUrl.replace(/\/$/, "")}/${iface}/${name}/v${version}/`);
    const init: RequestInit = { method, signal: AbortSignal.timeout(o.timeoutMs) };
    if (method === "POST") {
      // The guide's way: form-encoded POST with `key` among the parameters (in the body, not the URL).
      init.body = new URLSearchParams({ key: o.apiKey, ...params });
      init.headers = { "content-type": "application/x-www-form-urlencoded; charset=utf-8" };
    } else {
      // A GET's parameters are in the URL, which proxies log: the key goes in the header Steam also
      // accepts (https://partner.steamgames.com/doc/webapi_overview/auth).
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      init.headers = { "x-webapi-key": o.apiKey };
    }
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, init);
      text = await res.text();
    } catch (error) {
      throw new Transient(error instanceof Error && error.name === "TimeoutError" ? `no answer within ${o.timeoutMs} ms` : String(error));
    }
    if (res.status === 401 || res.status === 403) {
      throw new AppError("STORE_NOT_CONFIGURED", {
        message: "Steam refused the publisher key for this app.",
        details: { store: "steam", httpStatus: res.status },
      });
    }
    if (res.status >= 500 || res.status === 429) throw new Transient(`HTTP ${res.status}`);
    if (!res.ok) throw new Error(`Steam ${iface}/${name} answered HTTP ${res.status}: ${text.slice(0, 200)}`);
    let envelope: z.infer<typeof Envelope>;
    try {
      envelope = Envelope.parse(JSON.parse(text));
    } catch {
      throw new Transient(`an answer that is not Steam's JSON envelope: ${text.slice(0, 100)}`);
    }
    const { result, params: answered, error } = envelope.response;
    if (result === "OK") return { ok: true, params: answered };
    return { ok: false, code: error?.errorcode ?? 0, desc: error?.errordesc ?? result };
  }

  /**
   * One call, repeated after a 5xx, a timeout, a connection error or Steam's "Internal error" when
   * `repeatable`; then STORE_UNAVAILABLE. A refused key is STORE_NOT_CONFIGURED at once.
   */
  async function call(
    method: "GET" | "POST",
    name: string,
    version: number,
    params: Record<string, string>,
    repeatable: boolean,
  ): Promise<Answer> {
    const attempts = repeatable ? o.retries + 1 : 1;
    let last = "";
    for (let n = 0; n < attempts; n++) {
      if (n > 0 && o.retryDelayMs > 0) await new Promise((r) => setTimeout(r, o.retryDelayMs * 2 ** (n - 1)));
      try {
        const answer = await attempt(method, name, version, params);
        if (answer.ok || answer.code !== STEAM_INTERNAL_ERROR) return answer;
        last = `Steam error ${answer.code}: ${answer.desc}`;
      } catch (error) {
        if (!(error instanceof Transient)) throw error;
        last = error.message;
      }
    }
    throw new AppError("STORE_UNAVAILABLE", { details: { store: "steam", call: name, attempts, lastError: last } });
  }

  const parse = <T>(schema: z.ZodType<T>, value: unknown, name: string): T => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    throw new AppError("STORE_UNAVAILABLE", { details: { store: "steam", call: name, lastError: "an answer of an unexpected shape" } });
  };
  const steamRefusal = (code: "RECEIPT_INVALID" | "RECEIPT_PENDING" | "RECEIPT_CANCELLED", answer: { code: number; desc: string }) =>
    new AppError(code, { details: { store: "steam", steamErrorCode: answer.code, steamErrorDesc: answer.desc } });

  async function queryTxn(orderId: string): Promise<SteamOrder> {
    const answer = await call("GET", "QueryTxn", 3, { appid: o.appId, orderid: orderId }, true);
    // QueryTxn is scoped by our appid: another app's order, or one never created, is simply not there.
    if (!answer.ok) throw steamRefusal("RECEIPT_INVALID", answer);
    return parse(SteamOrder, answer.params, "QueryTxn");
  }

  function checkOrder(order: SteamOrder, orderId: string, expected: SteamExpected) {
    const [item, ...more] = order.items;
    if (order.orderid !== orderId)
      throw new AppError("RECEIPT_INVALID", { details: { store: "steam", orderId, answeredOrderId: order.orderid } });
    if (expected.steamId !== undefined && order.steamid !== expected.steamId) {
      throw new AppError("RECEIPT_INVALID", {
        message: "This order belongs to another Steam account.",
        details: { store: "steam", orderId },
      });
    }
    // Our orders carry one item line (initTxn); anything else is not the product we were asked about.
    if (!item || more.length > 0 || item.itemid !== expected.itemId || item.qty !== expected.quantity) {
      throw new AppError("RECEIPT_WRONG_PRODUCT", {
        details: { store: "steam", orderId, expected: { itemId: expected.itemId, quantity: expected.quantity }, items: order.items },
      });
    }
  }

  function toPurchase(order: SteamOrder): VerifiedPurchase {
    const items = order.items;
    // Steam counts hundredths for every currency (JPY and KRW too), so × 10^4 is millionths.
    const hundredths = items.reduce((sum, i) => sum + i.amount + (i.vat ?? 0), 0);
    const micros = hundredths * 10_000;
    return {
      store: "steam",
      transactionId: order.orderid,
      originalTransactionId: null,
      productId: items[0]?.itemid ?? "",
      quantity: items[0]?.qty ?? 1,
      environment,
      purchasedAt: new Date(order.time),
      priceMicros: Number.isSafeInteger(micros) ? micros : null,
      currency: order.currency || null,
      evidence: { interface: iface, ...order },
    };
  }

  /** What an order in this state gives: the purchase, or the refusal. */
  function verdict(order: SteamOrder, finalized: boolean): VerifiedPurchase {
    // FinalizeTxn's OK means "payment has been completed": a query racing it may still say Approved.
    if (order.status === "Succeeded" || (finalized && order.status === "Approved")) return toPurchase(order);
    if (order.status === "Init" || order.status === "Approved") {
      throw new AppError("RECEIPT_PENDING", { details: { store: "steam", orderId: order.orderid, status: order.status } });
    }
    const code = CANCELLED_STATUSES.has(order.status) ? "RECEIPT_CANCELLED" : "RECEIPT_INVALID";
    throw new AppError(code, { details: { store: "steam", orderId: order.orderid, status: order.status } });
  }

  return {
    /**
     * InitTxn v3. Never repeated: the guide says "In the event of a timeout or some other
     * communication error, abandon the transaction and create a new one", and nothing in the
     * reference makes a repeated orderid idempotent. So any STORE_UNAVAILABLE here means: this
     * orderId is spent; start again with a new one (details.abandonOrderId).
     */
    async initTxn(t: SteamInitTxn): Promise<{ transId: string; steamUrl: string | null }> {
      const invalid = (field: string, rule: string) => new AppError("VALIDATION_ERROR", { details: { store: "steam", field, rule } });
      if (!UINT64.test(t.orderId) || BigInt(t.orderId) >= 2n ** 64n) throw invalid("orderId", "a uint64 as a decimal string");
      if (!UINT64.test(t.steamId)) throw invalid("steamId", "a 64-bit Steam id as a decimal string");
      if (!/^\d{1,10}$/.test(t.itemId) || Number(t.itemId) > UINT32_MAX) throw invalid("itemId", "a uint32 as a decimal string");
      if (!Number.isInteger(t.quantity) || t.quantity < 1 || t.quantity > QTY_MAX) throw invalid("quantity", `1 to ${QTY_MAX}`);
      if (!/^[A-Z]{3}$/.test(t.currency)) throw invalid("currency", "an ISO 4217 code");
      const step = STEAM_INCREMENTS[t.currency] ?? 1;
      if (!Number.isSafeInteger(t.amountCents) || t.amountCents < 0 || t.amountCents % step !== 0) {
        throw invalid("amountCents", `a whole number of hundredths, in steps of ${step} for ${t.currency}`);
      }
      if (t.description.length === 0 || t.description.length > 128) throw invalid("description", "1 to 128 characters");

      const params: Record<string, string> = {
        orderid: t.orderId,
        steamid: t.steamId,
        appid: o.appId,
        itemcount: "1",
        language: t.language ?? "en",
        currency: t.currency,
        "itemid[0]": t.itemId,
        "qty[0]": String(t.quantity),
        "amount[0]": String(t.amountCents),
        "description[0]": t.description,
      };
      if (t.userSession) params.usersession = t.userSession;
      if (t.ipAddress) params.ipaddress = t.ipAddress;
      let answer: Answer;
      try {
        answer = await call("POST", "InitTxn", 3, params, false);
      } catch (error) {
        if (error instanceof AppError && error.code === "STORE_UNAVAILABLE") {
          throw new AppError("STORE_UNAVAILABLE", { details: { ...error.details, orderId: t.orderId, abandonOrderId: true } });
        }
        throw error;
      }
      if (!answer.ok) {
        if (answer.code === STEAM_INTERNAL_ERROR) {
          throw new AppError("STORE_UNAVAILABLE", {
            details: { store: "steam", call: "InitTxn", orderId: t.orderId, abandonOrderId: true },
          });
        }
        // A bad steamid, a user not logged in, a restricted country, a wrong currency or amount…
        throw steamRefusal("RECEIPT_INVALID", answer);
      }
      const init = parse(InitParams, answer.params, "InitTxn");
      return { transId: init.transid, steamUrl: init.steamurl ?? null };
    },

    /**
     * QueryTxn v3, then FinalizeTxn v2 for an approved order. Safe to call again for the same
     * order: after a crash between FinalizeTxn and the grant, QueryTxn says Succeeded and the
     * purchase comes back the same. The item is checked BEFORE FinalizeTxn, so a wrong product is
     * never charged.
     */
    async settle(orderId: string, expected: SteamExpected): Promise<VerifiedPurchase> {
      if (!UINT64.test(orderId)) throw new AppError("RECEIPT_INVALID", { details: { store: "steam", orderId } });
      const order = await queryTxn(orderId);
      checkOrder(order, orderId, expected);
      if (order.status !== "Approved") return verdict(order, false);

      // Repeating FinalizeTxn is safe: a second one of a finished order gets "already committed" (6).
      const answer = await call("POST", "FinalizeTxn", 2, { orderid: orderId, appid: o.appId }, true);
      if (answer.ok || answer.code === ALREADY_COMMITTED) {
        // Query again for what was captured: a currency conversion happens at finalization.
        const done = await queryTxn(orderId);
        checkOrder(done, orderId, expected);
        return verdict(done, answer.ok);
      }
      if (answer.code === NOT_APPROVED) throw steamRefusal("RECEIPT_PENDING", answer);
      if (FINALIZE_ENDS_ORDER.has(answer.code)) throw steamRefusal("RECEIPT_CANCELLED", answer);
      throw steamRefusal("RECEIPT_INVALID", answer);
    },

    /**
     * GetReport v5 of type CHARGEBACK ("Any in-game transactions that have been revoked due to
     * refunds or chargebacks", Appendix C), from `time` on. Steam's paging: call again with the
     * latest `time` of the batch (nextTime), and keep the same time while nothing comes back
     * (nextTime null). The row at nextTime comes again in the next batch, so the caller must
     * treat a reversal it already recorded as done.
     */
    async refundsSince(q: { time: Date; maxResults?: number }): Promise<{ reversals: StoreReversal[]; nextTime: Date | null }> {
      const params: Record<string, string> = { appid: o.appId, type: "CHARGEBACK", time: rfc3339(q.time) };
      if (q.maxResults !== undefined) params.maxresults = String(q.maxResults);
      const answer = await call("GET", "GetReport", 5, params, true);
      if (!answer.ok) {
        throw new AppError("STORE_UNAVAILABLE", {
          details: { store: "steam", call: "GetReport", lastError: `Steam error ${answer.code}: ${answer.desc}` },
        });
      }
      const { orders } = parse(ReportParams, answer.params, "GetReport");
      let latest: number | null = null;
      const reversals: StoreReversal[] = [];
      for (const order of orders) {
        const at = new Date(order.time);
        if (latest === null || at.getTime() > latest) latest = at.getTime();
        // orderid 0 is a subscription Steam's store began: never one of our orders.
        if (!REVERSED_STATUSES.has(order.status) || order.orderid === "0") continue;
        reversals.push({
          store: "steam",
          transactionId: order.orderid,
          kind: "refund",
          reason: order.status,
          at,
          evidence: { interface: iface, ...order },
        });
      }
      return { reversals, nextTime: latest === null ? null : new Date(latest) };
    },
  };
}

export type SteamMicroTxn = ReturnType<typeof steamMicroTxn>;
