import { z } from "zod";
import { auditActorFor, type SessionOperator } from "../../auth/operator";
import { transaction } from "../../db";
import { recordAudit } from "../../services/audit";
import {
  createCurrency,
  createItem,
  createPurchase,
  deleteCurrency,
  deleteItem,
  deletePurchase,
  economyConfig,
  forgetEconomy,
  listCurrencies,
  listItems,
  listPurchases,
  updateCurrency,
  updateItem,
  updatePurchase,
} from "../../services/economy/definitions";
import { currencyTotals, playerHoldings, playerLedger } from "../../services/economy/operator";
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
import { adjustPlayerEconomy } from "../../services/economy/wallet";
import { input, projectProcedure, router } from "../init";

/**
 * The economy for operators: definitions (currencies, items, purchases) and players' holdings.
 * Reads for every member, changes for admins and owners; each change writes its audit entry
 * (before / after) in the transaction of the change.
 */
const ZProjectId = z.string().uuid();
const ZProject = z.strictObject({ projectId: ZProjectId });
const ZRef = z.strictObject({ projectId: ZProjectId, id: ZEconomyId });
const ZPlayer = z.strictObject({ projectId: ZProjectId, playerId: z.string().uuid() });
const ZAmount = z.number().int().min(1).max(MAX_AMOUNT);
/** The audit actor names the operator, the request and the access token used, if any. */
const auditActor = (ctx: { operator: SessionOperator; requestId: string }) => auditActorFor(ctx.operator, ctx.requestId);

/**
 * The change and its audit entry in one transaction. The services cache the project's
 * definitions as they read them inside it; forgotten afterwards, so a rolled-back change is
 * never served from this instance's cache.
 */
function audited<T>(projectId: string, work: () => Promise<T>): Promise<T> {
  return transaction(work).finally(() => forgetEconomy(projectId));
}

async function definitionOf(projectId: string, kind: "currencies" | "items" | "purchases", id: string) {
  forgetEconomy(projectId);
  return (await economyConfig(projectId))[kind].get(id) ?? null;
}

