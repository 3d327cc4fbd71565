import { z } from "zod";
import { zLabel } from "../labels";

/** Amounts and balances: integers exact in JSON (≤ 2^53 − 1). */
export const MAX_AMOUNT = Number.MAX_SAFE_INTEGER;
export const MAX_LINES = 20;

export const ZEconomyId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "Ids are 1–64 of a-z, 0-9, _ and -, starting with a letter or digit.")
  .meta({ example: "coins" });

export const ZAmount = z.number().int().min(1).max(MAX_AMOUNT);
export const ZBalance = z.number().int().min(0).max(MAX_AMOUNT);

export const ZCurrencyInput = z
  .strictObject({
    id: ZEconomyId,
    name: zLabel(100),
    initialBalance: ZBalance.default(0),
    maxBalance: ZBalance.nullable().optional(),
    clientWritable: z.boolean().default(true),
  })
  .superRefine((c, ctx) => {
    if (c.maxBalance != null && c.maxBalance < c.initialBalance) {
      ctx.addIssue({ code: "custom", path: ["maxBalance"], message: "maxBalance must not be below initialBalance." });
    }
  });
export type CurrencyInput = z.input<typeof ZCurrencyInput>;
export const ZCurrencyUpdate = z.strictObject({
  name: zLabel(100).optional(),
  initialBalance: ZBalance.optional(),
  maxBalance: ZBalance.nullable().optional(),
  clientWritable: z.boolean().optional(),
});
export type CurrencyUpdate = z.input<typeof ZCurrencyUpdate>;

export const ZItemInput = z.strictObject({
  id: ZEconomyId,
  name: zLabel(100),
  maxStack: z.number().int().min(1).max(MAX_AMOUNT).nullable().optional(),
});
export type ItemInput = z.input<typeof ZItemInput>;
export const ZItemUpdate = z.strictObject({
  name: zLabel(100).optional(),
  maxStack: z.number().int().min(1).max(MAX_AMOUNT).nullable().optional(),
});
export type ItemUpdate = z.input<typeof ZItemUpdate>;

export const ZLine = z.union([
  z.strictObject({ currencyId: ZEconomyId, amount: ZAmount }),
  z.strictObject({ itemId: ZEconomyId, quantity: ZAmount }),
]);
export type Line = z.infer<typeof ZLine>;

export const ZPurchaseInput = z.strictObject({
  id: ZEconomyId,
  name: zLabel(100),
  costs: z.array(ZLine).max(MAX_LINES),
  rewards: z.array(ZLine).max(MAX_LINES),
});
export type PurchaseInput = z.input<typeof ZPurchaseInput>;
export const ZPurchaseUpdate = z.strictObject({
  name: zLabel(100).optional(),
  costs: z.array(ZLine).max(MAX_LINES).optional(),
  rewards: z.array(ZLine).max(MAX_LINES).optional(),
});
export type PurchaseUpdate = z.input<typeof ZPurchaseUpdate>;

/** An operator's grant or revoke: the direction and the reason kept in the ledger and the audit log. */
export const ZAdjustDirection = z.enum(["grant", "revoke"]);
export const ZAdjustReason = z.string().trim().min(1).max(500);

// ---- The game API ----

export const ZCurrencyParams = z.strictObject({ id: ZEconomyId });

export const ZAmountBody = z
  .strictObject({ amount: ZAmount.meta({ description: "An integer from 1 to 2^53 − 1." }) })
  .meta({ id: "CurrencyAmountBody" });

export const ZPurchaseBody = z
  .strictObject({
    purchaseId: ZEconomyId.meta({ example: "buy-potion" }),
    quantity: z.number().int().min(1).max(100).default(1).meta({ description: "1–100; costs and rewards are multiplied by it." }),
  })
  .meta({ id: "PurchaseBody" });

export const ZBalanceDto = z.object({ id: z.string(), name: z.string(), balance: z.number().int() }).meta({ id: "CurrencyBalance" });
export const ZChangedBalance = ZBalanceDto.extend({ transactionId: z.string().uuid() }).meta({ id: "CurrencyChange" });

export const ZInventoryEntry = z
  .object({ itemId: z.string(), name: z.string(), quantity: z.number().int(), updatedAt: z.iso.datetime() })
  .meta({ id: "InventoryEntry" });

export const ZPurchaseResult = z
  .object({
    transactionId: z.string().uuid(),
    purchaseId: z.string(),
    quantity: z.number().int(),
    balances: z.array(z.object({ id: z.string(), balance: z.number().int() })),
    inventory: z.array(z.object({ itemId: z.string(), quantity: z.number().int() })),
  })
  .meta({ id: "PurchaseResult" });

export const ZTransaction = z
  .object({
    id: z.string().uuid(),
    kind: z.enum(["add", "subtract", "purchase", "grant", "revoke", "reward", "store_purchase", "store_refund"]).meta({
      description:
        "reward: paid when a leaderboard period closed (`source` names the board and period). store_purchase: a real-money " +
        "store purchase granted (`purchaseId` is the store product); store_refund: the store refunded it and this took back what was left.",
    }),
    purchaseId: z.string().nullable(),
    source: z.object({ leaderboardId: z.string(), period: z.string() }).nullable().meta({
      description: "For a reward: the leaderboard and period it pays for (the period as in `GET /leaderboards/{id}`); else null.",
    }),
    currencies: z.array(z.object({ id: z.string(), delta: z.number().int(), balance: z.number().int() })),
    items: z.array(z.object({ itemId: z.string(), delta: z.number().int(), quantity: z.number().int() })),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: "EconomyTransaction" });
export type TransactionDto = z.infer<typeof ZTransaction>;

export const ZTransactionPage = z
  .object({ transactions: z.array(ZTransaction), nextCursor: z.string().nullable() })
  .meta({ id: "EconomyTransactionPage" });

export const ZTransactionsQuery = z.strictObject({
  cursor: z.string().max(100).optional().meta({ description: "`nextCursor` of the previous page." }),
  limit: z.coerce.number().int().min(1).max(100).default(25),
});

export type CurrencyLine = { currencyId: string; amount: number };
export type ItemLine = { itemId: string; quantity: number };
export const isCurrencyLine = (line: Line): line is CurrencyLine => Object.hasOwn(line, "currencyId");

const lineKey = (line: Line) =>
  isCurrencyLine(line) ? `currency:${line.currencyId}:${line.amount}` : `item:${line.itemId}:${line.quantity}`;

/**
 * What makes a purchase meaningless, whichever door defines it (dashboard, REST, config import):
 * no lines at all, or rewards that are exactly its costs (buying it would change nothing). A
 * purchase without costs is allowed (a daily gift); the dashboard asks before creating one.
 */
export function purchaseLinesProblem(costs: Line[], rewards: Line[]): string | null {
  if (costs.length === 0 && rewards.length === 0) return "A purchase needs costs or rewards.";
  const costKeys = costs.map(lineKey).sort();
  const rewardKeys = rewards.map(lineKey).sort();
  if (costKeys.length === rewardKeys.length && costKeys.every((key, i) => key === rewardKeys[i]))
    return "The rewards are the same as the costs: buying it would change nothing.";
  return null;
}
