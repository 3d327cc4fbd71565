import { z } from "zod";
import {
  ZAmountBody,
  ZBalanceDto,
  ZChangedBalance,
  ZCurrencyParams,
  ZInventoryEntry,
  ZPurchaseBody,
  ZPurchaseResult,
  ZTransactionPage,
  ZTransactionsQuery,
} from "../../services/economy/schemas";
import { ZReceiptBody, ZReceiptResult, ZSteamOrder, ZSteamOrderBody } from "../../services/store/schemas";
import { endpoint } from "../endpoint";
import { ZIdempotencyHeader } from "../idempotency";

const tags = ["economy"];
const IDEMPOTENCY =
  "With `Idempotency-Key`: a repeat with the same body within 24 h replays the first answer with `Idempotent-Replayed: true` " +
  "and changes nothing; another body is 422 IDEMPOTENCY_KEY_REUSED; a repeat while the first runs is 409 " +
  "IDEMPOTENCY_IN_PROGRESS. A refused change is not recorded: its retry runs again.";

export const listBalancesEndpoint = endpoint({
  method: "GET",
  path: "/economy/currencies",
  auth: "player",
  doc: {
    operationId: "listBalances",
    tags,
    summary: "Every currency of the project with the player's balance",
    description: "A balance starts at the currency's initial balance the first time it is read or changed.",
    ok: { status: 200, description: "The balances, by currency id.", schema: z.array(ZBalanceDto) },
  },
});

const changeDoc = (direction: "add" | "subtract") => ({
  operationId: direction === "add" ? "addCurrency" : "subtractCurrency",
  tags,
  summary: direction === "add" ? "Add to the player's balance" : "Subtract from the player's balance",
  description:
    (direction === "add"
      ? "Over the currency's maximum (or 2^53 − 1): 409 CURRENCY_MAX_EXCEEDED. "
      : "Below zero: 409 INSUFFICIENT_FUNDS with `details: {currencyId, balance, requested}`. ") +
    "Currencies with `clientWritable: false` refuse client keys (403 CLIENT_WRITE_FORBIDDEN); a server key with X-Player-Id may change them. " +
    IDEMPOTENCY,
  headers: ZIdempotencyHeader,
  ok: { status: 200 as const, description: "The balance after the change and its ledger entry.", schema: ZChangedBalance },
  errors: [
    "CURRENCY_NOT_FOUND",
    "CLIENT_WRITE_FORBIDDEN",
    direction === "add" ? "CURRENCY_MAX_EXCEEDED" : "INSUFFICIENT_FUNDS",
    "IDEMPOTENCY_KEY_REUSED",
    "IDEMPOTENCY_IN_PROGRESS",
  ] as const,
});

export const addCurrencyEndpoint = endpoint({
  method: "POST",
  path: "/economy/currencies/{id}/add",
  auth: "player",
  params: ZCurrencyParams,
  body: ZAmountBody,
  idempotent: true,
  doc: { ...changeDoc("add"), errors: [...changeDoc("add").errors] },
});

export const subtractCurrencyEndpoint = endpoint({
  method: "POST",
  path: "/economy/currencies/{id}/subtract",
  auth: "player",
  params: ZCurrencyParams,
  body: ZAmountBody,
  idempotent: true,
  doc: { ...changeDoc("subtract"), errors: [...changeDoc("subtract").errors] },
});

export const inventoryEndpoint = endpoint({
  method: "GET",
  path: "/economy/inventory",
  auth: "player",
  doc: {
    operationId: "getInventory",
    tags,
    summary: "The player's items (quantity above zero), by item id",
    ok: { status: 200, description: "The inventory.", schema: z.array(ZInventoryEntry) },
  },
});

export const purchaseEndpoint = endpoint({
  method: "POST",
  path: "/economy/purchase",
  auth: "player",
  body: ZPurchaseBody,
  idempotent: true,
  doc: {
    operationId: "purchase",
    tags,
    summary: "Run a purchase: all costs and rewards × quantity in one transaction, all or nothing",
    description:
      "Refused purchases change nothing: 409 INSUFFICIENT_FUNDS / INSUFFICIENT_ITEMS, 409 CURRENCY_MAX_EXCEEDED / " +
      "ITEM_MAX_EXCEEDED (an item's max stack: an addition to the contract's table). Purchases may cost server-only " +
      `currencies: the operator defined them. ${IDEMPOTENCY}`,
    headers: ZIdempotencyHeader,
    ok: { status: 200, description: "What the purchase touched, after it.", schema: ZPurchaseResult },
    errors: [
      "PURCHASE_NOT_FOUND",
      "INSUFFICIENT_FUNDS",
      "INSUFFICIENT_ITEMS",
      "CURRENCY_MAX_EXCEEDED",
      "ITEM_MAX_EXCEEDED",
      "IDEMPOTENCY_KEY_REUSED",
      "IDEMPOTENCY_IN_PROGRESS",
    ],
  },
});