export const economyRouter = router({
  currencies: projectProcedure("VIEWER")
    .input(input(ZProject))
    .query(({ input }) => listCurrencies(input)),
  items: projectProcedure("VIEWER")
    .input(input(ZProject))
    .query(({ input }) => listItems(input)),
  purchases: projectProcedure("VIEWER")
    .input(input(ZProject))
    .query(({ input }) => listPurchases(input)),
  /** Each currency's total in started wallets (the overview); one aggregate over the project's wallets. */
  totals: projectProcedure("VIEWER")
    .input(input(ZProject))
    .query(({ input }) => currencyTotals(input)),

  createCurrency: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, currency: ZCurrencyInput })))
    .mutation(({ ctx, input }) =>
      audited(input.projectId, async () => {
        const after = await createCurrency({ projectId: input.projectId, input: input.currency });
        await recordAudit({
          actor: auditActor(ctx),
          projectId: input.projectId,
          action: "economy.currency.create",
          target: after.id,
          after,
        });
        return after;
      }),
    ),
  updateCurrency: projectProcedure("ADMIN")
    .input(input(ZRef.extend({ patch: ZCurrencyUpdate })))
    .mutation(({ ctx, input }) =>
      audited(input.projectId, async () => {
        const before = await definitionOf(input.projectId, "currencies", input.id);
        const after = await updateCurrency({ projectId: input.projectId, id: input.id, input: input.patch });
        await recordAudit({
          actor: auditActor(ctx),
          projectId: input.projectId,
          action: "economy.currency.update",
          target: input.id,
          before,
          after,
        });
        return after;
      }),
    ),
  /** Refused (IN_USE) while a player holds some or a purchase refers to it. */
  deleteCurrency: projectProcedure("ADMIN")
    .input(input(ZRef))
    .mutation(({ ctx, input }) =>
      audited(input.projectId, async () => {
        const before = await definitionOf(input.projectId, "currencies", input.id);
        await deleteCurrency(input);
        await recordAudit({
          actor: auditActor(ctx),
          projectId: input.projectId,
          action: "economy.currency.delete",
          target: input.id,
          before,
        });
        return { deleted: true };
      }),
    ),

  createItem: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, item: ZItemInput })))
    .mutation(({ ctx, input }) =>
      audited(input.projectId, async () => {
        const after = await createItem({ projectId: input.projectId, input: input.item });
        await recordAudit({ actor: auditActor(ctx), projectId: input.projectId, action: "economy.item.create", target: after.id, after });
        return after;
      }),
    ),
  updateItem: projectProcedure("ADMIN")
    .input(input(ZRef.extend({ patch: ZItemUpdate })))
    .mutation(({ ctx, input }) =>
      audited(input.projectId, async () => {
        const before = await definitionOf(input.projectId, "items", input.id);
        const after = await updateItem({ projectId: input.projectId, id: input.id, input: input.patch });
        await recordAudit({
          actor: auditActor(ctx),
          projectId: input.projectId,
          action: "economy.item.update",
          target: input.id,
          before,
          after,
        });
        return after;
      }),
    ),
  deleteItem: projectProcedure("ADMIN")
    .input(input(ZRef))
    .mutation(({ ctx, input }) =>
      audited(input.projectId, async () => {
        const before = await definitionOf(input.projectId, "items", input.id);
        await deleteItem(input);
        await recordAudit({ actor: auditActor(ctx), projectId: input.projectId, action: "economy.item.delete", target: input.id, before });
        return { deleted: true };
      }),
    ),

  createPurchase: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, purchase: ZPurchaseInput })))
    .mutation(({ ctx, input }) =>
      audited(input.projectId, async () => {
        const after = await createPurchase({ projectId: input.projectId, input: input.purchase });
        await recordAudit({
          actor: auditActor(ctx),
          projectId: input.projectId,
          action: "economy.purchase.create",
          target: after.id,
          after,
        });
        return after;
      }),
    ),
  updatePurchase: projectProcedure("ADMIN")
    .input(input(ZRef.extend({ patch: ZPurchaseUpdate })))
    .mutation(({ ctx, input }) =>
      audited(input.projectId, async () => {
        const before = await definitionOf(input.projectId, "purchases", input.id);
        const after = await updatePurchase({ projectId: input.projectId, id: input.id, input: input.patch });
        await recordAudit({
          actor: auditActor(ctx),
          projectId: input.projectId,
          action: "economy.purchase.update",
          target: input.id,
          before,
          after,
        });
        return after;
      }),
    ),
  deletePurchase: projectProcedure("ADMIN")
    .input(input(ZRef))
    .mutation(({ ctx, input }) =>
      audited(input.projectId, async () => {
        const before = await definitionOf(input.projectId, "purchases", input.id);
        await deletePurchase(input);
        await recordAudit({
          actor: auditActor(ctx),
          projectId: input.projectId,
          action: "economy.purchase.delete",
          target: input.id,
          before,
        });
        return { deleted: true };
      }),
    ),

  /** Balances of every currency (unstarted wallets at their initial balance) and the items held. */
  holdings: projectProcedure("VIEWER")
    .input(input(ZPlayer))
    .query(({ input }) => playerHoldings(input)),

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
    .query(({ input }) =>
      playerLedger({ projectId: input.projectId, playerId: input.playerId, cursor: input.cursor ?? undefined, limit: input.limit }),
    ),

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
    .mutation(({ ctx, input }) =>
      audited(input.projectId, async () => {
        const applied = await adjustPlayerEconomy({
          actor: ctx.actor,
          playerId: input.playerId,
          direction: input.direction,
          currencies: input.currencies,
          items: input.items,
          reason: input.reason,
          requestId: ctx.requestId,
        });
        const sign = input.direction === "grant" ? 1 : -1;
        await recordAudit({
          actor: auditActor(ctx),
          projectId: input.projectId,
          action: `economy.${input.direction}`,
          target: input.playerId,
          // The ledger row holds the exact values; before = after − the signed change.
          before: {
            balances: applied.balances.map((b) => ({
              id: b.id,
              balance: b.balance - sign * (input.currencies.find((c) => c.currencyId === b.id)?.amount ?? 0),
            })),
            inventory: applied.inventory.map((i) => ({
              itemId: i.itemId,
              quantity: i.quantity - sign * (input.items.find((x) => x.itemId === i.itemId)?.quantity ?? 0),
            })),
          },
          after: {
            reason: input.reason,
            currencies: input.currencies,
            items: input.items,
            transactionId: applied.transactionId,
            balances: applied.balances,
            inventory: applied.inventory,
          },
        });
        return applied;
      }),
    ),
});
