import { z } from "zod";
import { ANALYTICS_DEFAULT_DAYS, ANALYTICS_MAX_DAYS, economyAnalyticsAs } from "../../services/economy/analytics";
import {
  adjustPlayerAs,
  createCurrencyAs,
  createItemAs,
  createPurchaseAs,
  deleteCurrencyAs,
  deleteItemAs,
  deletePurchaseAs,
  updateCurrencyAs,
  updateItemAs,
  updatePurchaseAs,
} from "../../services/economy/commands";
import {
  currencyTotalsAs,
  holdersAboveAs,
  listCurrenciesAs,
  listItemsAs,
  listPurchasesAs,
  playerHoldingsAs,
  playerLedgerAs,
} from "../../services/economy/operator";
import {
  MAX_AMOUNT,
  MAX_LINES,
  ZAdjustDirection,
  ZAdjustReason,
  ZCurrencyInput,
  ZCurrencyUpdate,
  ZEconomyId,
  ZItemInput,
  ZItemUpdate,
  ZPurchaseInput,
  ZPurchaseUpdate,
} from "../../services/economy/schemas";
import { input, projectProcedure, router } from "../init";

/**
 * The economy for operators: definitions (currencies, items, purchases) and players' holdings.
 * Reads for every member; changes are services through runCommand (server/services/economy/commands.ts).
 */
const ZProjectId = z.string().uuid();
const ZProject = z.strictObject({ projectId: ZProjectId });
const ZRef = z.strictObject({ projectId: ZProjectId, id: ZEconomyId });
const ZPlayer = z.strictObject({ projectId: ZProjectId, playerId: z.string().uuid() });
const ZAmount = z.number().int().min(1).max(MAX_AMOUNT);

export const economyRouter = router({
  currencies: projectProcedure("VIEWER")
    .input(input(ZProject))
    .query(({ ctx, input }) => listCurrenciesAs(ctx, input)),
  items: projectProcedure("VIEWER")
    .input(input(ZProject))
    .query(({ ctx, input }) => listItemsAs(ctx, input)),
  purchases: projectProcedure("VIEWER")
    .input(input(ZProject))
    .query(({ ctx, input }) => listPurchasesAs(ctx, input)),
  /** Each currency's total in started wallets (the overview); one aggregate over the project's wallets. */
  totals: projectProcedure("VIEWER")
    .input(input(ZProject))
    .query(({ ctx, input }) => currencyTotalsAs(ctx, input)),

  /** Sources and sinks of every currency per UTC day over the last `days` days (the economy page's analytics). */
  analytics: projectProcedure("VIEWER")
    .input(
      input(
        z.strictObject({ projectId: ZProjectId, days: z.number().int().min(1).max(ANALYTICS_MAX_DAYS).default(ANALYTICS_DEFAULT_DAYS) }),
      ),
    )
    .query(({ ctx, input }) => economyAnalyticsAs(ctx, input)),

  /** How many players hold more than `max` of a currency or item: the edit forms warn before a maximum is lowered. */
  holdersAbove: projectProcedure("VIEWER")
    .input(
      input(
        z.strictObject({
          projectId: ZProjectId,
          kind: z.enum(["currency", "item"]),
          id: ZEconomyId,
          max: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
        }),
      ),
    )
    .query(({ ctx, input }) => holdersAboveAs(ctx, input)),

  createCurrency: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, currency: ZCurrencyInput })))
    .mutation(({ ctx, input }) => createCurrencyAs(ctx, input)),
  updateCurrency: projectProcedure("ADMIN")
    .input(input(ZRef.extend({ patch: ZCurrencyUpdate, reason: ZAdjustReason.optional() })))
    .mutation(({ ctx, input }) => updateCurrencyAs(ctx, input)),
  /** Refused (IN_USE) while a player holds some or a purchase refers to it. */
  deleteCurrency: projectProcedure("ADMIN")
    .input(input(ZRef))
    .mutation(({ ctx, input }) => deleteCurrencyAs(ctx, input)),

  createItem: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, item: ZItemInput })))
    .mutation(({ ctx, input }) => createItemAs(ctx, input)),
  updateItem: projectProcedure("ADMIN")
    .input(input(ZRef.extend({ patch: ZItemUpdate, reason: ZAdjustReason.optional() })))
    .mutation(({ ctx, input }) => updateItemAs(ctx, input)),
  deleteItem: projectProcedure("ADMIN")
    .input(input(ZRef))
    .mutation(({ ctx, input }) => deleteItemAs(ctx, input)),

  createPurchase: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, purchase: ZPurchaseInput })))
    .mutation(({ ctx, input }) => createPurchaseAs(ctx, input)),
  updatePurchase: projectProcedure("ADMIN")
    .input(input(ZRef.extend({ patch: ZPurchaseUpdate, reason: ZAdjustReason.optional() })))
    .mutation(({ ctx, input }) => updatePurchaseAs(ctx, input)),
  deletePurchase: projectProcedure("ADMIN")
    .input(input(ZRef))
    .mutation(({ ctx, input }) => deletePurchaseAs(ctx, input)),

  /** Balances of every currency (unstarted wallets at their initial balance) and the items held. */
  holdings: projectProcedure("VIEWER")
    .input(input(ZPlayer))
    .query(({ ctx, input }) => playerHoldingsAs(ctx, input)),

  /** The player's ledger, newest first, paged by cursor, with actor, reason and request id. */
  ledger: projectProcedure("VIEWER")
    .input(
      input(
        ZPlayer.extend({
          cursor: z.string().max(100).nullish(),
          direction: z.enum(["forward", "backward"]).optional(),
          limit: z.number().int().min(1).max(100).default(25),
        }),
      ),
    )
    .query(({ ctx, input: { direction: _direction, ...rest } }) => playerLedgerAs(ctx, rest)),

  /** Grants or revokes currencies and items with a reason: a ledger row as the operator's change, and an audit entry. */
  adjust: projectProcedure("ADMIN")
    .input(
      input(
        ZPlayer.extend({
          direction: ZAdjustDirection,
          currencies: z
            .array(z.strictObject({ currencyId: ZEconomyId, amount: ZAmount }))
            .max(MAX_LINES)
            .default([]),
          items: z
            .array(z.strictObject({ itemId: ZEconomyId, quantity: ZAmount }))
            .max(MAX_LINES)
            .default([]),
          reason: ZAdjustReason,
        }),
      ),
    )
    .mutation(({ ctx, input }) => adjustPlayerAs(ctx, input)),
});