export const transactionsEndpoint = endpoint({
  method: "GET",
  path: "/economy/transactions",
  auth: "player",
  query: ZTransactionsQuery,
  doc: {
    operationId: "listTransactions",
    tags,
    summary: "The player's own ledger, newest first",
    description: "Kinds: add, subtract, purchase, grant and revoke (an operator's change). `nextCursor` is null on the last page.",
    ok: { status: 200, description: "A page of the ledger.", schema: ZTransactionPage },
  },
});

export const receiptEndpoint = endpoint({
  method: "POST",
  path: "/economy/receipts",
  auth: "player",
  body: ZReceiptBody,
  doc: {
    operationId: "validateReceipt",
    tags,
    summary: "Redeem a real-money store purchase: verified with the store, granted once per store transaction",
    description:
      "`apple`: StoreKit 2's signed transaction, verified offline against Apple's root certificate, the project's bundle id and " +
      "accepted environments. `google`: the product id and purchase token, checked with the Google Play Developer API, then " +
      "consumed (consumable products) or acknowledged. `steam`: the order id of `POST /economy/receipts/steam`, finalized with " +
      "Steam once the player approved it in the overlay. The store product's rewards × the store's quantity go through the " +
      "ledger (kind `store_purchase`; a currency's maximum does not refuse a paid grant). Exactly once per store transaction " +
      "id: the same receipt again answers the first result with `replayed: true` to its player and 409 RECEIPT_ALREADY_USED " +
      "to another player (and to a player of another project of this server for a production purchase: one grant per real " +
      'purchase per server, `details.scope: "instance"`), so a client retries with the same receipt safely (no Idempotency-Key needed). Refusals grant nothing: ' +
      "422 RECEIPT_INVALID (malformed, forged, unknown), RECEIPT_EXPIRED, RECEIPT_WRONG_APP, RECEIPT_WRONG_ENVIRONMENT, " +
      "RECEIPT_WRONG_PRODUCT (no store product has this store id), RECEIPT_CANCELLED (cancelled, refunded or revoked at the " +
      "store), STORE_NOT_CONFIGURED; 409 RECEIPT_PENDING (not paid yet: send it again later); 503 STORE_UNAVAILABLE (the " +
      "store did not answer: retry with backoff).",
    ok: { status: 200, description: "The grant, or the first grant's result for a replay.", schema: ZReceiptResult },
    errors: [
      "RECEIPT_INVALID",
      "RECEIPT_EXPIRED",
      "RECEIPT_WRONG_APP",
      "RECEIPT_WRONG_ENVIRONMENT",
      "RECEIPT_WRONG_PRODUCT",
      "RECEIPT_CANCELLED",
      "STORE_NOT_CONFIGURED",
      "RECEIPT_PENDING",
      "RECEIPT_ALREADY_USED",
      "STORE_UNAVAILABLE",
    ],
  },
});

export const steamOrderEndpoint = endpoint({
  method: "POST",
  path: "/economy/receipts/steam",
  auth: "player",
  body: ZSteamOrderBody,
  doc: {
    operationId: "startSteamOrder",
    tags,
    summary: "Start a Steam microtransaction (InitTxn): Steam then asks the player to approve it in the overlay",
    description:
      "The server creates the order with Steam for the store product's Steam item at its price. Steam shows the overlay; the game " +
      'receives `MicroTxnAuthorizationResponse_t` and, when authorized, sends `{store: "steam", orderId}` to `POST /economy/receipts`. ' +
      "An order Steam refused or did not answer is abandoned (Steam's rule): start a new one.",
    ok: { status: 200, description: "The order, waiting for the player's approval.", schema: ZSteamOrder },
    errors: ["RECEIPT_WRONG_PRODUCT", "RECEIPT_INVALID", "STORE_NOT_CONFIGURED", "STORE_UNAVAILABLE"],
  },
});

export const economyEndpoints = [
  listBalancesEndpoint,
  addCurrencyEndpoint,
  subtractCurrencyEndpoint,
  inventoryEndpoint,
  purchaseEndpoint,
  transactionsEndpoint,
  receiptEndpoint,
  steamOrderEndpoint,
];
