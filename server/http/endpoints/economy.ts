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

export const economyEndpoints = [
  listBalancesEndpoint,
  addCurrencyEndpoint,
  subtractCurrencyEndpoint,
  inventoryEndpoint,
  purchaseEndpoint,
  transactionsEndpoint,
];
